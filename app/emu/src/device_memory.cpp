// What device code's checked memory accesses call out of line: the block's
// dynamic shared memory, the checks before an atomic, and the access trace.
#include <algorithm>

#include "block_state.hpp"

namespace attnlab::emu::detail {

SharedRegion* dynamic_shared_region(size_t elem_size, const char* type) {
    Worker& w = worker;
    const uint64_t bytes = w.launch ? w.launch->smem : 0;
    if (w.arena_bytes < bytes) {
        if (w.arena) ::operator delete(w.arena, std::align_val_t(128));
        w.arena = static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(128)));
        w.arena_bytes = bytes;
        for (DynamicView& v : w.views) v.region.data = w.arena;
    }
    for (DynamicView& v : w.views)
        if (v.elem_size == elem_size && v.type == type) {
            v.region.count = int64_t(bytes / elem_size);
            if (v.shadow.size() < size_t(v.region.count)) v.shadow.resize(v.region.count);
            v.region.shadow = v.shadow.data();
            v.region.data = w.arena;
            return &v.region;
        }
    w.views.emplace_back();
    DynamicView& v = w.views.back();
    v.elem_size = elem_size;
    v.type = type;
    v.region.count = int64_t(bytes / elem_size);
    v.shadow.resize(std::max<int64_t>(1, v.region.count));
    v.region.data = w.arena;
    v.region.shadow = v.shadow.data();
    v.region.elem_size = elem_size;
    v.region.type = type;
    v.region.name = "dynamic shared memory";
    return &v.region;
}

void trace_access(ThreadState& ts, MemorySpace space, bool write, const char* buffer, int64_t index,
                  uint64_t sector, int line) {
    if (ts.trace->size() > worker.launch->options.trace_limit) return;
    const int kind = (space == MemorySpace::Shared ? 2 : 0) + (write ? 1 : 0);
    AccessEvent e;
    e.block = worker.block_linear;
    e.thread = ts.linear;
    e.space = space;
    e.is_write = write;
    e.buffer = buffer;
    e.index = index;
    e.sector = sector;
    e.interval = ts.interval_index;
    e.k = ts.trace_k[kind]++;
    e.line = line;
    ts.trace->push_back(std::move(e));
}

void global_atomic_begin(BufferStorage* s, int64_t e, const char* type, int line) {
    ThreadState* ts = current_thread;
    if (!s) null_access(true, line);
    if (!ts) { host_bounds_check(*s, e); return; }
    if (e < 0 || static_cast<uint64_t>(e) >= s->count)
        fault_access(FaultKind::OutOfBounds, MemorySpace::Global, true, s->name, e, int64_t(s->count), type, line);
    if (ts->checks && !s->written[e].load(std::memory_order_relaxed))
        fault_access(FaultKind::UninitializedRead, MemorySpace::Global, false, s->name, e, int64_t(s->count), type, line);
    count_step(*ts, line);
    ++ts->atomics;
}

void shared_atomic_begin(SharedRegion* r, int64_t e, int line) {
    ThreadState* ts = current_thread;
    if (e < 0 || e >= r->count) {
        if (!ts) throw std::out_of_range("shared memory index out of range");
        fault_access(FaultKind::OutOfBounds, MemorySpace::Shared, true, r->name, e, r->count, r->type, line);
    }
    if (!ts) return;
    if (ts->checks && r->shadow[e].written_in_block != clock.block_serial)
        fault_access(FaultKind::UninitializedRead, MemorySpace::Shared, false, r->name, e, r->count, r->type, line);
    count_step(*ts, line);
}

}  // namespace attnlab::emu::detail
