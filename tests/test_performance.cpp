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
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/reference/registry.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;

namespace {

// Round figures so every expected number below is computed by hand.
const GpuModel kToy{"Toy", "sm_90", 100, 1e12 /*1 TB/s*/, 1e13 /*10 TFLOP/s*/};

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

TEST_CASE("the roofline model: memory-bound, compute-bound, too few blocks") {
    struct Row {
        const char* what;
        double bytes, flops;
        int64_t blocks;
        int blocks_per_sm;
        double seconds, fill;
        PerfBound bound;
    };
    const Row rows[] = {
        // 1 GB at 1 TB/s = 1 ms; 1 GFLOP at 10 TFLOP/s = 0.1 ms; 1,000 blocks fill 100 SMs x 10.
        {"memory-bound", 1e9, 1e9, 1000, 10, 1e-3, 1.0, PerfBound::Memory},
        // 1 MB = 1 us; 100 GFLOP = 10 ms.
        {"compute-bound", 1e6, 1e11, 5000, 10, 1e-2, 1.0, PerfBound::Compute},
        // 15 blocks of 200 slots (100 SMs x 2): fill 0.075, 1 ms / 0.075.
        {"too few blocks", 1e9, 0, 15, 2, 1e-3 / 0.075, 0.075, PerfBound::TooFewBlocks},
        // Exactly the slots: the whole GPU.
        {"a full wave", 1e9, 0, 200, 2, 1e-3, 1.0, PerfBound::Memory},
        // A block that does not fit counts as one resident block: 50 of 100 slots.
        {"no occupancy known", 1e9, 0, 50, 0, 2e-3, 0.5, PerfBound::TooFewBlocks},
    };
    for (const Row& r : rows) {
        INFO(r.what);
        const TimeEstimate e = roofline_time(kToy, r.bytes, r.flops, r.blocks, r.blocks_per_sm);
        CHECK(e.gpu == "Toy");
        CHECK(e.seconds == doctest::Approx(r.seconds).epsilon(1e-12));
        CHECK(e.fill == doctest::Approx(r.fill));
        CHECK(e.bound == r.bound);
        CHECK(e.memory_seconds == doctest::Approx(r.bytes / 1e12));
        CHECK(e.compute_seconds == doctest::Approx(r.flops / 1e13));
    }
    CHECK(std::string(perf_bound_code(PerfBound::TooFewBlocks)) == "too_few_blocks");
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
    // H200: 4,096 B / 4.8 TB/s; 24 blocks of 64 threads on 132 SMs x 32 resident blocks.
    const TimeEstimate& h200 = one.estimates[3];
    CHECK(h200.gpu == "H200");
    CHECK(h200.blocks_per_sm == 32);
    CHECK(h200.fill == doctest::Approx(24.0 / (132 * 32)));
    CHECK(h200.seconds == doctest::Approx(4096 / 4.8e12 / (24.0 / (132 * 32))));
    CHECK(h200.bound == PerfBound::TooFewBlocks);

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

TEST_CASE("the least traffic: every input and the output once, in whole sectors per tensor") {
    Case c;
    c.args = {tensor({1, 1, 3, 3}), Value::of_int(7), tensor({10})};  // 36 B -> 2 sectors; 40 B -> 2 sectors
    CHECK(minimum_sectors(c, 9) == 2 + 2 + 2);                       // the output: 36 B -> 2 sectors
    CHECK(minimum_sectors(c, 0) == 4);
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
