// The runtime's side of plain CUDA's device memory (raw_runtime.hpp):
// allocations made and released (cudaMalloc, cudaFree, DeviceTensor), the
// host's transfers and what they leave initialised, leaks, and the claims of
// __shared__ variables and dynamic shared memory.
#include "attnlab/emu/raw_runtime.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "raw_heap.hpp"

namespace attnlab::emu::raw {

namespace {
int window_depth = 0;  // nested open_device_memory() calls (one OS thread runs a learner program's host code)

void protect(const Allocation& A, bool open) {
    ::mprotect(reinterpret_cast<void*>(A.base), std::max(kPage, (A.end - A.base + kPage - 1) / kPage * kPage),
               open ? PROT_READ | PROT_WRITE : PROT_NONE);
}
}  // namespace

void* allocate(size_t bytes, const std::string& name, int line, bool learner_owned, size_t elem_size, const char* type) {
    const size_t body = std::max(kPage, (bytes + kPage - 1) / kPage * kPage);
    const size_t total = body + 2 * kGuard;
    void* m = ::mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return nullptr;
    unsigned char* base = static_cast<unsigned char*>(m) + kGuard;
    if (::mprotect(base, body, PROT_READ | PROT_WRITE) != 0) {
        ::munmap(m, total);
        return nullptr;
    }
    std::memset(base, 0xff, body);  // NaN for floats: garbage that shows
    auto A = std::make_unique<Allocation>();
    A->base = reinterpret_cast<uintptr_t>(base);
    A->end = A->base + bytes;
    A->mapping = m;
    A->mapping_bytes = total;
    A->name = name;
    A->line = line;
    A->learner_owned = learner_owned;
    A->elem_size = elem_size ? elem_size : 1;
    A->type = type;
    try {
        A->flags.assign(bytes, 0);
    } catch (...) {
        ::munmap(m, total);
        return nullptr;
    }
    Heap& h = heap();
    if (h.host_refused && window_depth == 0) protect(*A, false);  // the host's window is closed
    h.low = std::min(h.low, A->base - kGuard);
    h.high = std::max(h.high, A->end + kGuard);
    auto at = std::upper_bound(h.live.begin(), h.live.end(), A->base,
                               [](uintptr_t x, const std::unique_ptr<Allocation>& p) { return x < p->base; });
    h.live.insert(at, std::move(A));
    ++h.generation;
    return base;
}

bool release(void* p) {
    Heap& h = heap();
    Allocation* A = allocation_at(p);
    if (!A) return false;
    ::mprotect(A->mapping, A->mapping_bytes, PROT_NONE);
    if (h.last == A) h.last = nullptr;
    ++h.generation;
    auto it = std::find_if(h.live.begin(), h.live.end(), [&](const std::unique_ptr<Allocation>& x) { return x.get() == A; });
    A->flags.clear();
    A->flags.shrink_to_fit();
    A->shadow.clear();
    A->shadow.shrink_to_fit();
    h.freed_bytes += A->mapping_bytes;
    h.freed.push_back(std::move(*it));
    h.live.erase(it);
    while (h.freed_bytes > kFreedKeptBytes && !h.freed.empty()) {
        h.freed_bytes -= h.freed.front()->mapping_bytes;
        ::munmap(h.freed.front()->mapping, h.freed.front()->mapping_bytes);
        h.freed.erase(h.freed.begin());
    }
    h.freed_by_base.clear();
    for (const auto& F : h.freed) h.freed_by_base.emplace_back(F->base, F.get());
    std::sort(h.freed_by_base.begin(), h.freed_by_base.end());
    return true;
}

bool is_device_pointer(const void* p) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const Allocation* A = find_allocation(a);
    return A && a >= A->base && a < std::max(A->end, A->base + 1);
}

size_t allocation_bytes(const void* base) {
    const Allocation* A = allocation_at(base);
    return A ? A->end - A->base : 0;
}

void host_wrote(void* dst, size_t bytes) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
    Allocation* A = find_allocation(a);
    if (!A || a < A->base || a + bytes > A->end) return;
    uint8_t* f = A->flags.data() + (a - A->base);
    for (size_t i = 0; i < bytes; ++i) f[i] = uint8_t((f[i] & ~kKernelWritten) | kInitialised);
}

void copy_flags(void* dst, const void* src, size_t bytes) {
    const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
    Allocation* D = find_allocation(d);
    Allocation* S = find_allocation(s);
    if (!D || d < D->base || d + bytes > D->end) return;
    if (!S || s < S->base || s + bytes > S->end) return host_wrote(dst, bytes);
    std::memmove(D->flags.data() + (d - D->base), S->flags.data() + (s - S->base), bytes);
}

int64_t not_kernel_written(const void* p, size_t count, size_t elem_size, int64_t& first, int64_t* host_set) {
    first = -1;
    if (host_set) *host_set = 0;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    const Allocation* A = find_allocation(a);
    if (!A || a < A->base || a + count * elem_size > A->end) {
        if (count) first = 0;
        return int64_t(count);
    }
    const uint8_t* f = A->flags.data() + (a - A->base);
    int64_t missing = 0;
    for (size_t i = 0; i < count; ++i) {
        bool all = true;
        bool host = true;
        for (size_t b = 0; b < elem_size; ++b) {
            all = all && (f[i * elem_size + b] & kKernelWritten) != 0;
            host = host && (f[i * elem_size + b] & kInitialised) != 0;
        }
        if (all) continue;
        if (host_set && host) ++*host_set;
        if (missing++ == 0) first = int64_t(i);
    }
    return missing;
}

UncheckedWrites::UncheckedWrites() {
    for (const auto& A : heap().live) {
        const auto* data = reinterpret_cast<const uint8_t*>(A->base);
        before_.push_back({A.get(), std::vector<uint8_t>(data, data + (A->end - A->base))});
    }
}

void UncheckedWrites::mark_changed_bytes() const {
    for (const Before& b : before_) {
        const auto* now = reinterpret_cast<const uint8_t*>(b.allocation->base);
        uint8_t* flags = b.allocation->flags.data();
        const size_t n = b.bytes.size(), elem = b.allocation->elem_size;
        // Whole elements: one changed byte marks its element, whose other
        // bytes (a float's 0xff byte, say) may hold what they held before.
        const size_t chunk = std::max<size_t>(64 / elem, 1) * elem;
        for (size_t at = 0; at < n; at += chunk) {
            const size_t len = std::min(chunk, n - at);
            if (std::memcmp(now + at, b.bytes.data() + at, len) == 0) continue;  // most chunks are unchanged
            for (size_t e = at; e < at + len; e += elem) {
                const size_t end = std::min(e + elem, n);
                if (std::memcmp(now + e, b.bytes.data() + e, end - e) == 0) continue;
                for (size_t i = e; i < end; ++i) flags[i] = uint8_t(flags[i] | kInitialised | kKernelWritten);
            }
        }
    }
}

std::vector<Leak> release_learner_allocations() {
    std::vector<Leak> leaks;
    std::vector<void*> bases;
    for (const auto& A : heap().live)
        if (A->learner_owned) {
            leaks.push_back({A->name, A->end - A->base, A->line});
            bases.push_back(reinterpret_cast<void*>(A->base));
        }
    for (void* b : bases) release(b);
    return leaks;
}

void* claim_shared(const char* name, size_t bytes, size_t align, size_t elem_size, const char* type) {
    Arena& s = arena();
    align = std::max<size_t>(align, 16);
    const size_t offset = (s.static_used + align - 1) / align * align;
    if (offset + std::max<size_t>(bytes, 1) > kStaticSharedBytes) throw std::bad_alloc();
    s.static_used = offset + std::max<size_t>(bytes, 1);
    auto c = std::make_unique<SharedClaim>();
    c->name = name ? name : "shared array";
    c->bytes = bytes;
    c->region.data = s.base + offset;
    c->region.elem_size = elem_size ? elem_size : 1;
    c->region.count = int64_t(bytes / c->region.elem_size);
    c->shadow.resize(size_t(std::max<int64_t>(1, c->region.count)));
    c->region.shadow = c->shadow.data();
    c->region.type = type;
    c->region.name = c->name.c_str();
    void* p = c->region.data;
    s.claims.push_back(std::move(c));  // offsets only grow: still sorted
    return p;
}

void* dynamic_shared(size_t elem_size) {
    Arena& s = arena();
    size_t g = s.dynamic_granule;
    while (g > 1 && g > elem_size) g /= 2;  // a `__half smem[]` view: finer shadow
    if (g != s.dynamic_granule || s.dynamic_shadow.empty()) {
        s.dynamic_granule = g;
        s.dynamic_shadow.assign(kDynamicSharedBytes / g, detail::Shadow{});
        s.dynamic_region.shadow = s.dynamic_shadow.data();
        s.dynamic_region.elem_size = g;
        s.dynamic_region.type = g == 4 ? "float" : "";  // "": a type the words leave unnamed
    }
    return s.dynamic;
}

void refuse_host_access(bool refuse) { heap().host_refused = refuse; }

void open_device_memory() {
    Heap& h = heap();
    if (!h.host_refused || window_depth++ > 0) return;
    for (const auto& A : h.live) protect(*A, true);
}

void close_device_memory() {
    Heap& h = heap();
    if (!h.host_refused || window_depth == 0 || --window_depth > 0) return;
    for (const auto& A : h.live) protect(*A, false);
}

std::string device_memory_fault(const void* address) {
    if (!the_heap || !the_heap->host_refused || window_depth > 0) return "";
    const Allocation* A = find_allocation(reinterpret_cast<uintptr_t>(address));
    return A ? A->name : "";
}

}  // namespace attnlab::emu::raw
