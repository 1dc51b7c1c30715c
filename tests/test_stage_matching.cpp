// Automatic stages, attnlab's side: the learner's recorded tensors placed
// among the reference's stages by shape and value (check/stage_matching),
// what the Stages view then says (views/stages_view) — never that a stage
// nobody recorded matches — and the real course checked without a probe():
// a causal-mhsa scaled by √D names the scores from the learner's own line.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/mistakes.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/check/stage_matching.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/views/stages_view.hpp"
#include "attnlab/core/views/visuals.hpp"
#include "course_support.hpp"
#include "test_support.hpp"

using namespace attnlab;

namespace {

const fs::path kStages = fs::path(ATTNLAB_TEST_FIXTURES) / "stages";

TensorData tensor(Shape shape, std::vector<float> data) { return TensorData(std::move(shape), std::move(data)); }

RecordedTensor recorded(int line, TensorOp op, TensorData t) { return {line, op, std::move(t)}; }

const PlacedStage* placed(const std::vector<PlacedStage>& list, const std::string& stage) {
    for (const PlacedStage& p : list)
        if (p.stage == stage) return &p;
    return nullptr;
}

// The line of `file` that computes `stage` (the marker "// @stage" ends it, in the
// fixtures of tests/fixtures/stages), and of the course's scale_sqrt_d.cpp by its code.
int marked_line(const fs::path& file, const std::string& stage) {
    int n = attnlab::testing::line_containing(file, "// @" + stage);
    for (const auto& [name, code] : attnlab::testing::causal_mhsa_stage_code())
        if (name == stage && file.filename() == "scale_sqrt_d.cpp") n = attnlab::testing::line_containing(file, code);
    if (n == 0) FAIL("no line of " << file << " computes " << stage);
    return n;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// One runner on the real course for the file (a learner's session).
struct CourseRunner {
    attnlab::testing::TempDir cache{"stages"};
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
    CheckResult check(const std::string& exercise, const fs::path& file) {
        return runner.check_source(attnlab::testing::exercise(exercise), slurp(file), file.filename().string(), {});
    }
};

CourseRunner& course_runner() {
    static CourseRunner r;
    return r;
}

}  // namespace

// ---- placing recorded tensors ------------------------------------------------------------------

TEST_CASE("stage matching: a recorded tensor is the stage whose shape and values it has, within the tolerance") {
    const std::vector<NamedTensor> reference = {{"scores", tensor({1, 2, 2}, {1, 2, 3, 4})},
                                                {"weights", tensor({1, 2, 2}, {1, 0, 0.25f, 0.75f})}};
    const std::vector<RecordedTensor> mine = {recorded(3, TensorOp::Matmul, tensor({2, 2}, {1, 2, 3, 4})),           // right values, wrong shape
                                              recorded(5, TensorOp::Matmul, tensor({1, 2, 2}, {1, 2, 3, 4.00001f})),  // the scores
                                              recorded(9, TensorOp::Writes, tensor({1, 2, 2}, {1, 0, 0.3f, 0.7f}))};  // not the weights
    const std::vector<PlacedStage> p = place_stages(mine, reference, nullptr, Tolerance{1e-4, 1e-4, ""});
    REQUIRE(p.size() == 1);
    CHECK(p[0].stage == "scores");
    CHECK(p[0].record == 1);
    CHECK(p[0].matches);
}

TEST_CASE("stage matching: through the named mistake's own stages, a wrong tensor is placed as not matching") {
    const std::vector<NamedTensor> reference = {{"Q", tensor({2}, {1, 2})}, {"scores", tensor({2}, {10, 20})}};
    const std::vector<NamedTensor> mistaken = {{"Q", tensor({2}, {1, 2})}, {"scores", tensor({2}, {5, 10})}};
    const std::vector<RecordedTensor> mine = {recorded(4, TensorOp::Matmul, tensor({2}, {1, 2})), recorded(8, TensorOp::Divide, tensor({2}, {5, 10}))};
    const Tolerance tol{1e-5, 1e-4, ""};
    CHECK(place_stages(mine, reference, nullptr, tol).size() == 1);  // without the mistake: only Q
    const std::vector<PlacedStage> p = place_stages(mine, reference, &mistaken, tol);
    REQUIRE(p.size() == 2);
    CHECK(p[0].stage == "Q");
    CHECK(p[0].matches);
    CHECK(p[1].stage == "scores");
    CHECK(p[1].record == 1);
    CHECK_FALSE(p[1].matches);
}

TEST_CASE("stage matching: equal stages go to the tensors in the order they were made") {
    // Identity weights: Q, K and V hold the same numbers; lines 3, 4, 5 made them in that order.
    const TensorData same = tensor({2, 2}, {1, 0, 0, 1});
    const std::vector<NamedTensor> reference = {{"Q", same}, {"K", same}, {"V", same}};
    const std::vector<RecordedTensor> mine = {recorded(3, TensorOp::Matmul, same), recorded(4, TensorOp::Matmul, same),
                                              recorded(5, TensorOp::Matmul, same)};
    const std::vector<PlacedStage> p = place_stages(mine, reference, nullptr, Tolerance{});
    REQUIRE(p.size() == 3);
    for (size_t i = 0; i < 3; ++i) CHECK(p[i].record == i);
    // One tensor for two equal stages (a single token's scores and masked scores): both placed on it.
    const std::vector<PlacedStage> one = place_stages({mine[0]}, {{"scores", same}, {"masked", same}}, nullptr, Tolerance{});
    REQUIRE(one.size() == 2);
    CHECK(one[1].record == 0);
}

// ---- what the Stages view says -------------------------------------------------------------------

namespace {

// A failing case of a three-stage op where only the first and last stages are the learner's.
CaseOutcome partly_recorded_case() {
    CaseOutcome c;
    c.index = 0;
    c.verdict = Verdict::WrongAnswer;
    c.stages = {{"scores", tensor({1, 2, 2}, {1, 2, 3, 4})},
                {"masked", tensor({1, 2, 2}, {1, -INFINITY, 3, 4})},
                {"weights", tensor({1, 2, 2}, {1, 0, 0.25f, 0.75f})}};
    c.expected = Value::of_tensor(c.stages.back().tensor);
    c.actual = Value::of_tensor(tensor({1, 2, 2}, {1, 0, 0.5f, 0.5f}));
    c.recorded = {recorded(12, TensorOp::Matmul, c.stages[0].tensor)};
    c.placed = {{"scores", 0, true}};
    return c;
}

}  // namespace

TEST_CASE("stages view: the named stage is the learner's tensor from its line; before it, only what was recorded") {
    CaseOutcome c = partly_recorded_case();
    c.recorded.push_back(recorded(20, TensorOp::Writes, tensor({1, 2, 2}, {1, 0, 0.5f, 0.5f})));
    c.placed.push_back({"weights", 1, false});  // placed through a named mistake
    CheckResult r;
    r.verdict = Verdict::WrongAnswer;
    r.failed_case = 0;
    r.mistake = MistakeMatch{"some_mistake", "weights", {}, {}};
    r.cases = {c};
    const std::vector<StageComparison> stages = compare_stages(c, Tolerance{});
    const StagesHeadline h = stages_headline(Exercise{}, r, c, stages);
    CHECK(h.named_stage == "weights");
    CHECK(h.named_by_mistake);
    REQUIRE(h.yours >= 0);
    const StageComparison& yours = stages[static_cast<size_t>(h.yours)];
    CHECK(yours.name == "weights");
    CHECK(yours.from_record);
    CHECK(yours.line == 20);
    CHECK(yours.status == StageStatus::Mismatch);
    // Before it: the scores (recorded, line 12) match; the masked scores were never recorded and are said to be so.
    REQUIRE(h.matching_before.size() == 1);
    CHECK(stages[static_cast<size_t>(h.matching_before[0])].name == "scores");
    CHECK(stages[static_cast<size_t>(h.matching_before[0])].line == 12);
    REQUIRE(h.unrecorded_before.size() == 1);
    CHECK(stages[static_cast<size_t>(h.unrecorded_before[0])].name == "masked");
}

TEST_CASE("stages view: a difference located from the output alone is named, and nothing unrecorded before it is claimed to match") {
    // The Results tab's stage for a wrong answer no mistake explains: the
    // located one. Only the return value is the learner's (no records, no
    // probes): the view names the stage, claims no match for scores or masked.
    CaseOutcome c = partly_recorded_case();
    c.recorded.clear();
    c.placed.clear();
    CheckResult r;
    r.verdict = Verdict::WrongAnswer;
    r.failed_case = 0;
    r.difference = DifferenceLocation{"masked", 0, -1, false};
    r.cases = {c};
    const std::vector<StageComparison> stages = compare_stages(c, Tolerance{});
    const StagesHeadline h = stages_headline(Exercise{}, r, c, stages);
    CHECK(h.named_stage == locate_difference(Exercise{}, r).stage);  // the Results tab's stage
    CHECK(h.named_stage == "masked");
    CHECK(h.yours == -1);  // none of the learner's tensors is the masked scores
    CHECK(h.matching_before.empty());
    REQUIRE(h.unrecorded_before.size() == 1);
    CHECK(stages[static_cast<size_t>(h.unrecorded_before[0])].name == "scores");
    CHECK(h.recorded == 1);  // the return value, as the weights
}

TEST_CASE("stages view: a pass with some stages recorded says how many, and names no stage") {
    CaseOutcome c = partly_recorded_case();
    c.verdict = Verdict::Pass;
    c.actual = c.expected;
    CheckResult r;
    r.verdict = Verdict::Pass;
    r.cases = {c};
    const std::vector<StageComparison> stages = compare_stages(c, Tolerance{});
    const StagesHeadline h = stages_headline(Exercise{}, r, c, stages);
    CHECK(h.named_stage.empty());
    CHECK(h.yours == -1);
    CHECK(h.recorded == 2);  // the scores (recorded) and the weights (the return value)
    CHECK(h.total == 3);
}

// ---- the real course, no probe() ---------------------------------------------------------------

TEST_CASE("automatic stages: causal-mhsa scaled by sqrt(D) without a probe names the scores from the learner's line") {
    const fs::path file = attnlab::testing::kCourse / "causal-mhsa" / "wrong" / "scale_sqrt_d.cpp";  // no probe() in it
    const CheckResult r = course_runner().check("causal-mhsa", file);
    REQUIRE(r.verdict == Verdict::WrongAnswer);
    REQUIRE(r.mistake);
    CHECK(r.mistake->id == "scale_sqrt_d");
    CHECK(r.mistake->stage == "scores");
    REQUIRE(r.failed_case >= 0);
    const CaseOutcome& c = r.cases[static_cast<size_t>(r.failed_case)];
    CHECK(c.probes.empty());
    CHECK(c.recorded_dropped == 0);

    // Every stage placed, from the line that made it: Q, K, V match; from the scores on, they differ.
    for (const char* stage : {"Q", "K", "V", "scores", "masked", "weights", "heads", "concat", "out"}) {
        INFO(stage);
        const PlacedStage* p = placed(c.placed, stage);
        REQUIRE(p != nullptr);
        CHECK(c.recorded[p->record].line == marked_line(file, stage));
        const bool before_scores = std::string(stage) == "Q" || std::string(stage) == "K" || std::string(stage) == "V";
        CHECK(p->matches == before_scores);
    }

    // The Stages view: the verdict's stage, the learner's tensor from its line, differing.
    const std::vector<StageComparison> stages = compare_stages(c, attnlab::testing::exercise("causal-mhsa").tolerance);
    const StagesHeadline h = stages_headline(attnlab::testing::exercise("causal-mhsa"), r, c, stages);
    CHECK(h.named_stage == "scores");
    REQUIRE(h.yours >= 0);
    const StageComparison& scores = stages[static_cast<size_t>(h.yours)];
    CHECK(scores.name == "scores");
    CHECK(scores.from_record);
    CHECK(scores.line == marked_line(file, "scores"));
    CHECK(scores.status == StageStatus::Mismatch);
    CHECK(h.matching_before.size() == 3);
    CHECK(h.unrecorded_before.empty());

    // The heatmaps get a column of the learner's for the (H, T, T) stages, with the line.
    const auto set = build_heatmaps(c, "scores");
    REQUIRE(set);
    CHECK_FALSE(set->learner.empty());
    CHECK(set->learner_line == marked_line(file, "scores"));

    // The verdict's words say the line too, in both languages.
    const std::string line = std::to_string(marked_line(file, "scores"));
    CHECK(explain_detail(r, attnlab::testing::exercise("causal-mhsa"), Lang::En).find("tensor from line " + line) != std::string::npos);
    CHECK(explain_detail(r, attnlab::testing::exercise("causal-mhsa"), Lang::Id).find("baris kode " + line) != std::string::npos);
}

TEST_CASE("automatic stages: a buffer turned into scores, masked and weights in place is recorded at each stage, from its loop's line") {
    const fs::path file = kStages / "mhsa_in_place.cpp";
    const CheckResult r = course_runner().check("causal-mhsa", file);
    REQUIRE(r.verdict == Verdict::Pass);
    for (const CaseOutcome& c : r.cases) {
        INFO("case " << c.index);
        for (const char* stage : {"scores", "masked", "weights", "concat", "out"}) {
            INFO(stage);
            const PlacedStage* p = placed(c.placed, stage);
            REQUIRE(p != nullptr);
            CHECK(p->matches);
            // One token: its masked scores are its scores (nothing to hide), both placed on that tensor.
            if (std::string(stage) != "masked" || c.recorded[p->record].line == marked_line(file, "masked"))
                CHECK(c.recorded[p->record].line == marked_line(file, stage));
        }
        const std::vector<StageComparison> stages = compare_stages(c, attnlab::testing::exercise("causal-mhsa").tolerance);
        for (const StageComparison& s : stages) CHECK(s.status != StageStatus::Mismatch);
    }
}
