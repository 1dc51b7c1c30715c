// The Kernel view's data (kernel_views.hpp) on small hand-made launch
// reports: no emulator, every expected figure worked out by hand.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/views/kernel_views.hpp"

using namespace attnlab;
using emu::AccessEvent;
using emu::MemorySpace;

namespace {

AccessEvent event(uint64_t block, unsigned thread, MemorySpace space, bool write, const std::string& buffer, int64_t index,
                  int line, unsigned interval = 0) {
    AccessEvent e;
    e.block = block;
    e.thread = thread;
    e.space = space;
    e.is_write = write;
    e.buffer = buffer;
    e.index = index;
    // As the emulator records them: a float's 32-byte sector from the buffer
    // start (global), its bank (shared arrays here start at bank 0).
    e.sector = space == MemorySpace::Global ? static_cast<uint64_t>(index) * 4 / 32 : static_cast<uint64_t>(index) % 32;
    e.line = line;
    e.interval = interval;
    return e;
}

AccessEvent read(uint64_t block, unsigned thread, const std::string& buffer, int64_t index, int line, unsigned interval = 0) {
    return event(block, thread, MemorySpace::Global, false, buffer, index, line, interval);
}
AccessEvent write(uint64_t block, unsigned thread, const std::string& buffer, int64_t index, int line, unsigned interval = 0) {
    return event(block, thread, MemorySpace::Global, true, buffer, index, line, interval);
}

KernelBuffer buffer(const std::string& name, Shape shape, std::vector<std::string> axes, bool output) {
    KernelBuffer b;
    b.name = name;
    b.shape = std::move(shape);
    b.axes = std::move(axes);
    b.is_output = output;
    return b;
}

int64_t flat(const Shape& shape, const std::vector<int64_t>& c) {
    int64_t i = 0;
    for (size_t a = 0; a < shape.size(); ++a) i = i * shape[a] + c[a];
    return i;
}

}  // namespace

TEST_CASE("kernel views: unravel_index and block ids") {
    CHECK(unravel_index(17, {2, 3, 4}) == std::vector<int64_t>{1, 1, 1});
    CHECK(unravel_index(0, {2, 3, 4}) == std::vector<int64_t>{0, 0, 0});
    CHECK(unravel_index(23, {2, 3, 4}) == std::vector<int64_t>{1, 2, 3});
    CHECK(unravel_index(24, {2, 3, 4}) == std::vector<int64_t>{2, 0, 0});  // one past the end: still placed
    CHECK(unravel_index(-1, {2, 3}) == std::vector<int64_t>{-1, 2});       // one before the start
    CHECK(unravel_index(9, {}) == std::vector<int64_t>{9});                // unknown shape: flat

    const emu::Dim3 grid{3, 2, 2};
    CHECK(linear_block({2, 1, 1}, grid) == 2 + 3 * (1 + 2 * 1));
    for (uint64_t b = 0; b < grid.count(); ++b) CHECK(linear_block(block_index(b, grid), grid) == b);
    CHECK(block_index(7, grid) == emu::Dim3{1, 0, 1});
}

TEST_CASE("kernel views: the buffers of a CUDA exercise come from its output, returns.dims and the case's inputs") {
    Exercise ex;
    ex.runtime = Runtime::Cuda;
    ex.output = {"out", ValueKind::Tensor, "(B, H, T, hd)"};
    ex.returns.dims = {"batch", "head", "row", "col"};
    ex.params = {{"x", ValueKind::Tensor, "(B, T, D)"}, {"n_heads", ValueKind::Int, ""}, {"w", ValueKind::Tensor, "weights"}};
    Case k;
    k.args = {Value::of_tensor(TensorData::zeros({2, 5, 8})), Value::of_int(2), Value::of_tensor(TensorData::zeros({8, 8}))};
    ex.cases = {k};
    CaseOutcome c;
    c.index = 0;
    c.expected = Value::of_tensor(TensorData::zeros({2, 2, 5, 4}));

    const std::vector<KernelBuffer> b = kernel_buffers(ex, c);
    REQUIRE(b.size() == 3);  // out, x, w: the int is no buffer
    CHECK(b[0].name == "out");
    CHECK(b[0].is_output);
    CHECK(b[0].shape == Shape{2, 2, 5, 4});
    CHECK(b[0].axes == std::vector<std::string>{"batch", "head", "row", "col"});
    CHECK(b[1].name == "x");
    CHECK_FALSE(b[1].is_output);
    CHECK(b[1].shape == Shape{2, 5, 8});
    CHECK(b[1].axes == std::vector<std::string>{"B", "T", "D"});  // from its shape text
    CHECK(b[2].shape == Shape{8, 8});
    CHECK(b[2].axes.empty());  // "weights" does not name two axes
    CHECK(find_buffer(b, "x") == &b[1]);
    CHECK(find_buffer(b, "shared") == nullptr);

    // Without returns.dims the output's axes come from its shape text.
    ex.returns.dims.clear();
    CHECK(kernel_buffers(ex, c)[0].axes == std::vector<std::string>{"B", "H", "T", "hd"});
    // A forged case index: the output alone, never an out-of-range read.
    c.index = 7;
    CHECK(kernel_buffers(ex, c).size() == 1);
}

TEST_CASE("kernel views: a slice is the leading axes a block's elements agree on, then one range") {
    const KernelBuffer out4 = buffer("out", {2, 3, 4, 5}, {"batch", "head", "row", "col"}, true);
    auto indices = [](const Shape& s, std::vector<int64_t> lo, std::vector<int64_t> hi) {
        std::vector<int64_t> v;
        std::vector<int64_t> c = lo;
        for (;;) {
            v.push_back(flat(s, c));
            size_t a = c.size();
            while (a-- > 0) {
                if (++c[a] <= hi[a]) break;
                c[a] = lo[a];
            }
            if (a == static_cast<size_t>(-1)) return v;
        }
    };
    struct Row {
        const char* what;
        KernelBuffer buffer;
        std::vector<int64_t> lo, hi;
        const char* en;
        const char* id;
    };
    const KernelBuffer out2 = buffer("out", {8, 6}, {"row", "col"}, true);
    const KernelBuffer plain = buffer("out", {8, 6}, {}, true);
    const Row rows[] = {
        {"one (batch, head) slice", out4, {1, 0, 0, 0}, {1, 0, 3, 4}, "(batch 1, head 0)", "(batch 1, head 0)"},
        {"one row of a head", out4, {0, 2, 3, 0}, {0, 2, 3, 4}, "(batch 0, head 2, row 3)", "(batch 0, head 2, baris 3)"},
        {"two heads of a batch", out4, {0, 0, 0, 0}, {0, 1, 3, 4}, "(batch 0, heads 0–1)", "(batch 0, head 0–1)"},
        {"rows of a matrix", out2, {3, 0}, {5, 5}, "rows 3–5", "baris 3–5"},
        {"part of one row", out2, {2, 1}, {2, 3}, "(row 2, columns 1–3)", "(baris 2, kolom 1–3)"},
        {"one element", out2, {4, 5}, {4, 5}, "(row 4, column 5)", "(baris 4, kolom 5)"},
        {"axes without names", plain, {3, 0}, {5, 5}, "axis 0: 3–5", "sumbu 0: 3–5"},
        {"every batch", out4, {0, 0, 0, 0}, {1, 2, 3, 4}, "", ""},
    };
    for (const Row& r : rows) {
        CAPTURE(r.what);
        const std::vector<AxisSpan> s = slice_of(indices(r.buffer.shape, r.lo, r.hi), r.buffer);
        CHECK(describe_slice(s, Lang::En) == r.en);
        CHECK(describe_slice(s, Lang::Id) == r.id);
    }
    const std::vector<AxisSpan> s = slice_of(indices(out2.shape, {3, 0}, {5, 5}), out2);
    CHECK(slice_values(s) == "3–5");
    CHECK(slice_values(slice_of(indices(out4.shape, {0, 0, 0, 0}, {0, 1, 3, 4}), out4)) == "0,0–1");
    CHECK(slice_values(slice_of(indices(out4.shape, {1, 2, 0, 0}, {1, 2, 3, 4}), out4)) == "1,2");
    CHECK(slice_values({}).empty());
    REQUIRE(s.size() == 1);
    CHECK(s[0].axis == 0);
    CHECK(s[0].name == "row");
    CHECK(s[0].lo == 3);
    CHECK(s[0].hi == 5);
    CHECK(slice_of({}, out2).empty());
}

TEST_CASE("kernel views: block footprints of one block per (batch, head), with an idle block and a fault") {
    // out (2, 2, 3, 4): block b = batch·2 + head writes its whole (3, 4) slice
    // and reads x twice per element; a fifth block writes nothing.
    const Shape shape{2, 2, 3, 4};
    const std::vector<KernelBuffer> buffers = {buffer("out", shape, {"batch", "head", "row", "col"}, true),
                                               buffer("x", {2, 3, 8}, {"B", "T", "D"}, false)};
    emu::LaunchReport launch;
    launch.kernel = "attention_kernel";
    launch.grid = {5, 1, 1};
    launch.block = {12, 1, 1};
    for (uint64_t b = 0; b < 4; ++b)
        for (unsigned t = 0; t < 12; ++t) {
            launch.trace.push_back(read(b, t, "x", t, 10));
            launch.trace.push_back(read(b, t, "x", t + 1, 10));
            launch.trace.push_back(write(b, t, "out", static_cast<int64_t>(b) * 12 + t, 11));
        }
    launch.trace.push_back(event(4, 0, MemorySpace::Shared, true, "shared", 0, 12));
    launch.fault.kind = emu::FaultKind::OutOfBounds;
    launch.fault.block = {3, 0, 0};

    const std::vector<BlockFootprint> f = block_footprints(launch, buffers);
    REQUIRE(f.size() == 5);
    const char* labels[] = {"(batch 0, head 0)", "(batch 0, head 1)", "(batch 1, head 0)", "(batch 1, head 1)"};
    for (size_t b = 0; b < 4; ++b) {
        CAPTURE(b);
        CHECK(f[b].block == b);
        CHECK(f[b].index == emu::Dim3{static_cast<unsigned>(b), 0, 0});
        CHECK(f[b].global_reads == 24);
        CHECK(f[b].global_writes == 12);
        CHECK(f[b].output_writes == 12);
        CHECK(f[b].wrote_output());
        CHECK_FALSE(f[b].wrote_whole_output);
        CHECK(describe_slice(f[b].written, Lang::En) == labels[b]);
        CHECK(f[b].first_written == static_cast<int64_t>(b) * 12);
        CHECK(f[b].last_written == static_cast<int64_t>(b) * 12 + 11);
        CHECK(f[b].faulted == (b == 3));
    }
    CHECK_FALSE(f[4].wrote_output());
    CHECK(f[4].written.empty());
    CHECK(f[4].shared_writes == 1);
    CHECK(f[4].traced());

    // A launch error names no block.
    launch.fault.kind = emu::FaultKind::InvalidLaunch;
    for (const BlockFootprint& b : block_footprints(launch, buffers)) CHECK_FALSE(b.faulted);
    // A grid beyond the cap gives nothing rather than millions of cells.
    CHECK(block_footprints(launch, buffers, 4).empty());
    // Events of blocks outside the grid are ignored.
    launch.trace.push_back(write(99, 0, "out", 0, 11));
    CHECK(block_footprints(launch, buffers).size() == 5);
}

TEST_CASE("kernel views: a sampled launch's blocks outside the sample are unchecked, never idle or unknown") {
    // Five blocks of one head each; the first and last ran checked (their
    // writes are in the log), the middle three ran the unchecked copy.
    const std::vector<KernelBuffer> buffers = {buffer("out", {5, 4}, {"head", "col"}, true)};
    emu::LaunchReport launch;
    launch.grid = {5, 1, 1};
    launch.block = {4, 1, 1};
    launch.counters.unchecked_blocks = 3;
    for (uint64_t b : {0u, 4u})
        for (unsigned t = 0; t < 4; ++t) launch.trace.push_back(write(b, t, "out", static_cast<int64_t>(b) * 4 + t, 7));
    std::vector<BlockFootprint> f = block_footprints(launch, buffers);
    REQUIRE(f.size() == 5);
    for (size_t b = 0; b < 5; ++b) {
        CAPTURE(b);
        const bool in_sample = b == 0 || b == 4;
        CHECK(f[b].unchecked == !in_sample);
        CHECK(f[b].recorded == in_sample);
        CHECK_FALSE(f[b].unknown());
        CHECK(f[b].wrote_output() == in_sample);
    }
    // A launch that checked every block has none.
    launch.counters.unchecked_blocks = 0;
    for (const BlockFootprint& b : block_footprints(launch, buffers)) CHECK_FALSE(b.unchecked);
}

TEST_CASE("kernel views: one block writing the whole output, and flat blocks spanning heads") {
    const Shape shape{2, 2, 4, 8};  // 128 elements
    const std::vector<KernelBuffer> buffers = {buffer("out", shape, {"batch", "head", "row", "col"}, true)};
    emu::LaunchReport launch;
    launch.grid = {3, 1, 1};
    launch.block = {48, 1, 1};
    // Block 0 writes everything (twice over for half of it: distinct elements count).
    for (int64_t i = 0; i < 128; ++i) launch.trace.push_back(write(0, static_cast<unsigned>(i % 48), "out", i, 5));
    for (int64_t i = 0; i < 64; ++i) launch.trace.push_back(write(0, static_cast<unsigned>(i % 48), "out", i, 6));
    // Block 1: elements 0..47 (head 0 of batch 0 and part of head 1); block 2: 96..127 (batch 1, head 1).
    for (int64_t i = 0; i < 48; ++i) launch.trace.push_back(write(1, static_cast<unsigned>(i), "out", i, 5));
    for (int64_t i = 96; i < 128; ++i) launch.trace.push_back(write(2, static_cast<unsigned>(i - 96), "out", i, 5));
    const std::vector<BlockFootprint> f = block_footprints(launch, buffers);
    REQUIRE(f.size() == 3);
    CHECK(f[0].wrote_whole_output);
    CHECK(f[0].written.empty());
    CHECK(f[0].output_writes == 192);
    CHECK_FALSE(f[1].wrote_whole_output);
    CHECK(describe_slice(f[1].written, Lang::En) == "(batch 0, heads 0–1)");
    CHECK(describe_slice(f[2].written, Lang::En) == "(batch 1, head 1)");
}

TEST_CASE("kernel views: one thread's reads and writes per buffer, as coordinates, in order") {
    const std::vector<KernelBuffer> buffers = {buffer("out", {2, 2, 3, 4}, {"batch", "head", "row", "col"}, true),
                                               buffer("x", {2, 3, 8}, {"B", "T", "D"}, false),
                                               buffer("w", {8, 8}, {}, false)};
    emu::LaunchReport launch;
    launch.grid = {2, 1, 1};
    launch.block = {4, 1, 1};
    launch.trace = {
        read(1, 2, "x", 13, 20),                                   // x[0, 1, 5]
        event(1, 2, MemorySpace::Shared, true, "shared", 2, 21),   // the tile
        read(1, 3, "x", 14, 20),                                   // another thread
        read(0, 2, "x", 15, 20),                                   // another block
        event(1, 2, MemorySpace::Shared, false, "shared", 3, 23, 1),
        read(1, 2, "x", 6, 24, 1),                                 // x[0, 0, 6]
        write(1, 2, "out", 19, 25, 1),                             // out[0, 1, 1, 3]
    };
    const std::vector<BufferTouches> t = thread_accesses(launch, buffers, 1, 2);
    REQUIRE(t.size() == 3);  // out, x, then shared; w untouched
    CHECK(t[0].buffer == "out");
    REQUIRE(t[0].writes.size() == 1);
    CHECK(t[0].reads.empty());
    CHECK(t[0].writes[0].coords == std::vector<int64_t>{0, 1, 1, 3});
    CHECK(t[0].writes[0].line == 25);
    CHECK(t[0].writes[0].interval == 1);
    CHECK(t[0].writes[0].order == 4);
    CHECK(t[1].buffer == "x");
    REQUIRE(t[1].reads.size() == 2);
    CHECK(t[1].reads[0].index == 13);
    CHECK(t[1].reads[0].coords == std::vector<int64_t>{0, 1, 5});
    CHECK(t[1].reads[0].order == 0);
    CHECK(t[1].reads[1].coords == std::vector<int64_t>{0, 0, 6});
    CHECK(t[1].reads[1].order == 3);
    CHECK(t[1].axes == std::vector<std::string>{"B", "T", "D"});
    CHECK(t[2].buffer == "shared");
    CHECK(t[2].space == MemorySpace::Shared);
    CHECK(t[2].shape.empty());
    REQUIRE(t[2].writes.size() == 1);
    REQUIRE(t[2].reads.size() == 1);
    CHECK(t[2].writes[0].coords == std::vector<int64_t>{2});
    CHECK(t[2].reads[0].index == 3);
    CHECK(thread_accesses(launch, buffers, 1, 0).empty());  // a thread with no accesses

    // The whole block: threads 2 and 3, in trace order.
    const std::vector<BufferTouches> all = block_accesses(launch, buffers, 1);
    REQUIRE(all.size() == 3);
    REQUIRE(all[1].buffer == "x");
    REQUIRE(all[1].reads.size() == 3);
    CHECK(all[1].reads[0].thread == 2);
    CHECK(all[1].reads[1].thread == 3);
    CHECK(all[1].reads[1].index == 14);
    CHECK(all[1].reads[2].thread == 2);

    const std::vector<ThreadActivity> act = thread_activity(launch, 1);
    REQUIRE(act.size() == 4);  // one per thread of the block
    CHECK_FALSE(act[0].active());
    CHECK_FALSE(act[1].active());
    CHECK(act[2].reads == 3);  // x twice and the shared load
    CHECK(act[2].writes == 2);
    CHECK(act[3].reads == 1);
    CHECK(act[3].writes == 0);
}

TEST_CASE("kernel views: warp requests pair lanes by line, with sectors, banks and conflicts") {
    emu::LaunchReport launch;
    launch.grid = {1, 1, 1};
    launch.block = {48, 1, 1};  // warp 0: 32 lanes, warp 1: 16
    auto& tr = launch.trace;
    for (unsigned t = 0; t < 48; ++t) {
        const unsigned lane = t % 32, warp = t / 32;
        // Line 10, twice per lane: consecutive floats (warp 0), then a stride of 8 floats (32 bytes).
        tr.push_back(read(0, t, "x", warp == 0 ? lane : lane * 8, 10));
        tr.push_back(read(0, t, "x", warp == 0 ? 32 + lane : 1000 + lane * 8, 10));
        // Line 11: shared stores with a stride of 2 floats (2-way conflict), line 12: a broadcast read.
        tr.push_back(event(0, t, MemorySpace::Shared, true, "shared", 2 * lane, 11));
        tr.push_back(event(0, t, MemorySpace::Shared, false, "shared", 5, 12, 1));
    }
    // Only the even lanes of warp 0 store at line 13 (a divergent branch).
    for (unsigned t = 0; t < 32; t += 2) tr.push_back(write(0, t, "out", t, 13, 1));

    const std::vector<WarpRequest> r = warp_requests(launch, 0);
    // Warp 0: 2 loads + 1 shared store (interval 0), 1 shared load + 1 store (interval 1); warp 1: 4.
    REQUIRE(r.size() == 9);
    const WarpRequest& first = r[0];
    CHECK(first.warp == 0);
    CHECK(first.space == MemorySpace::Global);
    CHECK_FALSE(first.is_write);
    CHECK(first.line == 10);
    CHECK(first.nth == 0);
    CHECK(first.buffer() == "x");
    REQUIRE(first.lanes.size() == 32);
    CHECK_FALSE(first.partial());
    for (unsigned l = 0; l < 32; ++l) {
        CHECK(first.lanes[l].lane == l);
        CHECK(first.lanes[l].index == l);
        CHECK(first.lanes[l].byte_address == 4 * l);
    }
    CHECK(first.sectors.size() == 4);  // 128 contiguous bytes: 4 sectors
    CHECK(first.sectors.front() == std::pair<std::string, uint64_t>{"x", 0});
    CHECK(first.sectors.back() == std::pair<std::string, uint64_t>{"x", 3});
    CHECK(r[1].line == 10);
    CHECK(r[1].nth == 1);  // the second access of each lane at line 10
    CHECK(r[1].lanes[0].index == 32);
    CHECK(r[1].sectors.size() == 4);

    const WarpRequest& store = r[2];
    CHECK(store.space == MemorySpace::Shared);
    CHECK(store.is_write);
    CHECK(store.wavefronts == 2);  // lanes l and l + 16 share a bank
    CHECK(store.bank_conflicts == 1);
    CHECK(store.sectors.empty());

    const WarpRequest& broadcast = r[3];
    CHECK(broadcast.interval == 1);
    CHECK(broadcast.wavefronts == 1);  // one word for every lane
    CHECK(broadcast.bank_conflicts == 0);

    const WarpRequest& divergent = r[4];
    CHECK(divergent.line == 13);
    CHECK(divergent.lanes.size() == 16);
    CHECK(divergent.partial());
    CHECK(divergent.lanes[1].lane == 2);
    CHECK(divergent.sectors.size() == 4);  // the even floats of 0..31 still fall in 4 sectors

    // Warp 1 has 16 threads: full at 16 lanes; every lane its own sector.
    const WarpRequest& strided = r[5];
    CHECK(strided.warp == 1);
    CHECK(strided.warp_lanes == 16);
    CHECK_FALSE(strided.partial());
    CHECK(strided.lanes.size() == 16);
    CHECK(strided.lanes[15].byte_address == 15 * 8 * 4);
    CHECK(strided.sectors.size() == 16);
    CHECK(r[6].sectors.size() == 16);

    CHECK(warp_requests(launch, 1).empty());  // no such block in the trace
}
