// A CUDA exercise's file on a real GPU: nvcc compiles the learner's .cu
// against attnlab/cuda.hpp and the GPU runtime (no device needed for that), and where a
// device exists the check also runs it there and says how it did beside the
// emulator's verdict. Built only with nvcc (label cuda-nvcc).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "test_support.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

const fs::path kCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course";

struct Env {
    attnlab::testing::TempDir cache{"cuda-gpu"};
    Course course = load_course(kCourse);
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
    const Exercise& ex() const { return *course.find("fx-cuda-split"); }
};

std::string source_of(const Exercise& ex, const std::string& file) { return *read_file(ex.dir / file); }

}  // namespace

TEST_CASE("nvcc compiles a learner's .cu for the GPU unchanged, and reports its errors on the learner's lines") {
    Env env;
    REQUIRE(env.compiler.toolchain().gpu_problem() == "");
    for (const char* file : {"solution.cu", "right/two_d_grid.cu", "wrong/no_bounds_check.cu"}) {
        CAPTURE(file);
        const CompileOutput co = env.compiler.compile_gpu(env.ex(), source_of(env.ex(), file), file, "sm_90", nullptr);
        CAPTURE(co.raw_output);
        CHECK(co.ok);
        CHECK(fs::exists(co.binary));
    }
    std::string broken = source_of(env.ex(), "solution.cu");
    broken.replace(broken.find("out[i] = x["), 11, "out[i] = y[");
    const CompileOutput bad = env.compiler.compile_gpu(env.ex(), broken, "mine.cu", "sm_90", nullptr);
    CHECK_FALSE(bad.ok);
    CHECK(attnlab::testing::contains(bad.raw_output, "mine.cu(11)"));
}

TEST_CASE("a check runs the file on the GPU where there is one, and says so in both languages; nowhere else") {
    Env env;
    const CheckResult r = env.runner.check(env.ex(), env.ex().dir / "solution.cu");
    REQUIRE(r.verdict == Verdict::Pass);
    if (!kernels::gpu_available()) {
        CHECK_FALSE(r.gpu.has_value());
        CHECK(explain_gpu(r, Lang::En).empty());
        MESSAGE("no GPU here: the check ran on the emulator only");
        return;
    }
    REQUIRE(r.gpu.has_value());
    CAPTURE(r.gpu->detail);
    CHECK(r.gpu->status == GpuRunStatus::Ran);
    CHECK(r.gpu->agreeing == static_cast<int>(env.ex().cases.size()));
    CHECK(attnlab::testing::contains(explain_gpu(r, Lang::En), r.gpu->device));
    CHECK(explain_gpu(r, Lang::Id) != explain_gpu(r, Lang::En));
    // A kernel that leaves half of out unwritten is named on the GPU too.
    const CheckResult gap = env.runner.check(env.ex(), env.ex().dir / "wrong/grid_too_small.cu");
    REQUIRE(gap.gpu.has_value());
    CHECK(gap.gpu->cause.code() == "output_not_written");
}
