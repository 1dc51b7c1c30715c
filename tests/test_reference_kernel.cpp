// The CUDA column of a check: the reference op's kernel run beside the Eigen
// reference for every case (on the CPU emulator here, on a GPU when one is
// usable), cached per exercise and case, and a kernel that disagrees or
// faults reported as attnlab's own internal error, never the learner's.
#include <cstdlib>
#include <string>

#include <doctest/doctest.h>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/reference_kernel.hpp"
#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"

#ifdef ATTNLAB_HAVE_KERNELS
#include "attnlab/kernels/kernels.hpp"
#endif
#include "runner_seams.hpp"  // internal: what a test may change in a Runner

using namespace attnlab;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;

struct Env {
    fs::path cache;
    Course course = load_course(kFixtures / "course");
    std::unique_ptr<Compiler> compiler;
    Env() {
        std::string tmpl = (fs::temp_directory_path() / "attnlab-kcheck-XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        cache = tmpl;
        compiler = std::make_unique<Compiler>(Toolchain::detect(), cache);
    }
    ~Env() {
        std::error_code ec;
        fs::remove_all(cache, ec);
    }
    const Exercise& exercise(const std::string& id) {
        const Exercise* e = course.find(id);
        REQUIRE(e != nullptr);
        return *e;
    }
};

Env& env() {
    static Env e;
    return e;
}

CheckResult check(Runner& runner, const std::string& solution, const std::string& exercise = "fx-split") {
    const Exercise& ex = env().exercise(exercise);
    CheckResult r = runner.check(ex, kFixtures / "solutions" / solution);
    INFO("verdict: " << verdict_code(r.verdict) << "\n" << explain(r, ex, Lang::En));
    return r;
}

}  // namespace

TEST_CASE("an exercise whose reference op has no kernel has no CUDA column") {
    Runner runner(*env().compiler);
    const Exercise& params = env().exercise("fx-params");
    CHECK_FALSE(exercise_has_kernel(params));
    CheckResult r = runner.check(params, kFixtures / "course" / "fx-params" / "solution.cpp");
    REQUIRE_FALSE(r.cases.empty());
    for (const CaseOutcome& c : r.cases) CHECK_FALSE(c.reference_kernel.has_value());
    CHECK(explain_cuda(r, Lang::En).empty());
    CHECK_FALSE(to_json(r, params, Lang::En)["cases"][0].contains("cuda"));
}

#ifdef ATTNLAB_HAVE_KERNELS

TEST_CASE("a check of a kernel-backed exercise computes learner, reference and CUDA") {
    Runner runner(*env().compiler);
    const CheckResult r = check(runner, "correct.cpp");
    REQUIRE(r.verdict == Verdict::Pass);
    const KernelBackend backend = kernels::gpu_available() ? KernelBackend::Gpu : KernelBackend::Emulator;
    REQUIRE(r.cases.size() == env().exercise("fx-split").cases.size());
    for (const CaseOutcome& c : r.cases) {
        CAPTURE(c.index);
        REQUIRE(c.reference_kernel.has_value());
        CHECK(c.reference_kernel->backend == backend);
        CHECK_FALSE(c.reference_kernel->device.empty());
        CHECK(c.reference_kernel->ok);
        CHECK(c.reference_kernel->max_abs_error_vs_reference <= 1e-5);
        // The kernel's own output, shaped like the reference's, and its launches.
        REQUIRE(c.reference_kernel->output.kind == ValueKind::Tensor);
        CHECK(c.reference_kernel->output.tensor.shape == c.expected.tensor.shape);
        REQUIRE_FALSE(c.reference_kernel->launches.empty());
        CHECK(c.reference_kernel->launches.front().kernel.find("split_heads") != std::string::npos);
    }
    const std::string en = explain(r, env().exercise("fx-split"), Lang::En);
    CHECK(en.find(backend == KernelBackend::Gpu ? "CUDA: GPU" : "CUDA: CPU emulator — agrees with the Eigen reference") != std::string::npos);
}

TEST_CASE("a wrong learner answer is still the learner's, with the kernel agreeing") {
    Runner runner(*env().compiler);
    const CheckResult r = check(runner, "wrong_values.cpp");
    CHECK(r.verdict == Verdict::WrongAnswer);
    CHECK(r.problem == Problem::None);
    for (const CaseOutcome& c : r.cases) {
        REQUIRE(c.reference_kernel.has_value());
        CHECK(c.reference_kernel->ok);
    }
}

TEST_CASE("the kernel runs once per exercise and case, however often the learner checks") {
    Runner runner(*env().compiler);
    int computed = 0;
    seams_of(runner).kernel_outcome = [&](KernelOutcome&) { ++computed; };  // called only for a fresh kernel run
    const size_t cases = env().exercise("fx-split").cases.size();
    check(runner, "correct.cpp");
    CHECK(computed == static_cast<int>(cases));
    const CheckResult again = check(runner, "wrong_values.cpp");
    CHECK(computed == static_cast<int>(cases));
    for (const CaseOutcome& c : again.cases) CHECK(c.reference_kernel.has_value());
}

// The reference side is computed while the file compiles; a case that does
// not fit its reference op is still the whole report, whatever the compile
// said (the course's fault is never shown as the learner's compile error).
TEST_CASE("a case that does not fit its reference op is attnlab's error, even beside a compile error") {
    Runner runner(*env().compiler);
    Exercise ex = env().exercise("fx-split");
    REQUIRE(ex.cases.size() >= 2);
    ex.cases[1].args[0] = Value::of_tensor(TensorData({3}, {1, 2, 3}));  // a vector where a matrix is expected
    for (const char* file : {"correct.cpp", "compile_error.cpp"}) {
        CAPTURE(file);
        const CheckResult r = runner.check(ex, kFixtures / "solutions" / file);
        CHECK(r.verdict == Verdict::InternalError);
        CHECK(r.problem == Problem::CaseDoesNotFitReference);
        CHECK(r.problem_case == 1);
        CHECK(r.diagnostics.empty());
        for (const CaseOutcome& c : r.cases) CHECK(c.verdict == Verdict::NotRun);
    }
    // The fitting exercise checks as before with the same runner (nothing unfit was kept).
    CHECK(check(runner, "correct.cpp").verdict == Verdict::Pass);
}

TEST_CASE("a kernel that disagrees with the reference is an internal error of attnlab") {
    Runner runner(*env().compiler);
    // A broken kernel: its real output with one element off by 0.5.
    seams_of(runner).kernel_outcome = [](KernelOutcome& k) {
        if (k.output.kind == ValueKind::Tensor && !k.output.tensor.data.empty()) k.output.tensor.data[0] += 0.5f;
    };
    const Exercise& ex = env().exercise("fx-split");
    const CheckResult r = check(runner, "correct.cpp");
    CHECK(r.verdict == Verdict::InternalError);
    CHECK(r.problem == Problem::KernelDisagrees);
    CHECK(r.problem_case == 0);
    CHECK(r.detail.find("max |CUDA - Eigen| = 0.5") != std::string::npos);
    REQUIRE(r.cases[0].reference_kernel.has_value());
    CHECK_FALSE(r.cases[0].reference_kernel->ok);
    CHECK(r.cases[0].reference_kernel->max_abs_error_vs_reference == doctest::Approx(0.5));
    // Never blamed on the learner: no learner case verdict, and the words say whose fault it is.
    for (const CaseOutcome& c : r.cases) CHECK(c.verdict == Verdict::NotRun);
    const std::string en = explain(r, ex, Lang::En);
    CHECK(en.find("the CUDA kernel and the Eigen reference disagree") != std::string::npos);
    CHECK(en.find("not your code") != std::string::npos);
    const nlohmann::json j = to_json(r, ex, Lang::En);
    CHECK(j["verdict"] == "internal_error");
    CHECK(j["problem"]["code"] == "kernel_disagrees");
    CHECK(j["cases"][0]["cuda"]["ok"] == false);
}

TEST_CASE("a faulting kernel is an internal error worded in the learner's language") {
    Runner runner(*env().compiler);
    // The fault the emulator would report, described by the emulator itself.
    emu::Fault fault;
    fault.kind = emu::FaultKind::OutOfBounds;
    fault.block = {1, 0, 0};
    fault.thread = {3, 0, 0};
    fault.buffer = "out";
    fault.index = 40;
    fault.size = 32;
    fault.element_type = "float";
    fault.is_write = true;
    seams_of(runner).kernel_outcome = [&](KernelOutcome& k) {
        k.fault_code = emu::fault_code(fault.kind);
        k.fault = fault;
        k.output = Value{};
    };
    const CheckResult r = check(runner, "correct.cpp");
    CHECK(r.verdict == Verdict::InternalError);
    CHECK(r.problem == Problem::KernelFailed);
    CHECK(r.detail == "out_of_bounds");
    const std::string id = problem_text(r, Lang::Id);
    CHECK(id.find("kernel CUDA milik referensi") != std::string::npos);
    CHECK(id.find(describe_fault(fault, Lang::Id)) != std::string::npos);
    CHECK(problem_text(r, Lang::En).find(describe_fault(fault, Lang::En)) != std::string::npos);
}

TEST_CASE("a kernel whose intermediate stage is wrong disagrees, even when its output is right") {
    const TensorData right({2, 2}, {1, 0, 0.5f, 0.5f});
    const TensorData wrong({2, 2}, {1, 0, 0.9f, 0.1f});
    KernelOutcome k;
    k.backend = KernelBackend::Emulator;
    k.output = Value::of_tensor(right);
    k.stages = {{"weights", wrong}};
    const std::vector<NamedTensor> reference_stages = {{"weights", right}};
    judge_kernel(k, Value::of_tensor(right), Tolerance{}, &reference_stages);
    CHECK_FALSE(k.ok);
    CHECK(k.disagreeing_stage == "weights");
    CHECK(k.max_abs_error_vs_reference == doctest::Approx(0.4));
    const KernelProblem p = kernel_problem(k, Tolerance{});
    CHECK(p.problem == Problem::KernelDisagrees);
    CHECK(p.detail.find("stage weights") != std::string::npos);
    k.stages = {{"weights", right}};
    judge_kernel(k, Value::of_tensor(right), Tolerance{}, &reference_stages);
    CHECK(k.ok);
}

TEST_CASE("a kernel that refuses a case's inputs is an internal error, not a crash") {
    KernelOutcome k;
    k.backend = KernelBackend::Emulator;
    k.input_error = "x must be (T, D)";
    judge_kernel(k, Value::of_int(1), Tolerance{});
    CHECK_FALSE(k.ok);
    const KernelProblem p = kernel_problem(k, Tolerance{});
    CHECK(p.problem == Problem::KernelFailed);
    CHECK(p.detail == "x must be (T, D)");
}

TEST_CASE("every kernel-backed exercise of the real course: the kernel agrees with the reference on every case") {
    const Course course = load_course(kFixtures.parent_path().parent_path() / "exercises");
    int with_kernel = 0;
    for (const Exercise& ex : course.exercises) {
        if (!exercise_has_kernel(ex)) continue;
        ++with_kernel;
        for (const Case& c : ex.cases) {
            CAPTURE(ex.id);
            CAPTURE(c.name.en);
            Value expected;
            std::vector<NamedTensor> stages;
            compute_expected(ex, c, expected, stages);
            const std::optional<KernelOutcome> k = run_case_kernel(ex, c, expected, &stages);
            REQUIRE(k.has_value());
            CAPTURE(k->input_error);
            CAPTURE(describe_fault(k->fault, Lang::En));
            CHECK(k->ok);
            // The kernel's stages are named like the reference's.
            for (const NamedTensor& s : k->stages) {
                bool named = false;
                for (const NamedTensor& r : stages) named |= r.name == s.name && r.tensor.shape == s.tensor.shape;
                CHECK_MESSAGE(named, s.name);
            }
        }
    }
    CHECK(with_kernel > 0);
}

TEST_CASE("the Kernel view's data: sources, block roles and both layouts' counters") {
    const auto sources = kernel_source_files();
    REQUIRE_FALSE(sources.empty());
    bool attention = false;
    for (const auto& s : sources) attention |= s.file == "attention.cu" && s.text.find("__global__") != std::string::npos;
    CHECK(attention);
    const KernelBlockRole role = kernel_block_role("attention_v1", {5, 0, 0}, 2, 8);
    CHECK(role.batch == 2);
    CHECK(role.head == 1);
    CHECK(role.row_end == 8);
    // Every kernel whose source the view shows has its launch in words, in both languages.
    for (const char* kernel : {"split_heads_v1", "merge_heads_v1", "matmul_tiled_v1", "attention_v1", "attention_v2"}) {
        INFO(std::string(kernel));
        CHECK_FALSE(kernels::kernel_layout(kernel).file.empty());
        const std::string en = kernel_layout_text(kernel, Lang::En), id = kernel_layout_text(kernel, Lang::Id);
        CHECK_FALSE(en.empty());
        CHECK_FALSE(id.empty());
        CHECK(en != id);
    }
    CHECK(kernel_layout_text("no_such_kernel", Lang::En).empty());
    const LayoutCountersView& v = attention_layout_counters(1, 64, 4, 32);
    REQUIRE(v.available);
    CHECK(v.max_abs_difference <= 1e-6);
    // hd a multiple of 8: the same sectors per request, more pages without the transpose.
    CHECK(v.transposed.sectors_per_load_request == doctest::Approx(v.untransposed.sectors_per_load_request));
    CHECK(v.untransposed.global_pages > v.transposed.global_pages);
    CHECK(&attention_layout_counters(1, 64, 4, 32) == &v);  // cached
}

#else

TEST_CASE("without the kernels library there is no CUDA column") {
    MESSAGE("attnlab built without kernels (boost.context missing): CUDA column tests skipped");
    CHECK_FALSE(kernels_built());
}

#endif
