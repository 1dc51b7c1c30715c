// <attnlab/cuda.hpp> is one header for the three compilers a learner's .cu
// meets: the emulator's host compiler (every check), NVRTC (the resource
// report) and nvcc (a real GPU). One file of the course is compiled all three
// ways here, as it is and with the names no course file uses yet (a
// DeviceTensor temporary, dev_ptr<T>), so a name that one part of the header
// lacks fails here, not in a learner's hands.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/emu/cuda_source.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/nvrtc_headers.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/nvrtc/library.hpp"
#include "test_support.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

struct Env {
    attnlab::testing::TempDir cache{"cuda-header"};
    Course course = load_course(InstallLayout::current().course_dir);
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
    const Exercise& ex() const {
        const Exercise* e = course.find("cuda-qkv-gemm");
        REQUIRE(e != nullptr);
        return *e;
    }
};

Env& env() {
    static Env e;
    return e;
}

std::string course_solution() { return *read_file(env().ex().dir / "solution.cu"); }

// The same solution with the rest of what the header offers every compiler:
// a temporary made and released by host code, its rank and size, and dev_ptr.
std::string solution_with_every_name() {
    std::string source = course_solution();
    const std::string launch = "    qkv_gemm_kernel<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D);\n";
    const size_t at = source.find(launch);
    REQUIRE(at != std::string::npos);
    source.replace(at, launch.size(),
                   "    DeviceTensor scratch(\"scratch\", {T, 3 * D});\n"
                   "    if (scratch.rank() != 2 || scratch.size(1) != 3 * D || scratch.numel() != T * 3 * D) return;\n"
                   "    dev_ptr<float> destination = out.data();\n"
                   "    qkv_gemm_kernel<<<grid, block>>>(destination, x.data(), w_qkv.data(), T, D);\n");
    return source;
}

struct Source {
    const char* what;
    std::string text;
};

std::vector<Source> sources() { return {{"the course's solution", course_solution()}, {"with every name", solution_with_every_name()}}; }

}  // namespace

TEST_CASE("NVRTC's <attnlab/cuda.hpp> is the learner's header, byte for byte") {
    const std::optional<std::string> header = read_file(env().compiler.toolchain().include_dir / "attnlab" / "cuda.hpp");
    REQUIRE(header.has_value());
    CHECK(nvrtc_prelude() == *header);
}

TEST_CASE("one learner file, the emulator: a check passes") {
    if (const std::string problem = env().compiler.toolchain().problem(Runtime::Cuda); !problem.empty()) {
        MESSAGE("no CUDA emulator in this build (" << problem << "): not tested");
        return;
    }
    for (const Source& s : sources()) {
        CAPTURE(s.what);
        const CheckResult r = env().runner.check_source(env().ex(), s.text, "solution.cu");
        CAPTURE(r.compiler_output);
        CHECK(r.verdict == Verdict::Pass);
    }
}

TEST_CASE("one learner file, NVRTC: the resource report names its kernel and its shared tiles") {
    const nvrtc::Library lib = nvrtc::Library::open();
    if (!lib.loaded()) {
        MESSAGE("no libnvrtc here (" << lib.problem() << "): not tested");
        return;
    }
    attnlab::testing::TempDir work("cuda-header-nvrtc");
    for (const Source& s : sources()) {
        CAPTURE(s.what);
        const ResourceReport r = compile_resources(cuda_source::for_nvrtc(s.text), "solution.cu",
                                                   {{"attnlab/cuda.hpp", nvrtc_prelude()}}, "sm_80", work.path(), nullptr);
        CAPTURE(r.log);
        REQUIRE(r.status == ResourceReport::Status::Ok);
        REQUIRE(r.kernels.size() == 1);
        CHECK(r.kernels[0].kernel == "qkv_gemm_kernel");
        CHECK(r.kernels[0].shared_bytes == 2 * 16 * 16 * 4);  // xs and ws: two 16 x 16 float tiles
    }
}

TEST_CASE("one learner file, nvcc: compiled and linked with the GPU runtime for sm_80") {
    if (const std::string problem = env().compiler.toolchain().gpu_problem(); !problem.empty()) {
        MESSAGE("no nvcc in this build (" << problem << "): not tested");
        return;
    }
    for (const Source& s : sources()) {
        CAPTURE(s.what);
        const CompileOutput co = env().compiler.compile_gpu(env().ex(), s.text, "solution.cu", "sm_80", nullptr);
        CAPTURE(co.raw_output);
        CHECK(co.ok);
        CHECK(fs::exists(co.binary));
    }
}
