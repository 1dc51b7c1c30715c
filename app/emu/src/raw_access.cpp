// Plain CUDA on the emulator: the checks and counters of every access the
// hooks g++'s -fsanitize=thread and -fsanitize=bounds call from a learner's
// instrumented code (the hooks: sanitizer_hooks.cpp; the device memory they
// check: raw_heap.hpp; see attnlab/emu/raw_memory.hpp).
//
// Every load and store of an instrumented kernel arrives as
// access(address, size, is_write, return address). The address decides what
// it is: a static or dynamic __shared__ variable (one arena), a device
// allocation (or its guard pages: out of bounds), or anything else (the
// thread's own stack, host data: not device memory, unchecked). Checks and
// counters then follow: the shadow rules of shared memory, the warp request
// logs, and races in global memory between any two threads of a launch.
// attnlab's own kernels (kernels/) come through here too: every rule of the
// emulator's checks is written once, in this file.
//
// An access site is the instruction's return address; sites get small ids
// (the warp request logs pair lanes by them) and a source line only when a
// report needs it.
#include "attnlab/emu/raw_runtime.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <backtrace.h>

#include "thread_state.hpp"
#include "raw_access.hpp"
#include "raw_heap.hpp"

namespace attnlab::emu::raw {
namespace {

using detail::current_thread;
using detail::ThreadState;

// ------------------------------------------------------------------ lines

constexpr uint32_t kMaxSites = 0x10000;
struct Sites {
    // id -> return address (id 0: unknown). Never moved: the counting thread
    // reads the sites of the logs it was handed (site_code_address) while new
    // ones are added here (counting_pipeline.hpp).
    std::unique_ptr<uintptr_t[]> pcs = std::make_unique<uintptr_t[]>(kMaxSites);
    uint32_t count = 1;
    std::vector<int> lines{0};           // id -> learner line, -1 until looked up
    std::vector<uint32_t> table = std::vector<uint32_t>(1u << 16, 0);  // open addressing: pc -> id
    std::string learner_file;
    backtrace_state* state = nullptr;
};
Sites& sites() {
    static Sites* s = new Sites;  // never destroyed: hooks may run during exit
    return *s;
}

// A small id per access site, stable for the program's life (at most 65535:
// a learner's file has far fewer loads and stores). A loop's few sites are
// answered from a direct-mapped cache before the table.
unsigned site_lookup(uintptr_t pc);

// A site's key is its instruction's return address, or, for an access a
// device library makes for the learner (wmma's loads and stores), the
// learner's call with the access's part above the address bits: each part
// is its own instruction on a GPU, so its own warp request here.
constexpr int kPartShift = 56;
inline uintptr_t code_address(uintptr_t key) { return key & ((uintptr_t(1) << kPartShift) - 1); }
inline uintptr_t library_key(uintptr_t call, unsigned part) { return call | uintptr_t((part + 1) & 0x7f) << kPartShift; }

struct SiteCache {
    uintptr_t pc[128] = {};
    uint16_t id[128] = {};
    // The allocation the site touched last, valid while the heap's generation
    // is unchanged: a loop's loads from q, k and v each find theirs at once.
    Allocation* allocation[128] = {};
    uint64_t generation[128] = {};
    // The last address the site touched that is no device memory (a
    // threadIdx read, the thread's own stack), valid for the same
    // generation: most instrumented loads are of these, and each would
    // otherwise search the live and the freed buffers.
    uintptr_t outside[128] = {};
};
thread_local SiteCache site_cache;
inline unsigned site_slot(uintptr_t pc) {
    const unsigned slot = unsigned((pc ^ (pc >> (kPartShift - 3))) >> 1) & 127;  // a call's parts, 4 slots apart
    if (site_cache.pc[slot] != pc) {
        site_cache.pc[slot] = pc;
        site_cache.id[slot] = uint16_t(site_lookup(pc));
        site_cache.allocation[slot] = nullptr;
        site_cache.outside[slot] = 0;
    }
    return slot;
}
inline unsigned site_of(uintptr_t pc) { return site_cache.id[site_slot(pc)]; }

unsigned site_lookup(uintptr_t pc) {
    Sites& s = sites();
    uint32_t slot = uint32_t((pc * 0x9E3779B97F4A7C15ull) >> 48);
    for (;;) {
        const uint32_t id = s.table[slot];
        if (id == 0) break;
        if (s.pcs[id] == pc) return id;
        slot = (slot + 1) & 0xffff;
    }
    if (s.count >= kMaxSites - 1) return 0;
    const uint32_t id = s.count++;
    s.pcs[id] = pc;
    s.lines.push_back(-1);
    s.table[slot] = id;
    return id;
}

struct LineSearch {
    const std::string* learner_file;
    int innermost = 0, learner = 0;
};

bool ends_with(const char* s, const std::string& tail) {
    const size_t n = std::strlen(s);
    return !tail.empty() && n >= tail.size() && std::strcmp(s + n - tail.size(), tail.c_str()) == 0;
}

// Frames arrive innermost first (an inlined helper, then its caller...): the
// first one in the learner's file is the line the learner wrote.
int on_frame(void* data, uintptr_t, const char* file, int line, const char*) {
    auto* search = static_cast<LineSearch*>(data);
    if (!file || line <= 0) return 0;
    if (search->innermost == 0) search->innermost = line;
    if (ends_with(file, *search->learner_file)) {
        search->learner = line;
        return 1;
    }
    return 0;
}
void on_error(void*, const char*, int) {}

int line_of_pc(uintptr_t pc) {
    Sites& s = sites();
    if (pc == 0) return 0;
    if (!s.state) s.state = backtrace_create_state(nullptr, 0, on_error, nullptr);
    if (!s.state) return 0;
    LineSearch search{&s.learner_file};
    backtrace_pcinfo(s.state, pc - 1, on_frame, on_error, &search);  // pc - 1: the call, not what follows it
    return search.learner ? search.learner : search.innermost;
}

// Inside a kernel the answer may have to wait: reading the debug information
// takes more stack than an emulated thread has, so an unresolved site is
// returned as -id and resolve_pending_lines() answers it after the launch,
// on the OS thread's own stack.
__attribute__((noinline)) int resolve_line(unsigned id) {
    Sites& s = sites();
    if (current_thread) return -static_cast<int>(id);
    return s.lines[id] = line_of_pc(code_address(s.pcs[id]));
}
// (Inline: every checked shared access asks, and the answer is almost always known.)
inline int line_of_site(unsigned id) {
    const Sites& s = sites();
    if (id == 0 || id >= s.lines.size()) return 0;
    const int line = s.lines[id];
    return line >= 0 ? line : resolve_line(id);
}

// ------------------------------------------------------------------ faults

[[noreturn]] void fault_out_of_bounds(MemorySpace space, bool write, const std::string& buffer, int64_t index,
                                      int64_t size, const char* type, int line) {
    detail::fault_access(FaultKind::OutOfBounds, space, write, buffer, index, size, type, line);
}

[[noreturn]] void host_access(const std::string& what, uintptr_t pc) {
    host_fault("attnlab::emu::HostAccessError",
               what + " read or written by host code (outside any kernel), line " + std::to_string(line_of_pc(code_address(pc))));
}

// Nothing is ever mapped in the lowest 64 KiB (Linux's mmap_min_addr): an
// address there is a null pointer plus an index (`out[i]` with out ==
// nullptr). Told apart before the load or store, which would crash.
constexpr uintptr_t kNullPage = 64 * 1024;
[[noreturn]] void null_access(uintptr_t a, unsigned size, bool write, int line) {
    if (!current_thread) host_fault("std::invalid_argument", std::string("null pointer ") + (write ? "written" : "read") + " on line " + std::to_string(line));
    fault_out_of_bounds(MemorySpace::Global, write, "", int64_t(a / (size ? size : 1)), 0, "", line);
}

inline void step(ThreadState& ts, unsigned site) {
    if (++ts.steps > ts.step_limit) detail::fault_step_limit(line_of_site(site));
}

inline unsigned width_class(unsigned size) { return size >= 16 ? 2 : size >= 8 ? 1 : 0; }

// A GPU faults on an access of 2, 4, 8 or 16 bytes at an address that is not
// a multiple of its size (a float4 pointer one float in); so does the CPU's
// aligned vector load the compiler emits for it.
// (Callers test the address first: this is the slow path that names the fault.)
inline bool misaligned(uintptr_t a, unsigned size) { return size > 1 && size <= 16 && (a & (size - 1)) != 0; }
void check_alignment(uintptr_t a, unsigned size, MemorySpace space, bool write, const char* buffer, int64_t index,
                     int64_t count, const char* type, unsigned site) {
    if (!misaligned(a, size)) return;
    Fault f = detail::access_fault(FaultKind::MisalignedAddress, space, write, buffer, index, count, type, line_of_site(site));
    f.detail = std::to_string(size);  // the access's bytes
    detail::raise_fault(std::move(f));
}

// ------------------------------------------------------------ shared checks

// Racecheck and initcheck of shared memory, per element of the variable.
detail::Shadow& fresh(detail::Shadow& sh) {
    if (sh.interval != detail::clock.interval) {
        sh.interval = detail::clock.interval;
        sh.writer = sh.reader = sh.reader2 = sh.other_warp_reader = -1;
        sh.warps_read = 0;
    }
    return sh;
}

// The element's latest write is an asynchronous copy that has landed: a race
// with it is a missing __syncthreads after the copying thread's wait
// ("async_copy_no_barrier"), not a plain store's race (nullptr).
inline const char* written_by_landed_copy(const detail::Shadow& sh) {
    const bool landed_copy = sh.landed_block == detail::clock.block_serial && sh.async_writer == sh.writer && sh.async_line == sh.writer_line;
    return landed_copy ? "async_copy_no_barrier" : nullptr;
}

// An asynchronous copy into the element has not landed: whatever the access,
// by the copying thread too, it races with the copy.
inline void check_async_landed(const detail::SharedRegion& r, int64_t e, const detail::Shadow& sh, bool write, int line) {
    if (sh.async_block == detail::clock.block_serial && sh.async_writer >= 0)
        detail::fault_race(r, e, write, sh.async_writer, true, sh.async_line, line, "async_copy_not_landed");
}

// A shared load that one load of the source repeats soon is served from a
// register, as nvcc compiles it: the same element read by the same thread at
// the same site (a micro-tile's operand, read again in each round of its i
// and j loops, which nvcc unrolls; a loop-invariant load), with no barrier
// and no __syncwarp since (nothing may have changed it that is not a race,
// and the thread's own store nvcc forwards), and at most this many other
// loads issued between: the operands an unrolled 8 x 8 micro-tile holds per
// step along k. Another load of the element (a second pass over a row) is
// issued: which loads share a register is nvcc's decision per instruction,
// the same for every lane, and a site is one instruction.
constexpr uint32_t kRegisterWindow = 16;

// Returns whether the load is served from a register (above). Fibers run a
// thread from one barrier to the next with no other thread between, so the
// element's latest reader is this thread exactly when no other read it since.
bool shared_read(const detail::SharedRegion& r, int64_t e, ThreadState& ts, int line, unsigned site) {
    detail::Shadow& sh = fresh(r.shadow[e]);
    check_async_landed(r, e, sh, false, line);
    if (sh.written_in_block != detail::clock.block_serial) detail::note_unwritten_shared_read(r, e, line);
    const int me = static_cast<int>(ts.linear);
    if (detail::unordered(sh.writer, sh.writer_sync, ts))
        detail::fault_race(r, e, false, sh.writer, true, sh.writer_line, line, written_by_landed_copy(sh));
    sh.warps_read |= 1u << (ts.warp & 31);
    if (sh.reader >= 0 && sh.reader != me) {
        if (static_cast<unsigned>(sh.reader) / 32 == ts.warp) {
            sh.reader2 = sh.reader, sh.reader2_line = sh.reader_line, sh.reader2_sync = sh.reader_sync;
        } else {
            sh.other_warp_reader = sh.reader, sh.other_warp_reader_line = sh.reader_line;
            sh.reader2 = -1;
        }
    }
    const bool in_register = sh.reader == me && sh.reader_site == site && sh.reader_sync == *ts.warp_sync &&
                             ts.shared_loads_issued - sh.reader_issued <= kRegisterWindow;
    sh.reader = me, sh.reader_line = line, sh.reader_sync = *ts.warp_sync;
    sh.reader_issued = ts.shared_loads_issued, sh.reader_site = site;
    return in_register;
}

void shared_write(const detail::SharedRegion& r, int64_t e, ThreadState& ts, int line) {
    detail::Shadow& sh = fresh(r.shadow[e]);
    check_async_landed(r, e, sh, true, line);
    if (detail::unordered(sh.writer, sh.writer_sync, ts))
        detail::fault_race(r, e, true, sh.writer, true, sh.writer_line, line, written_by_landed_copy(sh));
    // A copy into an element another thread read is named for the copy (the
    // launch names it loop_wraparound instead when it is a loop's next round).
    auto over_read = [&](int) -> const char* { return ts.issuing_copy ? "async_copy_over_read" : nullptr; };
    if (sh.warps_read & ~(1u << (ts.warp & 31))) {
        const bool latest_is_other = sh.reader >= 0 && static_cast<unsigned>(sh.reader) / 32 != ts.warp;
        detail::fault_race(r, e, true, latest_is_other ? sh.reader : sh.other_warp_reader, false,
                           latest_is_other ? sh.reader_line : sh.other_warp_reader_line, line,
                           over_read(latest_is_other ? sh.reader_line : sh.other_warp_reader_line));
    }
    const bool latest_is_me = sh.reader == static_cast<int>(ts.linear);
    if (!latest_is_me && detail::unordered(sh.reader, sh.reader_sync, ts))
        detail::fault_race(r, e, true, sh.reader, false, sh.reader_line, line, over_read(sh.reader_line));
    if (latest_is_me && detail::unordered(sh.reader2, sh.reader2_sync, ts))
        detail::fault_race(r, e, true, sh.reader2, false, sh.reader2_line, line, over_read(sh.reader2_line));
    sh.writer = static_cast<int>(ts.linear), sh.writer_line = line, sh.writer_sync = *ts.warp_sync;
    sh.written_in_block = detail::clock.block_serial;
}

// The shared variable an address falls in; past the last one: the one before.
SharedClaim* claim_of(uintptr_t a) {
    Arena& s = arena();
    if (s.last && a >= uintptr_t(s.last->region.data) && a < uintptr_t(s.last->region.data) + s.last->bytes) return s.last;
    auto it = std::upper_bound(s.claims.begin(), s.claims.end(), a,
                               [](uintptr_t x, const std::unique_ptr<SharedClaim>& c) { return x < uintptr_t(c->region.data); });
    if (it == s.claims.begin()) return nullptr;
    return s.last = std::prev(it)->get();
}

// The element a byte offset falls in; element sizes are almost always a
// power of two, and a shift costs far less than the division on every access.
inline uint64_t element_of(uint64_t offset, size_t elem_size) {
    if ((elem_size & (elem_size - 1)) == 0) return offset >> __builtin_ctzll(elem_size);
    return offset / elem_size;
}

// A shared region and the element range [first, last] an access covers, or a memcheck fault.
const detail::SharedRegion& shared_target(uintptr_t a, unsigned size, bool write, unsigned site, int64_t& first, int64_t& last) {
    Arena& s = arena();
    const detail::SharedRegion* r = nullptr;
    uintptr_t limit = 0;
    if (in_dynamic_shared(a)) {
        const uint64_t bytes = detail::running_dynamic_shared_bytes();
        r = &s.dynamic_region;
        limit = uintptr_t(s.dynamic) + bytes;
        s.dynamic_region.count = int64_t(element_of(bytes, s.dynamic_granule));
    } else if (SharedClaim* c = claim_of(a)) {
        const uint32_t serial = launch_serial.load(std::memory_order_relaxed);
        if (c->touched_in_launch.load(std::memory_order_relaxed) != serial) c->touched_in_launch.store(serial, std::memory_order_relaxed);
        r = &c->region;
        limit = uintptr_t(c->region.data) + c->bytes;
    }
    if (!r || a < uintptr_t(r->data) || a + size > limit) {
        const int64_t index = r ? (int64_t(a) - int64_t(uintptr_t(r->data))) / int64_t(r->elem_size) : 0;
        fault_out_of_bounds(MemorySpace::Shared, write, r ? r->name : "shared memory", index, r ? r->count : 0,
                            r ? r->type : "", line_of_site(site));
    }
    const uint64_t offset = a - uintptr_t(r->data);
    first = int64_t(element_of(offset, r->elem_size));
    if (misaligned(a, size)) check_alignment(a, size, MemorySpace::Shared, write, r->name, first, r->count, r->type, site);
    last = int64_t(element_of(offset + size - 1, r->elem_size));
    return *r;
}

void shared_access(uintptr_t a, unsigned size, bool write, bool always_issued, unsigned site, ThreadState& ts) {
    int64_t first = 0, last = 0;
    const detail::SharedRegion& r = shared_target(a, size, write, site, first, last);
    step(ts, site);
    bool in_register = false;  // a load nvcc serves from a register (shared_read)
    if (ts.checks) {
        const int line = line_of_site(site);
        in_register = !write && !always_issued;
        for (int64_t e = first; e <= last; ++e)
            if (write) shared_write(r, e, ts, line);
            else in_register = shared_read(r, e, ts, line, site) && in_register;
    }
    if (!write && !in_register) ++ts.shared_loads_issued;
    if (ts.counters && !in_register)
        (write ? ts.shared_stores : ts.shared_loads).push_back(detail::log_site_entry(site, width_class(size), a >> 2));
    if (ts.trace) detail::trace_access(ts, MemorySpace::Shared, write, r.name, first, (a >> 2) & 31, line_of_site(site));
}

// ------------------------------------------------------------ global checks

// Is an earlier access (epoch, thread) unordered with the running thread's?
// Same block: only within one barrier interval, by another thread, unless
// both are lanes of one warp and a __syncwarp came between (`sync`: the
// warp's __syncwarp count at the earlier access). Another block of the same
// launch: always (blocks are not ordered within a launch).
inline bool unordered_global(uint32_t epoch, uint16_t thread, uint32_t sync, const ThreadState& ts) {
    if (epoch == 0 || epoch < detail::running_launch_first_epoch()) return false;
    if (epoch >= detail::clock.block_serial) {
        if (epoch != detail::clock.interval || thread == ts.linear) return false;
        return !(thread / 32 == ts.warp && sync != *ts.warp_sync);
    }
    return true;
}

[[noreturn]] void global_race(const Allocation& A, int64_t index, bool write, uint32_t other_epoch, uint16_t other_thread,
                              uint16_t other_site, bool other_write, unsigned site) {
    Fault f = detail::access_fault(FaultKind::GlobalRace, MemorySpace::Global, write, A.name, index, A.count(), A.type,
                                   line_of_site(site));
    f.other_block = {blockIdx.x, blockIdx.y, blockIdx.z};
    detail::block_of_epoch(other_epoch, f.other_block);
    f.other_thread = detail::thread_of_linear(other_thread);
    f.other_is_write = other_write;
    f.other_line = line_of_site(other_site);
    if (detail::loop_wraparound(write, other_write, f.line, f.other_line)) f.detail = "loop_wraparound";
    detail::raise_fault(std::move(f));
}

void prepare_shadow(Allocation& A, unsigned size) {
    unsigned g = A.granule;
    while (g > 1 && g > size) g /= 2;
    if (!A.shadow.empty() && g == A.granule) return;
    A.granule = g;  // smaller accesses seen: finer shadow (earlier history is dropped)
    A.granule_shift = g == 4 ? 2 : g == 2 ? 1 : 0;
    A.shadow.assign((A.end - A.base + g - 1) / g, GlobalShadow{});
}

void global_races(Allocation& A, uintptr_t a, unsigned size, bool write, unsigned site, ThreadState& ts) {
    prepare_shadow(A, size);
    const size_t first = (a - A.base) >> A.granule_shift, last = (a + size - 1 - A.base) >> A.granule_shift;
    for (size_t g = first; g <= last && g < A.shadow.size(); ++g) {
        GlobalShadow& sh = A.shadow[g];
        if (unordered_global(sh.write_epoch, sh.writer, sh.write_sync, ts))
            global_race(A, A.index_of(a), write, sh.write_epoch, sh.writer, sh.write_site, true, site);
        if (write && unordered_global(sh.read_epoch, sh.reader, sh.read_sync, ts))
            global_race(A, A.index_of(a), write, sh.read_epoch, sh.reader, sh.read_site, false, site);
        if (write) {
            sh.write_epoch = detail::clock.interval, sh.writer = uint16_t(ts.linear), sh.write_site = uint16_t(site);
            sh.write_sync = *ts.warp_sync;
        } else {
            sh.read_epoch = detail::clock.interval, sh.reader = uint16_t(ts.linear), sh.read_site = uint16_t(site);
            sh.read_sync = *ts.warp_sync;
            if (sh.loaded_in_block == detail::clock.block_id) ts.reloaded_bytes += A.granule;
            sh.loaded_in_block = detail::clock.block_id;
        }
    }
}

bool all_initialised(const Allocation& A, uintptr_t a, unsigned size) {
    const uint8_t* f = A.flags.data() + (a - A.base);
    if (size == 4) {
        uint32_t word;
        std::memcpy(&word, f, 4);
        return (word & 0x01010101u) == 0x01010101u;
    }
    for (unsigned i = 0; i < size; ++i)
        if (!(f[i] & kInitialised)) return false;
    return true;
}

void global_access(Allocation& A, uintptr_t a, unsigned size, bool write, unsigned site, ThreadState& ts) {
    if (a < A.base || a + size > A.end)
        fault_out_of_bounds(MemorySpace::Global, write, A.name, A.index_of(a), A.count(), A.type, line_of_site(site));
    if (misaligned(a, size)) check_alignment(a, size, MemorySpace::Global, write, A.name.c_str(), A.index_of(a), A.count(), A.type, site);
    step(ts, site);
    if (!write && ts.checks && !all_initialised(A, a, size))
        detail::fault_access(FaultKind::UninitializedRead, MemorySpace::Global, false, A.name, A.index_of(a), A.count(), A.type,
                             line_of_site(site));
    if (ts.checks) global_races(A, a, size, write, site, ts);
    if (write) std::memset(A.flags.data() + (a - A.base), kInitialised | kKernelWritten, size);
    (write ? ts.bytes_written : ts.bytes_read) += size;
    if (ts.counters) (write ? ts.global_stores : ts.global_loads).push_back(detail::log_site_entry(site, width_class(size), a >> 5));
    if (ts.trace) detail::trace_access(ts, MemorySpace::Global, write, A.name.c_str(), A.index_of(a), (a - A.base) >> 5, line_of_site(site));
}

// A buffer released with cudaFree, touched by a kernel: memcheck's invalid
// access, named as such (the mapping is PROT_NONE: the access itself would
// crash the program).
void freed_access(uintptr_t a, bool write, unsigned site) {
    const auto& by_base = the_heap->freed_by_base;
    if (by_base.empty() || a < by_base.front().first) return;
    const auto after = std::upper_bound(by_base.begin(), by_base.end(), a, [](uintptr_t x, const auto& e) { return x < e.first; });
    const Allocation& A = *std::prev(after)->second;
    if (a >= std::max(A.end, A.base + 1)) return;
    Fault f = detail::access_fault(FaultKind::OutOfBounds, MemorySpace::Global, write, A.name, A.index_of(a), A.count(), A.type,
                                   line_of_site(site));
    f.detail = "freed";
    detail::raise_fault(std::move(f));
}

}  // namespace

// ---------------------------------------------------------------- dispatch

void access(uintptr_t a, unsigned size, bool write, uintptr_t pc, bool always_issued) {
    ThreadState* ts = current_thread;
    if (!ts) {  // host code: device memory is off limits, as on a GPU
        if (a < kNullPage) null_access(a, size, write, line_of_pc(code_address(pc)));
        if (!the_heap || !the_heap->host_refused) return;
        if (Allocation* A = find_allocation(a)) host_access("device buffer '" + A->name + "'", pc);
        if (in_shared(a)) host_access("shared memory", pc);
        return;
    }
    if (in_shared(a)) return shared_access(a, size, write, always_issued, site_of(pc), *ts);
    const unsigned slot = site_slot(pc);
    const uint64_t generation = the_heap ? the_heap->generation : 0;
    if (site_cache.outside[slot] == a && site_cache.generation[slot] == generation) return;
    Allocation* A = site_cache.allocation[slot];
    if (!A || site_cache.generation[slot] != generation || a + kGuard < A->base || a >= A->end + kGuard) {
        A = find_allocation(a);
        site_cache.allocation[slot] = A;
        site_cache.generation[slot] = generation;
    }
    if (A) return global_access(*A, a, size, write, site_cache.id[slot], *ts);
    if (the_heap && !the_heap->freed_by_base.empty()) freed_access(a, write, site_of(pc));
    if (a < kNullPage) null_access(a, size, write, line_of_site(site_cache.id[slot]));
    // Anything else is the thread's own stack or host data: not device memory.
    site_cache.outside[slot] = a;
}

void library_access(const void* p, unsigned size, bool write, const void* call, unsigned part, int line) {
    // An unchecked block's library accesses are neither checked nor counted, as
    // its own are not (they would also mark its copy's __shared__ variables as
    // used, counting a WMMA kernel's static shared memory twice).
    if (current_thread && !current_thread->checks) return;
    const uintptr_t key = library_key(uintptr_t(call), part);
    if (current_thread) {  // the site's line is the learner's call, known already
        Sites& s = sites();
        const unsigned id = site_of(key);
        if (id != 0 && s.lines[id] < 0 && line > 0) s.lines[id] = line;
    }
    access(uintptr_t(p), size, write, key, /*always_issued=*/true);  // a fragment's load is its own instruction
}

// ------------------------------------------------------ asynchronous copies

namespace {

// Marks (or, landed, clears) the destination elements of a copy of `ts`.
void mark_async_destination(uintptr_t dst, unsigned size, const ThreadState& ts, int line, bool pending) {
    int64_t first = 0, last = 0;
    const detail::SharedRegion& r = shared_target(dst, size, true, 0, first, last);
    for (int64_t e = first; e <= last; ++e) {
        detail::Shadow& sh = r.shadow[e];
        if (!pending && sh.async_writer != static_cast<int>(ts.linear)) continue;  // a later copy's now
        if (!pending) {  // landed: the copy (thread, line) stays known for a race before the next barrier
            sh.async_block = 0;
            sh.landed_block = detail::clock.block_serial;
            continue;
        }
        sh.async_block = detail::clock.block_serial;
        sh.async_writer = static_cast<int>(ts.linear);
        sh.async_line = line;
    }
}

}  // namespace

void async_copy(void* dst, const void* src, size_t bytes, size_t zero_fill, int line) {
    if (bytes != 4 && bytes != 8 && bytes != 16) device_assert_failed("__pipeline_memcpy_async: size_and_align is 4, 8 or 16", unsigned(line));
    if (zero_fill > bytes) device_assert_failed("__pipeline_memcpy_async: zfill is at most size_and_align", unsigned(line));
    ThreadState* ts = current_thread;
    if (ts && !ts->checks) {  // an unchecked block: the copy lands at once, one timing a GPU allows
        std::memcpy(dst, src, bytes - zero_fill);
        std::memset(static_cast<char*>(dst) + (bytes - zero_fill), 0, zero_fill);
        return;
    }
    const void* call = __builtin_return_address(0);
    if (bytes > zero_fill) library_access(src, unsigned(bytes), false, call, 0, line);  // the copying thread's load
    if (ts) ts->issuing_copy = true;  // (after a fault the thread never resumes; start_threads clears it)
    library_access(dst, unsigned(bytes), true, call, 1, line);  // its store, as far as races and counters go
    if (ts) ts->issuing_copy = false;
    if (!ts) return;  // host code: library_access has already refused it
    if (!in_shared(uintptr_t(dst))) device_assert_failed("__pipeline_memcpy_async: the destination is shared memory", unsigned(line));
    detail::ThreadState::PendingCopy copy{static_cast<unsigned char*>(dst), {}, unsigned(bytes), ts->committed_groups};
    std::memcpy(copy.bytes, src, bytes - zero_fill);
    ts->pending_copies.push_back(copy);
    mark_async_destination(uintptr_t(dst), unsigned(bytes), *ts, line, true);
}

void async_commit() {
    if (ThreadState* ts = current_thread) ++ts->committed_groups;
}

void async_wait_prior(size_t newest) {
    ThreadState* ts = current_thread;
    if (!ts || ts->pending_copies.empty()) return;
    const uint32_t landed_below = ts->committed_groups > newest ? uint32_t(ts->committed_groups - newest) : 0;
    auto& pending = ts->pending_copies;
    size_t kept = 0;
    for (const auto& copy : pending) {
        if (copy.group >= landed_below) {
            pending[kept++] = copy;
            continue;
        }
        std::memcpy(copy.dst, copy.bytes, copy.size);
        mark_async_destination(uintptr_t(copy.dst), copy.size, *ts, 0, false);
    }
    pending.resize(kept);
}

// A range (a struct copy): pieces of at most 16 bytes, as a GPU moves it.
void access_range(uintptr_t a, size_t size, bool write, uintptr_t pc) {
    while (size > 0) {
        unsigned piece = 16;
        while (piece > 1 && (piece > size || (a & (piece - 1)))) piece /= 2;
        access(a, piece, write, pc);
        a += piece;
        size -= piece;
    }
}

namespace {

// `line` > 0: the learner's line, passed by the atomic wrappers; otherwise the
// site's (a C++ std::atomic through the __tsan_atomic hooks).
template <class T> T* atomic_target(T* p, uintptr_t pc, int line = 0) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    ThreadState* ts = current_thread;
    if (!ts) {
        if (a < kNullPage) null_access(a, sizeof(T), true, line > 0 ? line : line_of_pc(pc));
        if (the_heap && the_heap->host_refused && find_allocation(a)) host_access("device memory (an atomic)", pc);
        return p;
    }
    const unsigned site = site_of(pc);
    if (in_shared(a)) {
        int64_t first = 0, last = 0;
        const detail::SharedRegion& r = shared_target(a, sizeof(T), true, site, first, last);
        step(*ts, site);
        for (int64_t e = first; e <= last; ++e) {
            if (ts->checks && r.shadow[e].written_in_block != detail::clock.block_serial)
                detail::fault_access(FaultKind::UninitializedRead, MemorySpace::Shared, false, r.name, e, r.count, r.type,
                                     (line > 0 ? line : line_of_site(site)));
            r.shadow[e].written_in_block = detail::clock.block_serial;
        }
    } else if (Allocation* A = find_allocation(a)) {
        const int64_t index = (int64_t(a) - int64_t(A->base)) / int64_t(A->elem_size);
        const int64_t count = int64_t((A->end - A->base) / A->elem_size);
        if (a < A->base || a + sizeof(T) > A->end)
            fault_out_of_bounds(MemorySpace::Global, true, A->name, index, count, A->type, (line > 0 ? line : line_of_site(site)));
        step(*ts, site);
        if (ts->checks && !all_initialised(*A, a, sizeof(T)))
            detail::fault_access(FaultKind::UninitializedRead, MemorySpace::Global, false, A->name, index, count, A->type,
                                 (line > 0 ? line : line_of_site(site)));
        std::memset(A->flags.data() + (a - A->base), kInitialised | kKernelWritten, sizeof(T));
        ++ts->atomics;
    } else if (a < kNullPage) {
        null_access(a, sizeof(T), true, line > 0 ? line : line_of_site(site));
    }
    return p;
}

template <class T, class F> T atomic_rmw(T* p, F f) {
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T desired = f(old);
    while (!__atomic_compare_exchange(p, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) desired = f(old);
    return old;
}

// What CUDA's atomic `op` stores over `old` (the bitwise and wrapping ones
// exist for integers only; CUDA has no others).
template <class T> T atomic_result(AtomicOp op, T old, T v, T compare) {
    switch (op) {
    case AtomicOp::Add: return old + v;
    case AtomicOp::Sub: return old - v;
    case AtomicOp::Exch: return v;
    case AtomicOp::Min: return v < old ? v : old;
    case AtomicOp::Max: return old < v ? v : old;
    case AtomicOp::Cas: return old == compare ? v : old;
    default: break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
        case AtomicOp::Inc: return old >= v ? 0 : old + 1;   // CUDA's atomicInc wraps at v
        case AtomicOp::Dec: return (old == 0 || old > v) ? v : old - 1;
        case AtomicOp::And: return old & v;
        case AtomicOp::Or: return old | v;
        case AtomicOp::Xor: return old ^ v;
        default: break;
        }
    }
    return old;
}

template <class T> T integer_atomic(T* p, AtomicOp op, T v, T compare) {
    return atomic_rmw(p, [&](T old) { return atomic_result(op, old, v, compare); });
}

template <class T> T float_atomic(T* p, AtomicOp op, T v) {
    return atomic_rmw(p, [&](T old) { return op == AtomicOp::Cas ? old : atomic_result(op, old, v, T(0)); });
}

}  // namespace

int atomic_i32(int* p, AtomicOp op, int v, int compare, int line) {
    return integer_atomic(atomic_target(p, uintptr_t(__builtin_return_address(0)), line), op, v, compare);
}
unsigned atomic_u32(unsigned* p, AtomicOp op, unsigned v, unsigned compare, int line) {
    return integer_atomic(atomic_target(p, uintptr_t(__builtin_return_address(0)), line), op, v, compare);
}
unsigned long long atomic_u64(unsigned long long* p, AtomicOp op, unsigned long long v, unsigned long long compare, int line) {
    return integer_atomic(atomic_target(p, uintptr_t(__builtin_return_address(0)), line), op, v, compare);
}
float atomic_f32(float* p, AtomicOp op, float v, int line) {
    return float_atomic(atomic_target(p, uintptr_t(__builtin_return_address(0)), line), op, v);
}
double atomic_f64(double* p, AtomicOp op, double v, int line) {
    return float_atomic(atomic_target(p, uintptr_t(__builtin_return_address(0)), line), op, v);
}

}  // namespace attnlab::emu::raw

namespace attnlab::emu::detail {
uint64_t site_code_address(unsigned site) {
    const raw::Sites& s = raw::sites();
    return site < raw::kMaxSites ? raw::code_address(s.pcs[site]) : site;
}
}  // namespace attnlab::emu::detail

namespace attnlab::emu::raw {

void resolve_lines(LaunchReport& report) {
    if (the_arena) {  // the static __shared__ variables this launch used, then the next launch's serial
        const uint32_t serial = launch_serial.fetch_add(1);
        int64_t bytes = 0;
        for (const auto& c : the_arena->claims)
            if (c->touched_in_launch.load(std::memory_order_relaxed) == serial) bytes += int64_t(c->bytes);
        report.counters.static_shared_bytes = bytes;
    }
    auto fix = [](int& line) {
        if (line < 0) line = line_of_site(static_cast<unsigned>(-line));
    };
    fix(report.fault.line);
    fix(report.fault.other_line);
    for (AccessEvent& e : report.trace) fix(e.line);
}

void set_learner_source(const char* path) {
    std::string file = path ? path : "";
    const size_t slash = file.find_last_of('/');
    sites().learner_file = slash == std::string::npos ? "/" + file : file.substr(slash);
}

int line_of_return_address(const void* pc) { return line_of_pc(reinterpret_cast<uintptr_t>(pc)); }

int learner_line_on_stack() {
    Sites& s = sites();
    if (!s.state) s.state = backtrace_create_state(nullptr, 0, on_error, nullptr);
    if (!s.state) return 0;
    LineSearch search{&s.learner_file};
    backtrace_full(s.state, 0, on_frame, on_error, &search);
    return search.learner;
}


bool in_kernel() { return current_thread != nullptr; }

void device_assert_failed(const char* assertion, unsigned line) {
    Fault f;
    f.kind = FaultKind::DeviceAssert;
    f.line = int(line);
    f.detail = assertion ? assertion : "";
    detail::raise_fault(std::move(f));  // from noexcept code (__assert_fail): the thread stops, nothing unwinds
}

void launch_bounds(long long max_threads, long long, long long, int line) {
    if (!current_thread) return;
    const int64_t threads = int64_t(blockDim.x) * blockDim.y * blockDim.z;
    if (max_threads <= 0 || threads <= max_threads) return;
    Fault f;
    f.kind = FaultKind::InvalidLaunch;
    f.detail = "launch_bounds_exceeded";
    f.size = threads;
    f.index = max_threads;
    f.other_line = line;  // the kernel's __launch_bounds__; the launch names its own line
    detail::raise_fault(std::move(f));
}

void library_fault(FaultKind kind, const char* function, const char* detail, int64_t value, const char* type, int line) {
    Fault f;
    f.kind = kind;
    f.buffer = function;
    f.detail = detail;
    f.index = value;
    f.size = 0;
    f.element_type = type;
    f.line = line;
    detail::raise_fault(std::move(f));
}

}  // namespace attnlab::emu::raw
