// The access trace of the traced block (the Kernel view's per-block record).
#include "block_state.hpp"

namespace attnlab::emu::detail {

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

}  // namespace attnlab::emu::detail
