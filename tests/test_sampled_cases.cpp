// Sampled cases end to end (tests/fixtures/cuda-course/fx-cuda-sampled): a
// case marked "checked_blocks": "first_and_last" checks the grid's first and
// last block and runs the others on the unchecked copy the runner links
// beside the learner's object; the verdict says so. Bugs that appear only in
// the last block, and only when the element count is not a multiple of the
// block, are found on the small cases whatever the sampled one misses.
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/text/report.hpp"
#include "cuda_check_env.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
namespace fs = std::filesystem;

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"sampled-cases", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-sampled"};
    return e;
}

bool emulator_built() { return env().emulator_built(); }

// Blocks of a case's launches, in all and unchecked.
std::pair<int64_t, int64_t> blocks_of(const CaseOutcome& c) {
    int64_t all = 0, unchecked = 0;
    for (const emu::LaunchReport& L : c.kernels.launches) {
        all += L.counters.blocks;
        unchecked += L.counters.unchecked_blocks;
    }
    return {all, unchecked};
}

constexpr size_t kSampledCase = 2;  // B=2, T=256, D=64: 256 blocks of 128 threads

}  // namespace

TEST_CASE("the sampled case checks its first and last block, runs 254 unchecked, and the verdict says so") {
    if (!emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    REQUIRE(env().ex().cases.at(kSampledCase).sampled);
    const CheckResult r = env().check("solution.cu");
    REQUIRE(r.verdict == Verdict::Pass);
    REQUIRE(r.cases.size() == 3);
    CHECK(blocks_of(r.cases[kSampledCase]) == std::pair<int64_t, int64_t>{256, 254});
    CHECK(blocks_of(r.cases[1]) == std::pair<int64_t, int64_t>{3, 0});  // small cases check every block
    // The unchecked copy was built with its own precompiled header (its flags
    // leave out the bounds checks, which a header precompiled with them refuses).
    bool own_header = false;
    for (const auto& e : fs::recursive_directory_iterator(env().cache.path() / "pch"))
        own_header = own_header || (e.path().parent_path().filename() == "cuda-unchecked" && e.path().extension() == ".gch");
    CHECK(own_header);
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CAPTURE(en);
    CHECK(contains(en, "a sampled case: in each launch the grid's first and last block were checked"));
    CHECK(contains(en, "the other 254 ran an unchecked build of your file"));
    CHECK(contains(id, "kasus sampel"));
    CHECK(contains(id, "254 blok lainnya"));
    // The speed report's figures need every block's counters: a fully checked case.
    const std::optional<Performance> performance = check_performance(r, env().ex());
    REQUIRE(performance.has_value());
    CHECK(performance->case_index == 1);
}

TEST_CASE("a file with writable statics gets no unchecked copy: its sampled case checks every block and passes") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("right/writable_global.cu");
    REQUIRE(r.verdict == Verdict::Pass);
    CHECK(blocks_of(r.cases[kSampledCase]) == std::pair<int64_t, int64_t>{256, 0});
    CHECK(!contains(explain(r, env().ex(), Lang::En), "sampled case"));
}

TEST_CASE("bugs only in the last block when the count is not a multiple of the block: found on the small case") {
    if (!emulator_built()) return;
    const CheckResult oob = env().check("wrong/tail_out_of_bounds.cu");
    REQUIRE(oob.verdict == Verdict::KernelFault);
    CHECK(oob.cause.code() == "out_of_bounds");
    // Both small cases have a tail in their last block: 24 elements in one
    // block, 296 in three; the sampled one has 256 whole blocks, no tail to go wrong.
    CHECK(oob.failed_case == 0);
    CHECK(oob.cases[1].verdict == Verdict::KernelFault);
    CHECK(oob.cases[kSampledCase].verdict == Verdict::Pass);
    const CheckResult race = env().check("wrong/tail_wraps_into_first_block.cu");
    REQUIRE(race.verdict == Verdict::KernelFault);
    CHECK(race.cause.code() == "global_race");
    CHECK(race.cases[1].verdict == Verdict::KernelFault);
    CHECK(race.cases[kSampledCase].verdict == Verdict::Pass);
}

// Naming a mistake runs the reference's variants of the op on the cases; on
// a sampled case (T = 1024 and 12 heads in the course) that costs seconds per
// variant, so it is consulted only when no case checked whole failed.
TEST_CASE("a mistake shown by the cases checked whole is named without the sampled case") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/no_transpose_where_checked_whole.cu");
    REQUIRE(r.verdict == Verdict::WrongAnswer);
    CHECK(r.cases[kSampledCase].verdict == Verdict::Pass);  // right there, so no variant matches it
    REQUIRE(r.mistake.has_value());
    CHECK(r.mistake->id == "split_without_transpose");
}

TEST_CASE("dev check: the starter fails, the solution passes, every fixture gets its verdict") {
    if (!emulator_built()) return;
    const ExerciseCheck ec = check_exercise(env().runner, env().ex());
    for (const std::string& p : ec.problems) FAIL_CHECK(p);
    CHECK(ec.solution_verdict == "pass");
    for (const FixtureCheck& f : ec.fixtures) {
        CAPTURE(f.file);
        CAPTURE(f.verdict);
        CHECK(f.ok);
    }
}
