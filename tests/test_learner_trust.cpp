// A verdict the learner's code cannot forge (issue 30): attacks on attnlab's
// harness from inside a learner's .cu (tests/fixtures/cuda-course/
// fx-cuda-attention/attacks), refused before linking or stopped at run time,
// each named in both languages; and faults that used to end the program with
// std::terminate (SIGABRT), each now a verdict with the learner's line.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/report.hpp"
#include "cuda_check_env.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::first_fault;
namespace fs = std::filesystem;

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"learner-trust", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-attention"};
    return e;
}

bool emulator_built() {
    if (env().emulator_built()) return true;
    MESSAGE("skipped: no CUDA emulator in this build");
    return false;
}

// What the verdict says, in both languages, with the check's facts for a failure message.
struct Words {
    std::string en, id;
};
Words words(const CheckResult& r) {
    Words w{explain(r, env().ex(), Lang::En), explain(r, env().ex(), Lang::Id)};
    INFO("en: " << w.en << "\nid: " << w.id);
    return w;
}

}  // namespace

TEST_CASE("a .cu that defines write() is not linked, and the message names write and the C library") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("attacks/defines_write.cu");
    REQUIRE(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::ObjectRefused);
    REQUIRE(r.object_problems.size() == 1);
    CHECK(r.object_problems[0].kind == ObjectProblemKind::LibraryName);
    CHECK(r.object_problems[0].symbol == "write");
    CHECK(r.object_problems[0].owner.rfind("libc.so", 0) == 0);
    const Words w = words(r);
    CHECK(contains(w.en, "`write`: libc.so"));
    CHECK(contains(w.en, "did not link it"));
    CHECK(contains(w.id, "`write`: libc.so"));
    CHECK(contains(w.id, "tidak menautkannya"));
    CHECK_FALSE(r.passed());
}

TEST_CASE("a .cu that defines a sanitizer hook is refused: the name is reserved") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("attacks/defines_sanitizer_hook.cu");
    REQUIRE(r.verdict == Verdict::CompileError);
    REQUIRE(r.object_problems.size() == 1);
    CHECK(r.object_problems[0].kind == ObjectProblemKind::ReservedName);
    CHECK(r.object_problems[0].symbol == "__tsan_write4");
    const Words w = words(r);
    CHECK(contains(w.en, "`__tsan_write4`: this name is reserved"));
    CHECK(contains(w.id, "`__tsan_write4`: nama ini dicadangkan"));
}

TEST_CASE("un-instrumented functions are refused by name: host stores behind a dummy kernel, a race in a helper") {
    if (!emulator_built()) return;
    const CheckResult stores = env().check("attacks/hidden_host_stores.cu");
    REQUIRE(stores.verdict == Verdict::CompileError);
    REQUIRE(stores.object_problems.size() == 1);
    CHECK(stores.object_problems[0].kind == ObjectProblemKind::NotInstrumented);
    CHECK(contains(words(stores).en, "`store_behind_its_back(float*, int)`: this function was compiled without the emulator's instrumentation"));
    CHECK(contains(words(stores).id, "`store_behind_its_back(float*, int)`: fungsi ini dikompilasi tanpa instrumentasi"));

    const CheckResult race = env().check("attacks/hidden_shared_race.cu");
    REQUIRE(race.verdict == Verdict::CompileError);
    std::string names;
    for (const ObjectProblem& p : race.object_problems) names += object_problem_text(p, Lang::En) + "\n";
    INFO(names);
    CHECK(contains(names, "`publish(float*, float)`"));
    CHECK(contains(names, "`neighbour(float const*)`"));
}

TEST_CASE("host memcpy into a device buffer after a dummy kernel: the page is closed to the host, the case says so") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("attacks/host_memcpy_after_dummy_kernel.cu");
    REQUIRE(r.verdict == Verdict::RuntimeError);
    REQUIRE(r.failed_case == 0);
    CHECK(r.cases[0].exception_type == "attnlab::emu::HostAccessError");
    const Words w = words(r);
    CHECK(contains(w.en, "your host function read or wrote device memory directly"));
    CHECK(contains(w.en, "device buffer 'out'"));
    CHECK_FALSE(r.passed());
}

TEST_CASE("a named fixed-size __shared__ array indexed past its end: memcheck with the thread and line, in one warp and in many") {
    if (!emulator_built()) return;
    struct Row {
        const char* file;
        int line;
        const char* array;
    } rows[] = {{"wrong/shared_tile_out_of_bounds.cu", 25, "'float [32]'"}, {"wrong/warp_tiles_out_of_bounds.cu", 14, "'float [32]'"}};
    for (const Row& row : rows) {
        CAPTURE(row.file);
        const CheckResult r = env().check(row.file);
        REQUIRE(r.verdict == Verdict::KernelFault);  // never a SIGABRT from std::terminate
        CHECK(r.cause.code() == "out_of_bounds");
        const emu::Fault& f = first_fault(r);
        CHECK(f.line == row.line);
        const Words w = words(r);
        CHECK(contains(w.en, "line " + std::to_string(row.line)));
        CHECK(contains(w.en, "used index 32 of an array of type " + std::string(row.array)));
        CHECK(contains(w.id, "memakai indeks 32"));
        CHECK_FALSE(contains(r.stderr_text, "terminate called"));
    }
}

TEST_CASE("a barrier in a divergent branch of a larger kernel: synccheck names who waits where") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/barrier_in_branch.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "barrier_divergence");
    CHECK_FALSE(contains(r.stderr_text, "terminate called"));
    const Words w = words(r);
    CHECK(contains(w.en, "line 22"));  // the __syncthreads() in the noexcept helper
}

TEST_CASE("__launch_bounds__(64) launched with 128 threads: refused as a GPU refuses it, naming the launch and the bound") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/launch_bounds_exceeded.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "invalid_launch");
    const emu::Fault& f = first_fault(r);
    CHECK(f.detail == "launch_bounds_exceeded");
    CHECK(f.size == 128);
    CHECK(f.index == 64);
    CHECK(f.line == 38);        // the launch
    CHECK(f.other_line == 14);  // the kernel's __launch_bounds__
    const Words w = words(r);
    CHECK(contains(w.en, "on line 38"));
    CHECK(contains(w.en, "__launch_bounds__(64)"));
    CHECK(contains(w.en, "cudaErrorLaunchOutOfResources"));
    CHECK(contains(w.id, "__launch_bounds__(64)"));
    // Within the bound it runs and passes.
    std::string source = read_file(env().ex().dir / "wrong/launch_bounds_exceeded.cu").value();
    const size_t at = source.find("dim3 block(128)");
    REQUIRE(at != std::string::npos);
    source.replace(at, 15, "dim3 block(64) ");
    CHECK(env().check_source(source).verdict == Verdict::Pass);
}

TEST_CASE("a refused launch names the learner's launch line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/no_shared_opt_in.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    const emu::Fault& f = first_fault(r);
    CHECK(f.kind == emu::FaultKind::InvalidLaunch);
    CHECK(f.line > 0);
    CHECK(contains(words(r).en, "on line " + std::to_string(f.line)));
}
