// Every kernel op against the Eigen reference, on the CPU emulator: same op
// name, same inputs; output and every stage the kernel produces compared with
// |kernel - ref| <= atol + rtol·|ref|, masked (-inf) entries compared exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/reference/registry.hpp"

using namespace attnlab;

namespace {

constexpr double kAtol = 2e-4, kRtol = 1e-3;

TensorData random_tensor(Shape shape, unsigned seed) {
    TensorData t = TensorData::zeros(std::move(shape));
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : t.data) v = dist(gen);
    return t;
}

// Weights scaled like an initialised layer (1/sqrt(D)) keep scores near 1.
TensorData random_weights(int64_t rows, int64_t cols, unsigned seed) {
    TensorData t = random_tensor({rows, cols}, seed);
    for (float& v : t.data) v /= std::sqrt(float(rows));
    return t;
}

void check_close(const std::string& what, const TensorData& got, const TensorData& ref) {
    INFO(what);
    REQUIRE(shape_to_string(got.shape) == shape_to_string(ref.shape));
    int64_t bad = 0, masked = 0;
    double worst = 0;
    for (size_t i = 0; i < ref.data.size(); ++i) {
        const double r = ref.data[i], g = got.data[i];
        if (std::isinf(r)) {  // masked entries: exactly -inf in both
            ++masked;
            if (g != r) ++bad;
            continue;
        }
        const double err = std::fabs(g - r);
        worst = std::max(worst, err);
        if (!(err <= kAtol + kRtol * std::fabs(r))) ++bad;
    }
    INFO("worst abs error " << worst << ", masked entries " << masked);
    CHECK(bad == 0);
}

// Runs the op both ways; compares the output and each stage both produced.
kernels::KernelRun check_op(const std::string& op, const reference::Inputs& inputs, int version = 0,
                            size_t min_stages = 0) {
    const reference::Op* ref_op = reference::find_op(op);
    REQUIRE(ref_op != nullptr);
    const reference::Result ref = ref_op->run(inputs);
    kernels::KernelOptions options;
    options.backend = kernels::Backend::Emulator;
    options.attention_version = version;
    const std::optional<kernels::KernelRun> run = kernels::run_kernel_op(op, inputs, options);
    REQUIRE(run.has_value());
    INFO(op << " v" << version << ": " << run->input_error << describe_launch(run->report, Lang::En));
    REQUIRE(run->ok());
    CHECK(run->backend == kernels::Backend::Emulator);
    CHECK(run->device.find("CPU emulator") == 0);
    check_close(op + " output", run->output.tensor, ref.output.tensor);
    size_t compared = 0;
    for (const NamedTensor& stage : run->stages)
        for (const NamedTensor& ref_stage : ref.stages)
            if (ref_stage.name == stage.name) {
                check_close(op + " stage " + stage.name, stage.tensor, ref_stage.tensor);
                ++compared;
            }
    CHECK(compared == run->stages.size());  // every kernel stage has a reference twin
    CHECK(compared >= min_stages);
    return *run;
}

reference::Inputs mhsa_inputs(int64_t B, int64_t T, int64_t D, int64_t H, bool fused) {
    reference::Inputs in;
    in["x"] = Value::of_tensor(B ? random_tensor({B, T, D}, 1) : random_tensor({T, D}, 1));
    if (fused) {
        in["w_qkv"] = Value::of_tensor(random_weights(D, 3 * D, 2));
    } else {
        in["w_q"] = Value::of_tensor(random_weights(D, D, 3));
        in["w_k"] = Value::of_tensor(random_weights(D, D, 4));
        in["w_v"] = Value::of_tensor(random_weights(D, D, 5));
    }
    in["w_o"] = Value::of_tensor(random_weights(D, D, 6));
    in["n_heads"] = Value::of_int(H);
    return in;
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("kernel ops are the reference ops that have a kernel") {
    for (const std::string& op : kernels::kernel_ops()) {
        INFO(op);
        CHECK(reference::find_op(op) != nullptr);
        CHECK(kernels::has_kernel(op));
    }
    CHECK_FALSE(kernels::has_kernel("attention_params"));
    CHECK_FALSE(kernels::run_kernel_op("attention_params", {}).has_value());
    CHECK_FALSE(kernels::run_kernel_op("no_such_op", {}).has_value());
}

TEST_CASE("split_heads, batched_split_heads, merge_heads") {
    for (const auto& [T, D, H] : std::vector<std::tuple<int, int, int>>{{1, 32, 1}, {7, 64, 2}, {33, 144, 2}}) {
        reference::Inputs in{{"x", Value::of_tensor(random_tensor({T, D}, 7))}, {"n_heads", Value::of_int(H)}};
        const kernels::KernelRun run = check_op("split_heads", in);
        // One thread per output element: every store request is 4 sectors.
        CHECK(run.report.counters.sectors_per_store_request() <= 4.0);
        reference::Inputs batched{{"x", Value::of_tensor(random_tensor({3, T, D}, 8))}, {"n_heads", Value::of_int(H)}};
        check_op("batched_split_heads", batched);
        reference::Inputs heads{{"heads", Value::of_tensor(random_tensor({H, T, D / H}, 9))}};
        check_op("merge_heads", heads);
    }
}

TEST_CASE("tiled GEMM: linear, fused_qkv, qkv_projection, merge_project") {
    // 16×16 tiles; sizes on and off the tile edge.
    for (const auto& [T, D] : std::vector<std::pair<int, int>>{{1, 32}, {17, 64}, {40, 72}}) {
        check_op("linear", {{"x", Value::of_tensor(random_tensor({T, D}, 10))},
                            {"w", Value::of_tensor(random_weights(D, 3 * D + 5, 11))}});
        check_op("fused_qkv", {{"x", Value::of_tensor(random_tensor({T, D}, 12))},
                               {"w_qkv", Value::of_tensor(random_weights(D, 3 * D, 13))}}, 0, 4);
        check_op("qkv_projection", {{"x", Value::of_tensor(random_tensor({T, D}, 14))},
                                    {"w_q", Value::of_tensor(random_weights(D, D, 15))},
                                    {"w_k", Value::of_tensor(random_weights(D, D, 16))},
                                    {"w_v", Value::of_tensor(random_weights(D, D, 17))}}, 0, 3);
        check_op("merge_project", {{"heads", Value::of_tensor(random_tensor({2, T, D / 2}, 18))},
                                   {"w_o", Value::of_tensor(random_weights(D, D, 19))}}, 0, 2);
    }
}

TEST_CASE("attention v1 and v2: weights and scores of one layer's heads") {
    for (int version : {1, 2}) {
        // T = 1; T not a multiple of the 64-row / 32-key tiles; hd 32, 64, 72.
        for (const auto& [H, T, hd] : std::vector<std::tuple<int, int, int>>{{2, 1, 32}, {1, 70, 64}, {3, 33, 72}}) {
            reference::Inputs in{{"q", Value::of_tensor(random_tensor({H, T, hd}, 20))},
                                 {"k", Value::of_tensor(random_tensor({H, T, hd}, 21))}};
            check_op("causal_attention_weights", in, version, 3);
            check_op("attention_scores", in, version);
        }
    }
}

TEST_CASE("causal_mhsa end to end, every stage, both attention versions") {
    for (int version : {1, 2}) {
        // (T, D, H): T = 1, hd = 32; T = 70 (not a multiple of a tile), hd = 64;
        // hd = 72 with H = 1; T = 65 = one tile + 1.
        for (const auto& [T, D, H] : std::vector<std::tuple<int, int, int>>{{1, 64, 2}, {70, 128, 2}, {20, 72, 1}, {65, 64, 2}}) {
            INFO("T=" << T << " D=" << D << " H=" << H);
            const kernels::KernelRun run = check_op("causal_mhsa", mhsa_inputs(0, T, D, H, false), version, 9);
            CHECK(run.report.kernel == (version == 1 ? "attention_v1" : "attention_v2"));
            CHECK(run.launches.size() == 7);  // qkv GEMM, 3 splits, attention, merge, output GEMM
        }
    }
}

TEST_CASE("fused_causal_mhsa and batched_causal_mhsa (B > 1)") {
    for (int version : {1, 2}) {
        check_op("fused_causal_mhsa", mhsa_inputs(0, 33, 96, 3, true), version, 9);
        const kernels::KernelRun run = check_op("batched_causal_mhsa", mhsa_inputs(3, 21, 64, 2, false), version, 9);
        // One block per (batch, head) in v1; v2 adds a column of query tiles.
        const emu::LaunchReport& att = run.report;
        CHECK(att.grid.count() == 6u);
    }
}

TEST_CASE("attention v2's tile loads are coalesced; v1's key reads are not") {
    reference::Inputs in{{"q", Value::of_tensor(random_tensor({1, 64, 64}, 30))},
                         {"k", Value::of_tensor(random_tensor({1, 64, 64}, 31))}};
    kernels::KernelOptions options;
    options.backend = kernels::Backend::Emulator;
    options.attention_version = 2;
    const auto v2 = kernels::run_kernel_op("causal_attention_weights", in, options);
    options.attention_version = 1;
    const auto v1 = kernels::run_kernel_op("causal_attention_weights", in, options);
    REQUIRE((v1 && v2 && v1->ok() && v2->ok()));
    // v1: lanes read keys j = lane, lane+32... of a (T, 64) slice: 256 bytes apart.
    CHECK(v1->report.counters.sectors_per_load_request() > v2->report.counters.sectors_per_load_request());
    CHECK(v2->report.counters.barriers > 0);
    CHECK(v1->report.counters.warp_syncs > 0);
    CHECK(v2->report.counters.shared_bank_conflicts == 0);  // every thread reads the same K element
}

TEST_CASE("inputs that do not fit are reported, not thrown") {
    reference::Inputs in{{"x", Value::of_tensor(random_tensor({4, 10}, 1))}, {"n_heads", Value::of_int(3)}};
    const auto run = kernels::run_kernel_op("split_heads", in);
    REQUIRE(run.has_value());
    CHECK_FALSE(run->ok());
    CHECK(run->input_error.find("n_heads") != std::string::npos);
    const auto missing = kernels::run_kernel_op("causal_mhsa", {});
    REQUIRE(missing.has_value());
    CHECK(missing->input_error.find("missing") != std::string::npos);
}

TEST_CASE("a kernel fault is data: the pipeline stops and says where") {
    kernels::KernelOptions options;
    options.backend = kernels::Backend::Emulator;
    options.emulator_step_limit = 50;  // the first GEMM needs more: stopped as an endless loop would be
    const auto run = kernels::run_kernel_op("causal_mhsa", mhsa_inputs(0, 20, 64, 2, false), options);
    REQUIRE(run.has_value());
    CHECK_FALSE(run->ok());
    CHECK(run->input_error.empty());
    REQUIRE(run->launches.size() == 1);
    CHECK(run->report.kernel == "matmul_tiled_v1");
    CHECK(run->report.fault.kind == emu::FaultKind::StepLimit);
    CHECK(run->stages.empty());
    CHECK_FALSE(describe_fault(run->report.fault, Lang::Id).empty());
    // The next run is unaffected.
    CHECK(kernels::run_kernel_op("causal_mhsa", mhsa_inputs(0, 20, 64, 2, false))->ok());
}

// The line of `needle` in the embedded kernel file `file` (1-based; 0: absent).
int line_of(const std::string& file, const std::string& needle) {
    for (const kernels::KernelSource& s : kernels::kernel_sources()) {
        if (s.file != file) continue;
        const size_t at = s.text.find(needle);
        return at == std::string::npos ? 0 : 1 + int(std::count(s.text.begin(), s.text.begin() + long(at), '\n'));
    }
    return 0;
}

TEST_CASE("a fault in attnlab's own kernel names a line of its .cu, as a learner's fault does") {
    kernels::KernelOptions options;
    options.backend = kernels::Backend::Emulator;
    options.emulator_step_limit = 50;
    const auto run = kernels::run_kernel_op("causal_mhsa", mhsa_inputs(0, 20, 64, 2, false), options);
    REQUIRE(run.has_value());
    REQUIRE(run->report.fault.kind == emu::FaultKind::StepLimit);
    // Inside matmul_tiled_v1's body: after its signature, before its launcher.
    const int first = line_of("layout.cu", "__global__ void matmul_tiled_v1"), last = line_of("layout.cu", "emu::LaunchReport matmul(");
    REQUIRE(first > 0);
    REQUIRE(last > first);
    CHECK(run->report.fault.line > first);
    CHECK(run->report.fault.line < last);
}

// The emulator's checks keep their state per process: run_kernel_op takes
// launches one at a time, so callers on several threads (the window's checks
// and a dev check) each get their own answer.
TEST_CASE("kernel ops run from several threads at once each give the reference's answer") {
    const reference::Inputs inputs = mhsa_inputs(2, 40, 64, 4, false);
    const auto alone = kernels::run_kernel_op("batched_causal_mhsa", inputs);
    REQUIRE(alone.has_value());
    REQUIRE(alone->ok());
    std::vector<std::optional<kernels::KernelRun>> runs(3);
    std::vector<std::thread> threads;
    for (auto& r : runs) threads.emplace_back([&r, &inputs] { r = kernels::run_kernel_op("batched_causal_mhsa", inputs); });
    for (std::thread& t : threads) t.join();
    for (const auto& r : runs) {
        REQUIRE(r.has_value());
        REQUIRE(r->ok());
        CHECK(r->output.tensor.data == alone->output.tensor.data);
        CHECK(r->report.counters.global_load_requests == alone->report.counters.global_load_requests);
        CHECK(r->report.counters.shared_bank_conflicts == alone->report.counters.shared_bank_conflicts);
    }
}

TEST_CASE("kernel sources and layouts for the Kernel view") {
    bool found_attention = false;
    for (const kernels::KernelSource& s : kernels::kernel_sources())
        if (s.file == "attention.cu") found_attention = s.text.find("__global__ void attention_v2") != std::string::npos;
    CHECK(found_attention);
    const kernels::KernelLayout layout = kernels::kernel_layout("attention_v1");
    CHECK(layout.file == "attention.cu");
    CHECK(kernels::kernel_layout("split_heads_v1").file == "layout.cu");
    CHECK(kernels::kernel_layout("no_such_kernel").file.empty());
}

TEST_CASE("layout comparison: same attention output, the transposed layout touches fewer pages") {
    for (int version : {1, 2}) {
        const kernels::LayoutComparison c = kernels::compare_attention_layouts(2, 96, 4, 64, version);
        INFO("v" << version);
        REQUIRE((c.transposed.ok() && c.untransposed.ok()));
        CHECK(c.max_abs_difference == 0.0);
        CHECK(c.transposed.counters.global_pages * 2 < c.untransposed.counters.global_pages);
        // Each row of a head is whole sectors in both layouts: sectors/request do not move.
        CHECK(c.transposed.counters.sectors_per_load_request() ==
              doctest::Approx(c.untransposed.counters.sectors_per_load_request()));
    }
    CHECK(kernels::compare_attention_layouts(0, 1, 1, 1).transposed.fault.kind == emu::FaultKind::InvalidLaunch);
}

TEST_CASE("layout comparison: the same comparison twice counts the same pages, wherever the buffers land") {
    std::vector<std::vector<char>> shifts;
    for (int version : {1, 2}) {
        INFO("v" << version);
        const kernels::LayoutComparison first = kernels::compare_attention_layouts(1, 32, 4, 8, version);
        shifts.emplace_back(size_t(version) * 1000 + 300);  // moves where the next buffers land
        const kernels::LayoutComparison second = kernels::compare_attention_layouts(1, 32, 4, 8, version);
        REQUIRE((first.transposed.ok() && first.untransposed.ok() && second.transposed.ok()));
        CHECK(first.transposed.counters.global_pages == second.transposed.counters.global_pages);
        CHECK(first.untransposed.counters.global_pages == second.untransposed.counters.global_pages);
    }
}

TEST_CASE("block roles label the attention grids with (batch, head) and rows") {
    kernels::BlockRole r = kernels::block_role("attention_v1", {7, 0, 0}, 3, 50);
    CHECK(r.batch == 2);
    CHECK(r.head == 1);
    CHECK(r.row_begin == 0);
    CHECK(r.row_end == 50);
    r = kernels::block_role("attention_v2", {1, 4, 0}, 2, 100);
    CHECK(r.batch == 2);
    CHECK(r.head == 0);
    CHECK(r.row_begin == 64);
    CHECK(r.row_end == 100);  // the partial last tile
    CHECK(kernels::block_role("split_heads_v1", {0, 0, 0}, 2, 10).batch == -1);
}

}  // TEST_SUITE
