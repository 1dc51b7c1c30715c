// The performance report of a CUDA check (performance.hpp): the roofline model
// on hand-computed cases, the traffic and FLOP figures of launches, the GPU
// table, and the words in both languages.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/reference/registry.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;

namespace {

// Round figures so every expected number below is computed by hand.
const GpuModel kToy{"Toy", "sm_90", 100, 1e12 /*1 TB/s*/, 1e13 /*10 TFLOP/s*/, 1e14 /*100 TFLOP/s tensor*/, 1e6 /*1 MB L2*/};

emu::LaunchReport launch(const char* kernel, unsigned blocks, unsigned threads, int64_t load_sectors, int64_t store_sectors) {
    emu::LaunchReport r;
    r.kernel = kernel;
    r.grid = {blocks, 1, 1};
    r.block = {threads, 1, 1};
    r.counters.global_load_sectors = load_sectors;
    r.counters.global_store_sectors = store_sectors;
    return r;
}

Value tensor(Shape shape) {
    TensorData t;
    t.shape = shape;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    t.data.assign(static_cast<size_t>(n), 0.5f);
    return Value::of_tensor(std::move(t));
}

}  // namespace

TEST_CASE("the wave model: full and partial waves, idle SMs, tensor cores") {
    struct Row {
        const char* what;
        LaunchWork work;
        int64_t blocks;
        int blocks_per_sm;
        double seconds, waves, fill;
        PerfBound bound;
    };
    const Row rows[] = {
        // 1 GB at 1 TB/s = 1 ms; 1 GFLOP at 10 TFLOP/s = 0.1 ms; 1,000 blocks are one full wave of 100 SMs x 10.
        {"memory-bound", {1e9, 1e9, 0}, 1000, 10, 1e-3, 1.0, 1.0, PerfBound::Memory},
        // 1 MB = 1 us; 100 GFLOP = 10 ms, in 5 full waves.
        {"compute-bound", {1e6, 1e11, 0}, 5000, 10, 1e-2, 5.0, 1.0, PerfBound::Compute},
        // 3 blocks on every SM where 10 fit: one partial wave, every SM busy, the whole bandwidth.
        {"3 blocks per SM of 10: no penalty", {1e9, 0, 0}, 300, 10, 1e-3, 0.3, 1.0, PerfBound::Memory},
        // 15 blocks on 100 SMs: each busy SM has its 1/100 of the bandwidth for 1/15 of the bytes.
        {"too few blocks", {1e9, 0, 0}, 15, 2, 1e9 / 15 * 100 / 1e12, 0.075, 0.15, PerfBound::TooFewBlocks},
        // 201 blocks, 200 slots: a full wave of 2 blocks per SM, then a tail of 1 block: 3 blocks' time.
        {"a full wave and a tail", {1e9, 0, 0}, 201, 2, 3 * (1e9 / 201) * 100 / 1e12, 201.0 / 200, 1.0, PerfBound::Memory},
        // A block that does not fit counts as one resident block.
        {"no occupancy known", {1e9, 0, 0}, 50, 0, 2e-3, 0.5, 0.5, PerfBound::TooFewBlocks},
        // 1 TFLOP on tensor cores at 100 TFLOP/s = 10 ms, not at the FP32 peak (100 ms).
        {"tensor cores", {1e6, 0, 1e12}, 1000, 10, 1e-2, 1.0, 1.0, PerfBound::Compute},
    };
    for (const Row& r : rows) {
        INFO(r.what);
        const TimeEstimate e = wave_time(kToy, r.work, r.blocks, r.blocks_per_sm);
        CHECK(e.gpu == "Toy");
        CHECK(e.seconds == doctest::Approx(r.seconds).epsilon(1e-9));
        CHECK(e.waves == doctest::Approx(r.waves));
        CHECK(e.fill == doctest::Approx(r.fill));
        CHECK(e.bound == r.bound);
        CHECK(e.tensor_cores == (r.work.tensor_flops > 0));
        CHECK(e.dram_bytes == r.work.bytes);
    }
    CHECK(std::string(perf_bound_code(PerfBound::TooFewBlocks)) == "too_few_blocks");
    // The FP32 form the GPU benchmark uses is the same model.
    CHECK(roofline_time(kToy, 1e9, 1e9, 1000, 10).seconds == doctest::Approx(1e-3));
}

TEST_CASE("achieved occupancy: resident warps over the run against the SMs' warp slots") {
    // 300 blocks of 8 warps, 10 fit per SM of 64 warp slots: 3 blocks (24 warps) on each SM the whole time.
    CHECK(wave_time(kToy, {1e9, 0, 0}, 300, 10, {8, 64}).achieved_occupancy == doctest::Approx(24.0 / 64));
    // 1,000 blocks: a full wave, 10 x 8 = 80 warps would not fit 64 slots; 8 blocks of 8 do.
    CHECK(wave_time(kToy, {1e9, 0, 0}, 800, 8, {8, 64}).achieved_occupancy == doctest::Approx(1.0));
    // 15 blocks of one warp: 15 of 100 SMs hold 1 of 64 warps.
    CHECK(wave_time(kToy, {1e9, 0, 0}, 15, 2, {1, 64}).achieved_occupancy == doctest::Approx(15.0 / (100 * 64)));
    CHECK(wave_time(kToy, {1e9, 0, 0}, 15, 2).achieved_occupancy == 0);  // warps not known
}

TEST_CASE("the cache model: L1 per block, L2 for the launch, sector by sector") {
    struct Row {
        const char* what;
        SectorTraffic traffic;
        double l1_bytes, l2_bytes;
        double l1_hits, l2_hits, dram_loads, dram_stores;
    };
    const Row rows[] = {
        {"every sector once", {100, 50, 100, 100, 50, 4}, 64e3, 1e6, 0, 0, 100, 50},
        // 8 blocks each load 1,000 sectors, 250 distinct (8 KB): the re-reads fit 64 KB of L1.
        {"re-reads that fit L1", {8000, 0, 2000, 2000, 0, 8}, 64e3, 1e6, 6000, 0, 2000, 0},
        // The same with 4 KB of L1 per block: half the footprint fits, half the re-reads hit.
        {"re-reads that overflow L1", {8000, 0, 2000, 2000, 0, 8}, 4e3, 1e6, 3000, 3000, 2000, 0},
        // 8 blocks read the same 250 sectors (one key tile each): L1 is per block, L2 serves the others.
        {"a tile shared by blocks", {2000, 0, 2000, 250, 0, 8}, 64e3, 1e6, 0, 1750, 250, 0},
        // The same with L2 holding half the launch's footprint (8 KB): half the second reads hit.
        {"a footprint that overflows L2", {2000, 0, 2000, 250, 0, 8}, 64e3, 4e3, 0, 875, 1125, 0},
        // Stores written twice are written back once while they fit.
        {"stores written twice", {0, 200, 0, 0, 100, 2}, 64e3, 1e6, 0, 0, 0, 100},
        // A report without the footprint counters: every requested sector comes from DRAM.
        {"counters not carried", {100, 10, 0, 0, 0, 1}, 64e3, 1e6, 0, 0, 100, 10},
    };
    for (const Row& r : rows) {
        INFO(r.what);
        const CacheEstimate c = cache_estimate(r.traffic, r.l1_bytes, r.l2_bytes);
        CHECK(c.load_sectors == doctest::Approx(double(r.traffic.load_sectors)));
        CHECK(c.l1_hits == doctest::Approx(r.l1_hits));
        CHECK(c.l2_load_sectors == doctest::Approx(double(r.traffic.load_sectors) - r.l1_hits));
        CHECK(c.l2_hits == doctest::Approx(r.l2_hits));
        CHECK(c.dram_load_sectors == doctest::Approx(r.dram_loads));
        CHECK(c.dram_store_sectors == doctest::Approx(r.dram_stores));
        CHECK(c.dram_bytes() == doctest::Approx(32 * (r.dram_loads + r.dram_stores)));
    }
    const CacheEstimate tile = cache_estimate({2000, 0, 2000, 250, 0, 8}, 64e3, 1e6);
    CHECK(tile.l1_hit_rate() == 0);
    CHECK(tile.l2_hit_rate() == doctest::Approx(0.875));
}

TEST_CASE("L1 per block: the SM's unified L1 and shared memory less the resident blocks' shared memory") {
    const GpuModel& h100 = gpu_models()[2];
    // 256 KB per SM; 8 blocks of 256 threads, each with the driver's 1 KB.
    CHECK(l1_bytes_per_block(h100, {1, 256, 0, 0}) == doctest::Approx((262144.0 - 8 * 1024) / 8));
    // 48 KB each: 4 blocks of 50,176 allocated bytes fit 228 KB; L1 keeps the rest.
    CHECK(resident_blocks(h100, {1, 256, 48 * 1024, 0}) == 4);
    CHECK(l1_bytes_per_block(h100, {1, 256, 48 * 1024, 0}) == doctest::Approx((262144.0 - 4 * 50176) / 4));
    // RTX 4090 (128 KB), 1,024-thread blocks: one block keeps 127 KB.
    CHECK(l1_bytes_per_block(gpu_models()[0], {1, 1024, 0, 0}) == doctest::Approx(131072.0 - 1024));
}

TEST_CASE("resident blocks come from the occupancy rules of the GPU's architecture") {
    // sm_90: 2,048 threads per SM, so 8 blocks of 256 threads; 32 blocks of 32 threads (the block limit).
    CHECK(resident_blocks(kToy, {1, 256, 0, 0}) == 8);
    CHECK(resident_blocks(kToy, {1, 32, 0, 0}) == 32);
    // 100 KB of shared memory per block: 228 KB per SM holds 2 (each with 1 KB reserved).
    CHECK(resident_blocks(kToy, {1, 256, 100 * 1024, 0}) == 2);
    // 128 registers per thread, 256 threads: 64 K registers hold 2 blocks.
    CHECK(resident_blocks(kToy, {1, 256, 0, 128}) == 2);
    // RTX 4090 (sm_89): 1,536 threads per SM, so 6 blocks of 256 threads.
    CHECK(resident_blocks(gpu_models()[0], {1, 256, 0, 0}) == 6);
}

TEST_CASE("the GPU table: the four GPUs with their published figures, and device names") {
    const auto& g = gpu_models();
    REQUIRE(g.size() == 4);
    CHECK(g[0].name == "RTX 4090");
    CHECK(g[0].arch == "sm_89");
    CHECK(g[0].sms == 128);
    CHECK(g[0].bandwidth == 1008e9);
    CHECK(g[1].name == "A100 80GB SXM");
    CHECK(g[1].sms == 108);
    CHECK(g[1].fp32_flops == 19.5e12);
    CHECK(g[2].name == "H100 SXM");
    CHECK(g[3].name == "H200");
    CHECK(g[3].bandwidth == 4800e9);
    for (const GpuModel& m : g) CHECK(arch_limits(m.arch).has_value());
    REQUIRE(gpu_model_for_device("NVIDIA H200") != nullptr);
    CHECK(gpu_model_for_device("NVIDIA H200")->name == "H200");
    CHECK(gpu_model_for_device("NVIDIA GeForce RTX 4090")->name == "RTX 4090");
    CHECK(gpu_model_for_device("NVIDIA A100-SXM4-80GB")->name == "A100 80GB SXM");
    CHECK(gpu_model_for_device("NVIDIA H100 80GB HBM3")->name == "H100 SXM");
    CHECK(gpu_model_for_device("Tesla T4") == nullptr);
}

TEST_CASE("traffic, FLOPs and intensity of a case's launches") {
    // One launch: 100 load + 28 store sectors = 4,096 bytes; the minimum 2,048 bytes.
    const Performance one = launches_performance({launch("k", 24, 64, 100, 28)}, 2048, 8192.0, nullptr);
    CHECK(one.bytes == 4096);
    CHECK(one.min_bytes == 2048);
    CHECK(one.traffic_ratio == doctest::Approx(2.0));
    REQUIRE(one.flops.has_value());
    CHECK(*one.intensity == doctest::Approx(2.0));
    REQUIRE(one.estimates.size() == gpu_models().size());
    // H200: 24 blocks of 64 threads on 132 SMs: one block on each of 24 SMs, each with 1/132 of the
    // 4.8 TB/s and of the 67 TFLOP/s. No footprint counters: every requested sector is DRAM traffic.
    const TimeEstimate& h200 = one.estimates[3];
    CHECK(h200.gpu == "H200");
    CHECK(h200.blocks_per_sm == 32);
    CHECK(h200.fill == doctest::Approx(24.0 / 132));
    CHECK(h200.waves == doctest::Approx(24.0 / (132 * 32)));
    CHECK(h200.dram_bytes == 4096);
    CHECK(h200.seconds == doctest::Approx(std::max(4096.0 / 24 * 132 / 4.8e12, 8192.0 / 24 * 132 / 67e12)));
    CHECK(h200.bound == PerfBound::TooFewBlocks);
    REQUIRE(one.caches.size() == gpu_models().size());
    CHECK(one.caches[3].dram_bytes() == 4096);

    // Two launches: FLOPs shared by threads (1 : 3), times summed, the slowest launch's bound.
    const Performance two =
        launches_performance({launch("a", 1000, 256, 1'000'000, 0), launch("b", 3000, 256, 0, 1'000'000)}, 32'000'000, 4e9, nullptr);
    CHECK(two.bytes == 64'000'000);
    CHECK(two.traffic_ratio == doctest::Approx(2.0));
    REQUIRE(two.launches.size() == 2);
    CHECK(*two.launches[0].flops == doctest::Approx(1e9));
    CHECK(*two.launches[1].flops == doctest::Approx(3e9));
    const TimeEstimate& a100 = two.estimates[1];  // 108 SMs x 8 blocks of 256 threads = 864 slots: both fill it
    CHECK(a100.seconds == doctest::Approx(two.launches[0].estimates[1].seconds + two.launches[1].estimates[1].seconds));
    CHECK(two.launches[1].estimates[1].bound == PerfBound::Compute);  // 3 GFLOP / 19.5 TFLOP/s > 32 MB / 2,039 GB/s
    CHECK(a100.bound == PerfBound::Compute);

    // No FLOP count: unknown, and no intensity.
    const Performance unknown = launches_performance({launch("k", 1, 32, 1, 1)}, 64, std::nullopt, nullptr);
    CHECK_FALSE(unknown.flops.has_value());
    CHECK_FALSE(unknown.intensity.has_value());
    CHECK(performance_to_json(unknown, Lang::En)["flops"].is_null());
}

TEST_CASE("the least traffic: the output once and what the operation needs of each input, in whole sectors per tensor") {
    // An op without partial reads (or none known): every tensor input whole.
    const reference::Inputs plain = {{"x", tensor({1, 1, 3, 3})}, {"n", Value::of_int(7)}, {"w", tensor({10})}};  // 36 B, 40 B
    CHECK(minimum_sectors(nullptr, plain, 9) == 2 + 2 + 2);                          // the output: 36 B -> 2 sectors
    CHECK(minimum_sectors(nullptr, plain, 0) == 4);
    // A causal mask reads only the visible scores: (2, 3, 8, 8) has 6 x 36 = 216 of 384
    // (864 B = 27 sectors, not 48), and writes all 384 (48 sectors).
    const reference::Inputs scores = {{"scores", tensor({2, 3, 8, 8})}};
    for (const char* op : {"batched_causal_mask", "causal_softmax"}) {
        INFO(op);
        CHECK(minimum_sectors(reference::find_op(op), scores, 384) == 27 + 48);
    }
    // Attention needs q, k and v whole: 3 x (1, 2, 8, 4) = 3 x 64 floats, 8 sectors each, and the output.
    const Value q = tensor({1, 2, 8, 4});
    CHECK(minimum_sectors(reference::find_op("batched_causal_attention"), {{"q", q}, {"k", q}, {"v", q}}, 64) == 4 * 8);
    CHECK(*reference::needed_elements(*reference::find_op("batched_causal_mask"), "scores", scores) == 216);
    CHECK(*reference::needed_elements(*reference::find_op("batched_causal_attention"), "q", {{"q", q}}) == 64);
}

TEST_CASE("a passing kernel never moves less than the least traffic: the mask that read 0.80x the old minimum") {
    Exercise ex;
    ex.runtime = Runtime::Cuda;
    ex.reference = "batched_causal_mask";
    ex.params = {{"scores", ValueKind::Tensor, "(B, H, T, T)"}};
    ex.cases.resize(1);
    ex.cases[0].args = {tensor({1, 1, 8, 8})};  // 36 visible of 64: least 5 + 8 sectors (it was 8 + 8)
    CheckResult r;
    r.cases.resize(1);
    r.cases[0].expected = tensor({1, 1, 8, 8});
    emu::LaunchReport mask = launch("mask", 1, 64, 5, 8);  // the visible scores read, every output written
    mask.counters.global_load_unique_sectors = 5;
    mask.counters.global_store_unique_sectors = 8;
    r.cases[0].kernels.launches = {mask};
    CHECK(below_least_traffic(r, ex).empty());
    REQUIRE(check_performance(r, ex));
    CHECK(check_performance(r, ex)->min_bytes == 13 * 32);
    CHECK(check_performance(r, ex)->traffic_ratio == doctest::Approx(1.0));
    // A kernel that somehow moved less names the case: that least would not be a lower bound.
    r.cases[0].kernels.launches[0].counters.global_load_unique_sectors = 4;
    REQUIRE(below_least_traffic(r, ex).size() == 1);
    CHECK(contains(below_least_traffic(r, ex)[0], "case 1"));
}

TEST_CASE("the reference ops' FLOP counts, computed by hand") {
    using reference::find_op;
    using reference::op_flops;
    const Value q = tensor({1, 2, 3, 4});  // B = 1, H = 2, T = 3, hd = 4: 6 visible pairs per head
    // QKᵀ and PV on the visible pairs (2·4 each) plus 5 per softmax element: 21 · 6 · 2.
    CHECK(*op_flops(*find_op("batched_causal_attention"), {{"q", q}, {"k", q}, {"v", q}}) == doctest::Approx(252));
    CHECK(*op_flops(*find_op("batched_attention_scores"), {{"q", q}, {"k", q}}) == doctest::Approx(2 * 2 * 3 * 3 * 4));
    CHECK(*op_flops(*find_op("causal_softmax"), {{"scores", tensor({2, 1, 4, 4})}}) == doctest::Approx(5 * 2 * 10));
    CHECK(*op_flops(*find_op("batched_row_sum"), {{"x", tensor({1, 2, 3, 5})}}) == doctest::Approx(6 * 4));
    CHECK(*op_flops(*find_op("fused_qkv"), {{"x", tensor({5, 4})}, {"w_qkv", tensor({4, 12})}}) == doctest::Approx(2 * 5 * 4 * 12));
    CHECK(*op_flops(*find_op("batched_causal_mask"), {{"scores", tensor({1, 1, 2, 2})}}) == 0);
    CHECK(*op_flops(*find_op("batched_split_heads"), {{"x", tensor({1, 2, 4})}}) == 0);
    // Inputs that do not fit, and an op without a count: unknown.
    CHECK_FALSE(op_flops(*find_op("batched_causal_attention"), {{"q", tensor({3, 4})}}).has_value());
    CHECK_FALSE(op_flops(*find_op("causal_mhsa"), {}).has_value());
}

TEST_CASE("the report in words, both languages: numbers formatted, no raw ids, the assumptions written out") {
    Performance p = launches_performance({launch("k", 24, 64, 30'000, 1'104)}, 221'184, 281'880.0, nullptr);
    p.case_index = 10;
    const std::string en = describe_performance(p, Lang::En);
    const std::string id = describe_performance(p, Lang::Id);
    INFO(en);
    INFO(id);
    CHECK(contains(en, "995.3 KB"));
    CHECK(contains(id, "995,3 KB"));
    CHECK(contains(en, "4.50x"));
    CHECK(contains(id, "4,50x"));
    CHECK(contains(en, "too few blocks"));
    CHECK(contains(id, "blok terlalu sedikit"));
    CHECK(contains(en, "an estimate, not a measurement"));
    CHECK(contains(id, "perkiraan, bukan pengukuran"));
    for (const std::string* s : {&en, &id}) {
        for (const char* raw : {"perf.", "too_few_blocks", "{", "}"}) CHECK_MESSAGE(s->find(raw) == std::string::npos, raw);
        for (const GpuModel& g : gpu_models()) CHECK(contains(*s, g.name));
    }
    CHECK(format_seconds(3.25e-6, Lang::En) == "3.25 \xC2\xB5s");
    CHECK(format_seconds(1.5e-3, Lang::Id) == "1,50 ms");
}

TEST_CASE("a GPU's measured time of the reported case joins the estimates, in both languages") {
    Exercise ex;
    ex.runtime = Runtime::Cuda;
    ex.params = {{"x", ValueKind::Tensor, ""}};
    ex.cases.resize(2);
    ex.cases[0].args = {tensor({2, 4})};
    ex.cases[1].args = {tensor({64, 64})};  // the larger case: the one the report is of
    CheckResult r;
    r.cases.resize(2);
    for (CaseOutcome& c : r.cases) {
        c.kernels.launches = {launch("k", 4, 64, 100, 10)};
        c.expected = tensor({2});
    }
    REQUIRE(check_performance(r, ex));
    CHECK(check_performance(r, ex)->case_index == 1);
    CHECK_FALSE(check_performance(r, ex)->measured_seconds);  // no GPU ran it

    GpuSummary gpu;
    gpu.device = "NVIDIA H200";
    gpu.device_time_ns = {5'000, 1'250'000};
    r.gpu = gpu;
    const std::optional<Performance> p = check_performance(r, ex);
    REQUIRE(p);
    REQUIRE(p->measured_seconds);
    CHECK(*p->measured_seconds == doctest::Approx(1.25e-3));  // case 1's, not case 0's
    CHECK(contains(describe_performance(*p, Lang::En), "Measured on NVIDIA H200: 1.25 ms"));
    CHECK(contains(describe_performance(*p, Lang::Id), "Terukur di NVIDIA H200: 1,25 ms"));

    r.gpu->device_time_ns = {5'000, -1};  // that case's events failed: nothing shown
    CHECK_FALSE(check_performance(r, ex)->measured_seconds);
}

TEST_CASE("attnlab's own attention kernels v1 and v2 as reference points: their counters and the op's FLOPs") {
    const ReferencePoints refs = attention_reference_points(1, 2, 8, 4);
    REQUIRE(refs.ready);  // a small shape runs at once
    CHECK(refs.T == 8);
#ifdef ATTNLAB_HAVE_KERNELS
    REQUIRE(refs.points.size() == 2);
    for (const ReferencePoint& p : refs.points) {
        INFO(p.label);
        // q, k, v read and the output written at least once: 4 tensors of 64 floats.
        CHECK(p.bytes >= 4 * 64 * 4);
        CHECK(p.flops == doctest::Approx(2.0 * 36 * (4 * 4 + 5)));
        CHECK(p.estimates.size() == gpu_models().size());
    }
    CHECK(refs.points[0].label == "attnlab v1");
    CHECK(refs.points[1].label == "attnlab v2");
#endif
}
