// Beat your v1 (core/check/kernel_versions.hpp, core/text/version_words.hpp):
// which earlier exercises are versions of one another (read from the schema,
// never from a name), the earlier exercise set up on one case of the current
// one, the side-by-side rows and their words, and the whole comparison on the
// fixture course (tests/fixtures/cuda-course: fx-cuda-sampled's earlier
// version is fx-cuda-split, the same split of heads).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "attnlab/core/check/kernel_versions.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/version_words.hpp"
#include "cuda_check_env.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
namespace fs = std::filesystem;

namespace {

const fs::path kCudaCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course";

std::vector<std::string> ids(const std::vector<const Exercise*>& exercises) {
    std::vector<std::string> out;
    for (const Exercise* e : exercises) out.push_back(e->id);
    return out;
}

VersionFigures figures(double seconds, int64_t bytes, std::optional<double> flops, double tensor_flops, int64_t load_requests,
                       int64_t load_sectors) {
    VersionFigures f;
    f.performance.bytes = bytes;
    f.performance.min_bytes = 1000;
    f.performance.traffic_ratio = double(bytes) / 1000;
    f.performance.flops = flops;
    if (flops) f.performance.intensity = *flops / double(bytes);
    f.performance.tensor_flops = tensor_flops;
    for (size_t g = 0; g < gpu_models().size(); ++g) {
        TimeEstimate e;
        e.seconds = seconds;
        e.dram_bytes = double(bytes) / 2;
        f.performance.estimates.push_back(e);
    }
    f.counters.global_load_requests = load_requests;
    f.counters.global_load_sectors = load_sectors;
    f.launches = 1;
    return f;
}

const VersionRow* row_of(const std::vector<VersionRow>& rows, const std::string& counter) {
    for (const VersionRow& r : rows)
        if (r.counter == counter) return &r;
    return nullptr;
}

}  // namespace

TEST_CASE("earlier versions: the exercises before this one with the same parameters, output and reference, in course order") {
    const Course course = load_course(kCudaCourse);
    REQUIRE(course.problems.empty());
    CHECK(ids(earlier_versions(course, *course.find("fx-cuda-sampled"))) == std::vector<std::string>{"fx-cuda-split"});
    CHECK(earlier_versions(course, *course.find("fx-cuda-split")).empty());      // the first of its operation
    CHECK(earlier_versions(course, *course.find("fx-cuda-attention")).empty());  // another operation
}

TEST_CASE("the shipped course: each attention kernel's versions are the attention kernels before it, each GEMM's the GEMMs") {
    const Course course = load_course(fs::path(ATTNLAB_TEST_FIXTURES).parent_path().parent_path() / "exercises");
    const std::vector<std::string> attention = {"cuda-attention", "cuda-attention-tiles", "cuda-online-softmax"};
    CHECK(ids(earlier_versions(course, *course.find("cuda-flash-attention"))) == attention);
    CHECK(ids(earlier_versions(course, *course.find("cuda-tensor-core-qkv"))) == std::vector<std::string>{"cuda-qkv-gemm", "cuda-register-tiled-gemm"});
    CHECK(earlier_versions(course, *course.find("cuda-attention")).empty());
    CHECK(earlier_versions(course, *course.find("causal-mhsa")).empty());  // C++: no launches to compare
}

TEST_CASE("same_kernel_interface: the entry's name is free; parameters, output, reference and runtime are not") {
    const Course course = load_course(kCudaCourse);
    const Exercise& base = *course.find("fx-cuda-split");
    struct Row {
        const char* what;
        void (*change)(Exercise&);
        bool same;
    };
    const Row rows[] = {
        {"another entry name", [](Exercise& e) { e.function = "split_heads_v2"; }, true},
        {"another reference op", [](Exercise& e) { e.reference = "batched_causal_attention"; }, false},
        {"no reference op", [](Exercise& e) { e.reference.clear(); }, false},
        {"a parameter renamed", [](Exercise& e) { e.params[0].name = "y"; }, false},
        {"a parameter's shape", [](Exercise& e) { e.params[0].shape = "(T, D)"; }, false},
        {"one more parameter", [](Exercise& e) { e.params.push_back(ParamSpec{"scale", ValueKind::Float, ""}); }, false},
        {"another output shape", [](Exercise& e) { e.output.shape = "(B, T, D)"; }, false},
        {"a C++ exercise", [](Exercise& e) { e.runtime = Runtime::Cpp; }, false},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        Exercise other = base;
        row.change(other);
        CHECK(same_kernel_interface(other, base) == row.same);
    }
}

TEST_CASE("version_on_case: the earlier exercise with one case of the current one, its limits and tolerance, no rules") {
    const Course course = load_course(kCudaCourse);
    const Exercise &earlier = *course.find("fx-cuda-split"), &current = *course.find("fx-cuda-sampled");
    REQUIRE(current.cases.size() == 3);
    const Exercise v = version_on_case(earlier, current, 1);
    CHECK(v.id == earlier.id);
    CHECK(v.function == earlier.function);  // the learner's earlier file defines the earlier entry
    REQUIRE(v.cases.size() == 1);
    CHECK(v.cases[0].name.get(Lang::En) == current.cases[1].name.get(Lang::En));
    CHECK(v.limits.cpu_seconds == current.limits.cpu_seconds);
    CHECK(v.kernel_rules.max_sectors_per_load_request == 0);  // earlier's rule (8) is not judged here
    CHECK(v.mistakes.empty());
    CHECK(v.fixtures.empty());
}

TEST_CASE("version_rows: both kernels' figures side by side, which side is better, rows neither run has left out") {
    const VersionFigures v1 = figures(4e-6, 64000, 1e6, 0, 800, 6400), now = figures(1e-6, 8000, 1e6, 0, 100, 400);
    const std::vector<VersionRow> rows = version_rows(v1, now, 0);
    struct Expect {
        const char* counter;
        double before, after;
        Better better;
    };
    const Expect expected[] = {
        {"estimated_time", 4e-6, 1e-6, Better::Lower},
        {"dram_bytes", 32000, 4000, Better::Lower},
        {"requested_bytes", 64000, 8000, Better::Lower},
        {"traffic_ratio", 64, 8, Better::Lower},
        {"intensity", 1e6 / 64000, 1e6 / 8000, Better::Higher},
        {"global_load_requests", 800, 100, Better::Lower},
        {"sectors_per_load_request", 8, 4, Better::Lower},
        {"launches", 1, 1, Better::Neither},
    };
    for (const Expect& e : expected) {
        CAPTURE(e.counter);
        const VersionRow* r = row_of(rows, e.counter);
        REQUIRE(r);
        CHECK(r->before == doctest::Approx(e.before));
        CHECK(r->after == doctest::Approx(e.after));
        CHECK(r->better == e.better);
    }
    CHECK_FALSE(row_of(rows, "tensor_flops"));  // two FP32 kernels
    CHECK_FALSE(row_of(version_rows(figures(1, 10, std::nullopt, 0, 1, 1), figures(1, 10, std::nullopt, 0, 1, 1), 0), "intensity"));
    CHECK(row_of(version_rows(v1, figures(1e-6, 8000, 1e6, 5e5, 100, 400), 0), "tensor_flops"));
}

TEST_CASE("version words: every row has a label in both languages, and better or worse is said, not only coloured") {
    const VersionFigures v1 = figures(4e-6, 64000, 1e6, 2e5, 800, 6400), now = figures(1e-6, 128000, 1e6, 5e5, 100, 400);
    for (Lang lang : {Lang::En, Lang::Id})
        for (const VersionRow& row : version_rows(v1, now, 0)) {
            CAPTURE(row.counter);
            CHECK(has_message(lang, "versions.row." + row.counter));
        }
    const std::vector<VersionRow> rows = version_rows(v1, now, 0);
    const VersionCells time = version_cells(*row_of(rows, "estimated_time"), "H100 SXM", Lang::En);
    CHECK(time.label == "estimated time (H100 SXM)");
    CHECK(time.direction == 1);
    CHECK(time.judgement == "better");
    CHECK(time.change == "×0.25");
    const VersionCells bytes = version_cells(*row_of(rows, "requested_bytes"), "H100 SXM", Lang::Id);
    CHECK(bytes.direction == -1);
    CHECK(bytes.judgement == "lebih buruk");
    CHECK(version_cells(*row_of(rows, "launches"), "", Lang::En).judgement.empty());
    VersionComparison c;
    c.before = v1;
    c.after = now;
    CHECK(describe_speedup(c, 0, Lang::En) == "Estimated 4.0× faster than your earlier kernel on " + gpu_models()[0].name + ".");
    std::swap(c.before, c.after);
    CHECK(contains(describe_speedup(c, 0, Lang::Id), "4,0× lebih lambat"));
}

// ---- the whole comparison, compiled and run on the emulator ---------------------------

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"kernel-versions", kCudaCourse, "fx-cuda-sampled"};
    return e;
}

// The learner's fx-cuda-split file `file` run on the case fx-cuda-sampled's
// solution has its speed report of.
VersionComparison compare_with_split(const std::string& file) {
    const CheckResult current = env().check("solution.cu");
    REQUIRE(current.verdict == Verdict::Pass);
    const std::optional<Performance> perf = check_performance(current, env().ex());
    REQUIRE(perf);
    const Exercise& earlier = *env().course.find("fx-cuda-split");
    const Exercise on_case = version_on_case(earlier, env().ex(), perf->case_index);
    CheckResult r = env().runner.check(on_case, earlier.dir / file);
    return compare_versions(env().ex(), current, on_case, std::move(r), perf->case_index);
}

}  // namespace

TEST_CASE("beat your v1: an uncoalesced earlier kernel beside a coalesced one, on the current exercise's case") {
    if (!env().emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    const VersionComparison c = compare_with_split("wrong/uncoalesced.cu");
    CHECK(c.case_index == 1);  // the largest case checked whole (the sampled one is not)
    CHECK(c.earlier_id == "fx-cuda-split");
    // Its values are right: only fx-cuda-split's rule (8 sectors per request at most) failed it, and no rule is judged here.
    CHECK(c.earlier_correct());
    REQUIRE(c.before);
    REQUIRE(c.after);
    const std::vector<VersionRow> rows = version_rows(*c.before, *c.after, 0);
    const VersionRow& spr = *row_of(rows, "sectors_per_load_request");
    CAPTURE(spr.before);
    CAPTURE(spr.after);
    CHECK(spr.before > 2 * spr.after);  // rows D floats apart against neighbouring floats
    CHECK(row_of(rows, "estimated_time")->before >= row_of(rows, "estimated_time")->after);
    CHECK(describe_earlier_outcome(c, "Split", Lang::En).empty());
    const std::string text = describe_version_comparison(c, "Split heads", 0, Lang::En);
    CAPTURE(text);
    CHECK(contains(text, "Your kernel for fx-cuda-split (“Split heads”) beside this one, on case 2:"));
    CHECK(contains(text, "sectors per load request"));
    CHECK(contains(describe_version_comparison(c, "Split heads", 0, Lang::Id), "sektor per permintaan load"));
}

TEST_CASE("beat your v1: an earlier kernel that is wrong on this case is shown as such") {
    if (!env().emulator_built()) return;
    const VersionComparison wrong = compare_with_split("wrong/no_transpose.cu");
    CHECK_FALSE(wrong.earlier_correct());
    REQUIRE(wrong.before);  // it ran to the end: figures, marked
    CHECK(contains(describe_earlier_outcome(wrong, "Split heads", Lang::En), "its values are wrong here. Wrong answer. Its figures"));
    const VersionComparison faulty = compare_with_split("wrong/no_bounds_check.cu");
    CHECK_FALSE(faulty.before);  // a fault: no figures of a launch that did not complete
    const std::string why = describe_earlier_outcome(faulty, "Split heads", Lang::En);
    CAPTURE(why);
    CHECK(contains(why, "Your fx-cuda-split kernel gives no figures on this case. CUDA kernel fault: memcheck: out-of-bounds access"));
}
