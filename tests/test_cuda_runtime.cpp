// Learners' CUDA files end to end: a .cu compiled against the emulator, run
// in the sandbox on every case, and a verdict that names the cause (a kernel
// fault with the learner's own line, output left unwritten, loads that break
// the exercise's coalescing rule, a catalogued mistake). The fixture course
// tests/fixtures/cuda-course keeps one exercise with right and wrong files.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/nvrtc/library.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
namespace fs = std::filesystem;

namespace {

const fs::path kCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course";

struct Env {
    attnlab::testing::TempDir cache{"cuda-runtime"};
    Course course = load_course(kCourse);
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
    const Exercise& ex() const { return *course.find("fx-cuda-split"); }
    CheckResult check(const std::string& file) { return runner.check(ex(), ex().dir / file); }
    CheckResult check_text(const std::string& source) { return runner.check_source(ex(), source, "mine.cu"); }
};

Env& env() {
    static Env e;
    return e;
}

bool emulator_built() { return env().compiler.toolchain().problem(Runtime::Cuda).empty(); }

// The fixture's correct host function around a kernel body written by a test.
std::string program_with_kernel(const std::string& body, int threads = 64) {
    return "#include <attnlab/cuda.hpp>\n"
           "__global__ void split_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    const int n = B * H * T * hd;\n" +
           body +
           "}\n"
           "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
           "    const int B = x.size(0), T = x.size(1), D = x.size(2);\n"
           "    split_kernel<<<ceil_div(out.numel(), " + std::to_string(threads) + "), " + std::to_string(threads) +
           ">>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n"
           "}\n";
}

// The index of element i of out in x, for (B, T, H, hd) -> (B, H, T, hd).
const std::string kSource =
    "    const int d = i % hd, t = (i / hd) % T, h = (i / (hd * T)) % H, b = i / (hd * T * H);\n"
    "    const int src = (b * T + t) * H * hd + h * hd + d;\n";

}  // namespace

TEST_CASE("the CUDA fixture course: starter fails, solution passes, every wrong file is rejected with its named cause") {
    if (!emulator_built()) {
        MESSAGE("skipped: this attnlab was built without the CUDA emulator: " << env().compiler.toolchain().problem(Runtime::Cuda));
        return;
    }
    REQUIRE(env().course.problems.empty());
    const ExerciseCheck ec = check_exercise(env().runner, env().ex());
    for (const std::string& p : ec.problems) FAIL_CHECK(p);
    CHECK(ec.solution_verdict == "pass");
    REQUIRE(ec.fixtures.size() == 5);
    for (const FixtureCheck& f : ec.fixtures) {
        CAPTURE(f.file);
        CHECK(f.ok);
    }
}

TEST_CASE("a passing CUDA check reports every launch with its shape and, when asked, every block's accesses") {
    if (!emulator_built()) return;
    CheckControl traced;
    traced.trace_kernels = true;
    CheckResult r = env().runner.check(env().ex(), env().ex().dir / "solution.cu", traced);
    REQUIRE(r.verdict == Verdict::Pass);
    for (const CaseOutcome& c : r.cases) {
        CAPTURE(c.index);
        REQUIRE(c.kernels.launches.size() == 1);
        const emu::LaunchReport& L = c.kernels.launches[0];
        CHECK(L.kernel == "split_kernel");
        CHECK(L.block == emu::Dim3{128, 1, 1});
        const int64_t elements = static_cast<int64_t>(c.expected.tensor.data.size());
        CHECK(L.grid.x == static_cast<unsigned>((elements + 127) / 128));
        CHECK(c.kernels.unwritten_count == 0);
        // every element of out is written exactly once, and the trace names the blocks that did it
        int64_t writes = 0;
        for (const emu::AccessEvent& e : L.trace)
            if (e.is_write && e.buffer == "out") {
                ++writes;
                CHECK(e.block * 128 + e.thread == static_cast<uint64_t>(e.index));
            }
        CHECK(writes == elements);
    }
    const nlohmann::json j = to_json(r, env().ex(), Lang::En);
    CHECK(j["cases"][2]["kernel"]["launches"][0]["kernel"] == "split_kernel");
    // A plain check (the CLI, dev check) runs the same launches without recording them.
    const CheckResult plain = env().check("solution.cu");
    REQUIRE(plain.verdict == Verdict::Pass);
    for (const CaseOutcome& c : plain.cases) {
        REQUIRE(c.kernels.launches.size() == 1);
        CHECK(c.kernels.launches[0].trace.empty());
        CHECK(c.kernels.launches[0].counters.global_load_requests == r.cases[static_cast<size_t>(c.index)].kernels.launches[0].counters.global_load_requests);
    }
    // NVRTC's report: where the toolkit is installed, the same file compiles
    // for the GPU too and its kernel has figures; elsewhere it says so.
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    if (!nvrtc::Library::open().loaded()) {
        CHECK(r.resources->status == ResourceReport::Status::Unavailable);
        MESSAGE("NVRTC is not installed here: the resource report says so");
    } else {
        CAPTURE(r.resources->log);
        REQUIRE(r.resources->status == ResourceReport::Status::Ok);
        REQUIRE(r.resources->kernels.size() == 1);
        CHECK(r.resources->kernels[0].kernel == "split_kernel");
        CHECK(r.resources->kernels[0].registers > 0);
        CHECK(j["resources"]["arch"] == "sm_90");
        CHECK(j["resources"]["registers"].get<int>() == r.resources->kernels[0].registers);
        CHECK(j["resources"]["kernels"][0]["occupancy"]["threads_per_block"] == 128);
    }
    CHECK(j["cases"][2]["kernel"]["launches"][0]["counters"]["sectors_per_load_request"].get<double>() > 0);
}

TEST_CASE("an out-of-bounds read names the learner's kernel, block, thread and own source line, in both languages") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/no_bounds_check.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
    REQUIRE(r.failed_case == 0);
    const CaseOutcome& c = r.cases[0];
    REQUIRE(c.kernels.launches.size() == 1);
    const emu::Fault& f = c.kernels.launches[0].fault;
    CHECK(f.kind == emu::FaultKind::OutOfBounds);
    CHECK(f.line == 10);  // `out[i] = x[...]` in wrong/no_bounds_check.cu
    CHECK(f.buffer == "x");
    CHECK(f.thread.x == 24);  // case 1 has 24 elements: thread 24 is the first without one
    const std::string en = explain(r, env().ex(), Lang::En);
    CHECK(contains(en, "split_kernel"));
    CHECK(contains(en, "memcheck"));
    CHECK(contains(en, "line 10"));
    const std::string id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(id, "baris kode 10"));
    CHECK(to_json(r, env().ex(), Lang::En)["cause"] == "out_of_bounds");
}

TEST_CASE("a shared-memory race and a barrier in a branch are named by racecheck and synccheck") {
    if (!emulator_built()) return;
    // Each thread stages its element, then its neighbour's is read (and written
    // to the neighbour's place) without __syncthreads: the values would be right.
    const CheckResult race = env().check_text(program_with_kernel(
        "    __shared__ float staged[64];\n" + kSource +
        "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
        "    const int j = blockIdx.x * blockDim.x + (threadIdx.x ^ 1);\n"
        "    if (j < n) out[j] = staged[threadIdx.x ^ 1];\n"));
    CHECK(race.verdict == Verdict::KernelFault);
    CHECK(race.cause.code() == "shared_race");
    // The same with a barrier only the first half of each block reaches.
    const CheckResult divergent = env().check_text(program_with_kernel(
        "    __shared__ float staged[64];\n" + kSource +
        "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
        "    if (threadIdx.x < 32) __syncthreads();\n"
        "    if (i < n) out[i] = staged[threadIdx.x];\n"));
    CHECK(divergent.verdict == Verdict::KernelFault);
    CHECK(divergent.cause.code() == "barrier_divergence");
    REQUIRE(divergent.failed_case >= 0);
    CHECK(divergent.cases[static_cast<size_t>(divergent.failed_case)].kernels.launches[0].fault.line == 9);  // the barrier's line
    // With the barrier in place for every thread (and each thread reading its own slot) it passes.
    const CheckResult fixed = env().check_text(program_with_kernel(
        "    __shared__ float staged[64];\n" + kSource +
        "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
        "    __syncthreads();\n"
        "    if (i < n) out[i] = staged[threadIdx.x];\n"));
    CHECK(fixed.verdict == Verdict::Pass);
}

TEST_CASE("CUDA files: a compile error keeps the learner's line; a missing host function is named") {
    if (!emulator_built()) return;
    const CheckResult broken = env().check_text(program_with_kernel("    out[i] = undeclared_name;\n"));
    REQUIRE(broken.verdict == Verdict::CompileError);
    bool found = false;
    for (const Diagnostic& d : broken.diagnostics)
        if (d.severity == "error" && d.line == 5 && d.file == "mine.cu") found = true;
    CHECK(found);
    const CheckResult missing = env().check_text("#include <attnlab/cuda.hpp>\n__global__ void k(dev_ptr<float> o) { o[0] = 1.f; }\n");
    CHECK(missing.verdict == Verdict::MissingEntry);
    CHECK(contains(missing.missing_entry_signature, "DeviceTensor& out"));
}

TEST_CASE("without the emulator a CUDA exercise is refused with the reason, never run as C++") {
    Toolchain t = env().compiler.toolchain();
    t.learner_cuda_library.clear();
    CHECK(contains(t.problem(Runtime::Cuda), "without its CUDA emulator"));
    CHECK(t.problem(Runtime::Cpp) == env().compiler.toolchain().problem(Runtime::Cpp));
}

// Found in review: what a correct kernel or a wrong one must get, whatever
// legal CUDA spelling the learner chose.
namespace {

// A complete file: `prefix` before the kernel, the kernel's `body` (i, n and
// src as in program_with_kernel), and the host's launch line(s) in `launch`.
std::string program(const std::string& prefix, const std::string& body, const std::string& launch) {
    return "#include <attnlab/cuda.hpp>\n" + prefix +
           "__global__ void split_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
           "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    const int n = B * H * T * hd;\n" + kSource + body +
           "}\n"
           "__global__ void nothing(dev_ptr<float>) {}\n"
           "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
           "    const int B = x.size(0), T = x.size(1), D = x.size(2);\n" + launch +
           "}\n";
}

const std::string kLaunch64 = "    split_kernel<<<ceil_div(out.numel(), 64), 64>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n";
const std::string kNeighbourRace =
    "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
    "    const int j = blockIdx.x * blockDim.x + (threadIdx.x ^ 1);\n"
    "    if (j < n) out[j] = staged[threadIdx.x ^ 1];\n";

}  // namespace

TEST_CASE("a shared array sized by an expression, or declared beside another, is still race-checked") {
    if (!emulator_built()) return;
    for (const char* declaration : {"    __shared__ float staged[2 * 32];\n", "    __shared__ float staged[(64 + 31) / 32 * 32];\n",
                                    "    __shared__ float spare[64], staged[64];\n"}) {
        CAPTURE(declaration);
        const CheckResult race = env().check_text(program("", declaration + kNeighbourRace, kLaunch64));
        CHECK(race.verdict == Verdict::KernelFault);
        CHECK(race.cause.code() == "shared_race");
    }
}

TEST_CASE("a fault after many launches is still reported, never dropped with the launch log's overflow") {
    if (!emulator_built()) return;
    // Threads past the end read x before the bounds check (every element is
    // still written, so only the fault can reject it; volatile keeps the load
    // where it is written, which an optimiser would otherwise sink into the if).
    const CheckResult r = env().check_text(program("",
                                                   "    volatile float v = x[src];\n"
                                                   "    if (i < n) out[i] = v;\n",
                                                   "    for (int k = 0; k < 300; ++k) nothing<<<1, 1>>>(out.data());\n" + kLaunch64));
    CHECK(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
}

TEST_CASE("dynamic shared memory declared at file scope, as CUDA allows, works like one declared in the kernel") {
    if (!emulator_built()) return;
    const std::string body =
        "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
        "    __syncthreads();\n"
        "    if (i < n) out[i] = staged[threadIdx.x];\n";
    const std::string launch =
        "    split_kernel<<<ceil_div(out.numel(), 64), 64, 64 * sizeof(float)>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n";
    const CheckResult in_kernel = env().check_text(program("", "    extern __shared__ float staged[];\n" + body, launch));
    CHECK(in_kernel.verdict == Verdict::Pass);
    const CheckResult at_file_scope = env().check_text(program("extern __shared__ float staged[];\n", body, launch));
    CAPTURE(explain(at_file_scope, env().ex(), Lang::En));
    CHECK(at_file_scope.verdict == Verdict::Pass);
}

TEST_CASE("NVRTC's resource report covers a templated kernel, instantiated only by the learner's launch") {
    if (!emulator_built() || !nvrtc::Library::open().loaded()) return;
    const std::string source =
        "#include <attnlab/cuda.hpp>\n"
        "template <int kHd>\n"
        "__global__ void split_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const int n = B * H * T * hd;\n" + kSource +
        "    if (i < n) out[i] = x[src];\n"
        "}\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
        "    const int B = x.size(0), T = x.size(1), D = x.size(2);\n"
        "    split_kernel<4><<<ceil_div(out.numel(), 64), 64>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n"
        "}\n";
    CheckResult r = env().check_text(source);
    CHECK(r.verdict == Verdict::Pass);
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    CAPTURE(r.resources->log);
    REQUIRE(r.resources->status == ResourceReport::Status::Ok);
    REQUIRE(r.resources->kernels.size() == 1);
    CHECK(r.resources->kernels[0].kernel == "split_kernel<4>");
    const nlohmann::json j = to_json(r, env().ex(), Lang::En);
    CHECK(j["resources"]["kernels"][0]["occupancy"]["threads_per_block"] == 64);
}

TEST_CASE("`static __shared__` (as in NVIDIA's block reductions) compiles and is checked") {
    if (!emulator_built()) return;
    const std::string synced =
        "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
        "    __syncthreads();\n"
        "    if (i < n) out[i] = staged[threadIdx.x];\n";
    const CheckResult ok = env().check_text(program("", "    static __shared__ float staged[64];\n" + synced, kLaunch64));
    CAPTURE(explain(ok, env().ex(), Lang::En));
    CHECK(ok.verdict == Verdict::Pass);
    const CheckResult race = env().check_text(program("", "    static __shared__ float staged[64];\n" + kNeighbourRace, kLaunch64));
    CHECK(race.cause.code() == "shared_race");
}

TEST_CASE("NVRTC's resource report accepts the standard headers a correct CUDA file includes") {
    if (!emulator_built() || !nvrtc::Library::open().loaded()) return;
    const std::string source =
        "#include <attnlab/cuda.hpp>\n"
        "#include <cfloat>\n#include <cmath>\n#include <math.h>\n#include <cstdio>\n#include <cstdint>\n#include <climits>\n"
        "__global__ void split_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const int n = B * H * T * hd;\n" + kSource +
        "    const int64_t guard = INT_MAX;\n"
        "    if (i < n && i < guard) out[i] = fminf(x[src], FLT_MAX);\n"
        "}\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
        "    const int B = x.size(0), T = x.size(1), D = x.size(2);\n" + kLaunch64 +
        "}\n";
    CheckResult r = env().check_text(source);
    CHECK(r.verdict == Verdict::Pass);
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    CAPTURE(r.resources->log);
    CHECK(r.resources->status == ResourceReport::Status::Ok);
    CHECK(r.resources->kernels.size() == 1);
}

TEST_CASE("the occupancy of a kernel launched under another spelling than NVRTC's (a named template argument)") {
    if (!emulator_built() || !nvrtc::Library::open().loaded()) return;
    const std::string source =
        "#include <attnlab/cuda.hpp>\n"
        "constexpr int kUnroll = 4;\n"
        "template <int kU>\n"
        "__global__ void split_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    const int n = B * H * T * hd;\n" + kSource +
        "    if (i < n) out[i] = x[src];\n"
        "}\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
        "    const int B = x.size(0), T = x.size(1), D = x.size(2);\n"
        "    split_kernel<kUnroll><<<ceil_div(out.numel(), 64), 64>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n"
        "}\n";
    CheckResult r = env().check_text(source);
    CHECK(r.verdict == Verdict::Pass);
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    REQUIRE(r.resources->kernels.size() == 1);
    CHECK(r.resources->kernels[0].kernel == "split_kernel<4>");
    CHECK(r.cases[0].kernels.launches.at(0).kernel == "split_kernel<kUnroll>");  // verdicts keep the learner's spelling
    const nlohmann::json j = to_json(r, env().ex(), Lang::En);
    CHECK(j["resources"]["kernels"][0]["occupancy"]["threads_per_block"] == 64);
    CHECK(contains(explain_resources(r, Lang::En), "blocks of 64 threads"));
}

TEST_CASE("a faulted learner kernel is not followed by a line that says CUDA agrees with the reference") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/no_bounds_check.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    // (attnlab's own reference kernel agreeing is no news about the learner's kernel)
    CHECK_FALSE(contains(explain(r, env().ex(), Lang::En), "agrees with the Eigen reference"));
    CHECK_FALSE(contains(explain(r, env().ex(), Lang::Id), "sepakat dengan referensi Eigen"));
}

TEST_CASE("a launch with too few arguments is a compile error on the learner's launch line, as with nvcc") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_text(program("", "    if (i < n) out[i] = x[src];\n",
                                                   "    split_kernel<<<ceil_div(out.numel(), 64), 64>>>(out.data(), x.data(), B, T, n_heads);\n"));
    REQUIRE(r.verdict == Verdict::CompileError);
    const auto first_error = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& d) { return d.severity == "error"; });
    REQUIRE(first_error != r.diagnostics.end());
    const Diagnostic& first = *first_error;
    CAPTURE(first.file);
    CAPTURE(first.message);
    CHECK(first.file == "mine.cu");
    CHECK(first.line == 12);  // the launch
}

TEST_CASE("dynamic shared memory the launch forgot to size: the fault says so, in both languages") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_text(program("",
                                                   "    extern __shared__ float staged[];\n"
                                                   "    staged[threadIdx.x] = i < n ? x[src] : 0.f;\n"
                                                   "    __syncthreads();\n"
                                                   "    if (i < n) out[i] = staged[threadIdx.x];\n",
                                                   kLaunch64));  // no third <<<>>> value
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CAPTURE(en);
    CAPTURE(id);
    CHECK(contains(en, "no dynamic shared memory"));
    CHECK(contains(en, "<<<grid, block, bytes>>>"));
    CHECK_FALSE(contains(en, "0..-1"));
    CHECK(contains(id, "tidak memberi shared memory dinamis"));
    CHECK_FALSE(contains(id, "0..-1"));
}

TEST_CASE("a temporary DeviceTensor in the host code compiles for NVRTC too") {
    if (!emulator_built() || !nvrtc::Library::open().loaded()) return;
    CheckResult r = env().check_text(program(
        "__global__ void copy_kernel(dev_ptr<float> dst, dev_ptr<const float> src, int n) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) dst[i] = src[i];\n"
        "}\n",
        "    if (i < n) out[i] = x[src];\n",
        "    DeviceTensor staged(\"staged\", {B, T, D});\n"
        "    copy_kernel<<<ceil_div(staged.numel(), 64), 64>>>(staged.data(), x.data(), B * T * D);\n"
        "    split_kernel<<<ceil_div(out.numel(), 64), 64>>>(out.data(), staged.data(), B, T, n_heads, D / n_heads);\n"));
    CHECK(r.verdict == Verdict::Pass);
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    CAPTURE(r.resources->log);
    CHECK(r.resources->status == ResourceReport::Status::Ok);
    CHECK(r.resources->kernels.size() == 3);  // copy_kernel, split_kernel, nothing
}

TEST_CASE("the std:: functions a C++ learner writes (std::sqrt, std::max, numeric_limits) compile for NVRTC too") {
    if (!emulator_built() || !nvrtc::Library::open().loaded()) return;
    CheckResult r = env().check_text(program(
        "constexpr float kNegInf = -std::numeric_limits<float>::infinity();\n",
        "    const float scale = 1.0f / std::sqrt(static_cast<float>(hd)) + 0.0f * std::exp(kNegInf);\n"
        "    if (i < n) out[i] = std::max(float(x[src]), -std::numeric_limits<float>::max()) + std::abs(0.0f) * scale;\n",
        "    const int threads = std::min(64, std::max(32, static_cast<int>(std::sqrt(4096.0))));\n"
        "    split_kernel<<<ceil_div(out.numel(), threads), threads>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);\n"));
    CHECK(r.verdict == Verdict::Pass);
    wait_for_resources(r);  // NVRTC may finish after the verdict
    REQUIRE(r.resources);
    CAPTURE(r.resources->log);
    CHECK(r.resources->status == ResourceReport::Status::Ok);
}

TEST_CASE("a host function that checks cudaGetLastError and throws after a fault still gets the fault as its verdict") {
    if (!emulator_built()) return;
    // The usual CUDA_CHECK idiom: the fault is the cause, the exception only its echo.
    // (<stdexcept> included, as nvcc needs it too: attnlab's headers do not bring it.)
    const CheckResult r = env().check_text(program("#include <stdexcept>\n",
                                                   "    volatile float v = x[src];\n"
                                                   "    if (i < n) out[i] = v;\n",
                                                   kLaunch64 +
                                                       "    const cudaError_t err = cudaGetLastError();\n"
                                                       "    if (err != cudaSuccess) throw std::runtime_error(cudaGetErrorString(err));\n"));
    CHECK(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
    CHECK(contains(explain(r, env().ex(), Lang::En), "split_kernel"));
    // Without a fault, an exception is the learner's own runtime error, as before.
    const CheckResult thrown = env().check_text(program("#include <stdexcept>\n", "    if (i < n) out[i] = x[src];\n",
                                                        kLaunch64 + "    throw std::runtime_error(\"mine\");\n"));
    CHECK(thrown.verdict == Verdict::RuntimeError);
}

TEST_CASE("cases split between two programs: an exit in one case is its verdict, the other program's cases still count, all output kept") {
    if (!emulator_built()) return;
    // fx-cuda-split's cases: T = 3, T = 1, T = 20; the T = 20 case is most of the
    // work, so with two cores it runs in a program of its own (case_groups).
    const CheckResult r = env().check_text(program("#include <cstdlib>\n", "    if (i < n) out[i] = x[src];\n",
                                                   "    printf(\"case T=%d\\n\", T);\n"
                                                   "    if (T == 1) exit(3);\n" + kLaunch64));
    CHECK(r.verdict != Verdict::Pass);
    CHECK(r.failed_case == 1);
    REQUIRE(r.cases.size() == 3);
    CHECK(r.cases[0].verdict == Verdict::Pass);
    CHECK(r.cases[1].verdict != Verdict::Pass);
    // One core: one program, which stopped at case 1 before case 2 began.
    CHECK(r.cases[2].verdict == (std::thread::hardware_concurrency() >= 2 ? Verdict::Pass : Verdict::NotRun));
    CHECK(contains(r.stdout_text, "case T=3"));
    CHECK(contains(r.stdout_text, "case T=1"));
    if (std::thread::hardware_concurrency() >= 2) CHECK(contains(r.stdout_text, "case T=20"));
    // The same file without the exit passes as one check, whichever program ran which case.
    const CheckResult fine = env().check_text(program("", "    if (i < n) out[i] = x[src];\n", "    printf(\"case T=%d\\n\", T);\n" + kLaunch64));
    CHECK(fine.verdict == Verdict::Pass);
    CHECK(contains(fine.stdout_text, "case T=20"));
}

TEST_CASE("a host function cannot fill out itself: device memory is the kernels' (as on a GPU)") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_text(
        "#include <attnlab/cuda.hpp>\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
        "    for (int64_t i = 0; i < out.numel(); ++i) out.data()[i] = 0.f;\n"
        "}\n");
    REQUIRE(r.verdict == Verdict::RuntimeError);
    const std::string en = explain(r, env().ex(), Lang::En);
    CHECK(contains(en, "host function read or wrote device memory"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "memori device"));
}

TEST_CASE("the intrinsics learners reach for (__ldg, __fmaf_rn, __popc, __threadfence) compile and run on the emulator") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_text(program_with_kernel(
        "    if (i >= n) return;\n" + kSource +
        "    __threadfence();\n"
        "    out[i] = __fmaf_rn(__ldg(x + src), 1.0f, 0.0f) + float(__popc(0u)) + float(__float2int_rn(0.4f));\n"));
    CAPTURE(explain(r, env().ex(), Lang::En));
    CHECK(r.verdict == Verdict::Pass);
}

TEST_CASE("exit(1) in a CUDA_CHECK-style macro after a fault still reports the fault (not \"exited early\")") {
    if (!emulator_built()) return;
    const std::string source =
        "#include <attnlab/cuda.hpp>\n"
        "#include <cstdio>\n"
        "#include <cstdlib>\n"
        "#define CUDA_CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { std::printf(\"%s\\n\", cudaGetErrorString(e)); std::exit(1); } } while (0)\n"
        "__global__ void k(dev_ptr<float> out, int n) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    out[i] = 0.f;\n"  // no bound: the threads past n write out of bounds
        "}\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
        "    k<<<1, 128>>>(out.data(), out.numel());\n"
        "    CUDA_CHECK(cudaGetLastError());\n"
        "}\n";
    const CheckResult r = env().check_text(source);
    CAPTURE(explain(r, env().ex(), Lang::En));
    CHECK(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
    CHECK(r.failed_case == 0);
    // An exit(1) with no fault before it stays what it is: the program ended early.
    const CheckResult plain = env().check_text(
        "#include <attnlab/cuda.hpp>\n#include <cstdlib>\n"
        "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) { std::exit(1); }\n");
    CHECK(plain.verdict != Verdict::KernelFault);
    CHECK(plain.verdict != Verdict::Pass);
}
