#pragma once
// Plain CUDA's device memory on the emulator: the allocations (cudaMalloc's,
// with guard pages and per-byte flags) and the arena of __shared__ variables
// and dynamic shared memory. Shared by the checks of every access
// (raw_access.cpp, the hot path: what it calls here is inline) and the
// runtime's side that makes and frees them (raw_heap.cpp).
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "thread_state.hpp"

namespace attnlab::emu::raw {

constexpr uint8_t kInitialised = 1;    // the byte was written (by anything)
constexpr uint8_t kKernelWritten = 2;  // ... by a kernel

// ------------------------------------------------------------ allocations

// Shadow of one granule (4 bytes, or 2 or 1 once smaller accesses were seen)
// of global memory: the last plain write and read of the running launches,
// as (barrier-interval epoch, thread, site). Epochs only grow: one from an
// earlier launch is ordered before everything now.
struct GlobalShadow {
    uint32_t write_epoch = 0, read_epoch = 0;
    uint16_t writer = 0, reader = 0, write_site = 0, read_site = 0;
    uint32_t loaded_in_block = 0;  // BlockClock::block_id of the last block that loaded it
    uint32_t write_sync = 0, read_sync = 0;  // the accessing warp's __syncwarp count then
};

constexpr size_t kPage = 4096;
constexpr size_t kGuard = 64 * 1024;  // inaccessible bytes on each side

struct Allocation {
    uintptr_t base = 0, end = 0;          // the bytes asked for
    void* mapping = nullptr;
    size_t mapping_bytes = 0;
    std::string name;
    int line = 0;
    bool learner_owned = false;
    size_t elem_size = 4;
    const char* type = "float";
    std::vector<uint8_t> flags;           // per byte: kInitialised | kKernelWritten
    std::vector<GlobalShadow> shadow;     // made at the first kernel access
    unsigned granule = 4;                 // bytes per shadow entry: 4, 2 or 1
    unsigned granule_shift = 2;
    int64_t index_of(uintptr_t a) const { return (int64_t(a) - int64_t(base)) / int64_t(elem_size); }
    int64_t count() const { return int64_t((end - base) / elem_size); }
};

struct Heap {
    std::vector<std::unique_ptr<Allocation>> live;  // sorted by base
    Allocation* last = nullptr;
    bool host_refused = false;
    uintptr_t low = ~uintptr_t(0), high = 0;  // every live allocation and its guards are inside
    uint64_t generation = 1;                  // changes with every allocation and release
    // Released buffers, kept inaccessible (PROT_NONE) for a while so that a
    // kernel touching one is told "after cudaFree" instead of crashing.
    std::vector<std::unique_ptr<Allocation>> freed;  // in the order they were released
    size_t freed_bytes = 0;
    std::vector<std::pair<uintptr_t, const Allocation*>> freed_by_base;  // sorted: one search per stray access
};
constexpr size_t kFreedKeptBytes = size_t(256) << 20;  // beyond it, the oldest go back to the system
inline Heap* the_heap = nullptr;  // made at the first allocation; never destroyed (hooks may run during exit)
inline Heap& heap() {
    if (!the_heap) the_heap = new Heap;
    return *the_heap;
}

// The allocation whose bytes or guards contain `a` (nullptr: none).
inline Allocation* find_allocation(uintptr_t a) {
    if (!the_heap) return nullptr;
    Heap& h = *the_heap;
    if (h.last && a + kGuard >= h.last->base && a < h.last->end + kGuard) return h.last;
    if (a < h.low || a >= h.high) return nullptr;
    auto it = std::upper_bound(h.live.begin(), h.live.end(), a,
                               [](uintptr_t x, const std::unique_ptr<Allocation>& p) { return x + kGuard < p->base; });
    if (it == h.live.begin()) return nullptr;
    Allocation* cand = std::prev(it)->get();
    if (a + kGuard >= cand->base && a < cand->end + kGuard) return h.last = cand;
    return nullptr;
}

inline Allocation* allocation_at(const void* base) {
    Allocation* a = find_allocation(reinterpret_cast<uintptr_t>(base));
    return a && a->base == reinterpret_cast<uintptr_t>(base) ? a : nullptr;
}

// What the unchecked blocks of a sampled launch write, which no hook sees:
// taken before they run, and afterwards every byte of device memory they
// changed is marked written by a kernel, as a checked store marks it (the
// output's "never written" check and initcheck of later launches rely on
// it), element by element. An element rewritten with the value it held
// stays as it was marked.
class UncheckedWrites {
public:
    UncheckedWrites();
    void mark_changed_bytes() const;
private:
    struct Before {
        Allocation* allocation;
        std::vector<uint8_t> bytes;
    };
    std::vector<Before> before_;
};

// ----------------------------------------------------------- shared arena

constexpr size_t kStaticSharedBytes = 1 << 20;   // every kernel's static __shared__ variables
constexpr size_t kDynamicSharedBytes = 232448;   // 227 KiB: the largest a GPU gives a block

struct SharedClaim {
    detail::SharedRegion region;                 // data, shadow, count, element, name
    std::vector<detail::Shadow> shadow;
    size_t bytes = 0;
    std::string name;
    std::atomic<uint32_t> touched_in_launch{0};  // launch_serial of the last launch that used it
};
inline std::atomic<uint32_t> launch_serial{1};          // bumped after each launch (resolve_lines)

struct Arena {
    unsigned char* base = nullptr;               // [static part | guard | dynamic part]
    unsigned char* dynamic = nullptr;
    size_t static_used = 0;
    std::vector<std::unique_ptr<SharedClaim>> claims;  // by offset
    SharedClaim* last = nullptr;
    detail::SharedRegion dynamic_region;
    std::vector<detail::Shadow> dynamic_shadow;
    size_t dynamic_granule = 4;
};
inline Arena* the_arena = nullptr;  // made at the first __shared__ variable or dynamic shared memory
inline Arena& arena() {
    static Arena* a = [] {
        auto* arena = new Arena;
        const size_t total = kStaticSharedBytes + kGuard + kDynamicSharedBytes + kGuard;
        void* m = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        arena->base = static_cast<unsigned char*>(m);
        arena->dynamic = arena->base + kStaticSharedBytes + kGuard;
        arena->dynamic_region.data = arena->dynamic;
        arena->dynamic_region.name = "dynamic shared memory";
        return arena;
    }();
    the_arena = a;
    return *a;
}

inline bool in_static_shared(uintptr_t a) {
    return the_arena && a >= uintptr_t(the_arena->base) && a < uintptr_t(the_arena->base) + kStaticSharedBytes + kGuard;
}
inline bool in_dynamic_shared(uintptr_t a) {
    return the_arena && a >= uintptr_t(the_arena->dynamic) && a < uintptr_t(the_arena->dynamic) + kDynamicSharedBytes + kGuard;
}
inline bool in_shared(uintptr_t a) {  // both parts and the guard between them
    return the_arena && a >= uintptr_t(the_arena->base) && a < uintptr_t(the_arena->dynamic) + kDynamicSharedBytes + kGuard;
}

}  // namespace attnlab::emu::raw
