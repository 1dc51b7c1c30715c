// The Kernel view's roofline (panel_roofline.cpp), drawn headlessly after a
// real check of the course's cuda-attention solution: the section, the plot,
// the GPU selector and the assumptions are there, in both languages, and the
// figures it plots are the core's (check_performance), never its own.
#include <doctest/doctest.h>

#include <string>

#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/check/performance.hpp"
#include "gui_harness.hpp"

using namespace attnlab;
using attnlab::testing::slurp;
namespace fs = std::filesystem;

namespace {
const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;
const fs::path kCourse = (kFixtures / ".." / ".." / "exercises").lexically_normal();

// The window after a passing check of the course's own solution, and the core's report of it.
struct CheckedSolution {
    testing::Harness h;
    Performance perf;
    explicit CheckedSolution(const std::string& exercise)
        : h(testing::HarnessConfig{kCourse, exercise, ImVec2(1800, 1600), nullptr}) {
        h.set_buffer(slurp(kCourse / exercise / "solution.cu"));
        h.click("run");
        REQUIRE(h.wait_result(240.0));
        const CheckResult* r = h.session.last_result();
        REQUIRE(r);
        REQUIRE(r->verdict == Verdict::Pass);
        const std::optional<Performance> p = check_performance(*r, *h.session.current());
        REQUIRE(p);
        perf = *p;
        h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    }
};
}  // namespace

TEST_CASE("the Kernel view has a roofline of the learner's launch, an estimate with its assumptions, in both languages") {
    CheckedSolution checked("cuda-attention");
    testing::Harness& h = checked.h;
    const Performance* perf = &checked.perf;
    CHECK(perf->flops.has_value());
    for (Lang lang : {Lang::En, Lang::Id}) {
        h.session.set_lang(lang);
        h.frames(4);
        for (const char* name : {"kview_section:roofline", "roofline_gpu", "roofline_plot", "roofline_assumptions"})
            CHECK_MESSAGE(h.has(name), name);
    }
    // attnlab's own kernels at the case's shape: ready (a small shape runs at once), two points.
    const std::array<int, 4> shape = reference_shape(*h.session.current(), perf->case_index);
    const ReferencePoints refs = attention_reference_points(shape[0], shape[1], shape[2], shape[3]);
    CHECK(refs.ready);
    CHECK(refs.points.size() == 2);
    CHECK_FALSE(h.has("roofline_tensor_roof"));  // no launch used tensor cores: the FP32 roof alone
}

TEST_CASE("a tensor-core kernel is a point under the tensor cores' roof, not a launch without arithmetic") {
    CheckedSolution checked("cuda-tensor-core-qkv");
    testing::Harness& h = checked.h;
    REQUIRE(checked.perf.tensor_flops > 0);
    h.frames(4);
    CHECK(h.has("roofline_tensor_roof"));
    for (const LaunchPerformance& L : checked.perf.launches)
        if (L.tensor_flops > 0) CHECK_MESSAGE(h.has("roofline_point:" + L.kernel), L.kernel);
}

// Beat your v1 (panel_versions.cpp) on the fixture course: fx-cuda-sampled's
// earlier version is fx-cuda-split. Without the learner's own file there the
// section says so; with it, the button runs it on the roofline's case and
// the table and the roofline's points come from the session's comparison.
TEST_CASE("beat your v1: the learner's earlier kernel runs on this case, its counters beside this kernel's") {
    const fs::path course = kFixtures / "cuda-course";
    testing::Harness h(testing::HarnessConfig{course, "fx-cuda-sampled", ImVec2(1800, 1600), nullptr});
    h.set_buffer(slurp(course / "fx-cuda-sampled" / "solution.cu"));
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    REQUIRE(h.session.last_result()->verdict == Verdict::Pass);
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(4);
    REQUIRE(h.has("kview_section:versions"));
    CHECK(h.has("versions_no_own_work"));  // fx-cuda-split was never written: nothing of theirs to run
    CHECK_FALSE(h.has("versions_run"));

    // The learner's fx-cuda-split file, written as they would (the editor, saved).
    REQUIRE(h.session.open("fx-cuda-split"));
    h.set_buffer(slurp(course / "fx-cuda-split" / "wrong" / "uncoalesced.cu"));
    REQUIRE(h.session.save());
    REQUIRE(h.session.open("fx-cuda-sampled"));
    h.ui.scroll_to_versions = 4;  // the section is below the roofline: scrolled to, as a learner would
    h.frames(6);
    REQUIRE(h.has("versions_run"));
    h.click("versions_run");
    h.frames(2);
    REQUIRE(h.session.comparing());
    REQUIRE(h.wait_until([&] { return !h.session.comparing(); }, 240.0));
    REQUIRE(h.session.comparison() != nullptr);
    const VersionComparison& c = *h.session.comparison();
    CHECK(c.earlier_id == "fx-cuda-split");
    REQUIRE(c.before);
    REQUIRE(c.after);
    CHECK(c.before->counters.sectors_per_load_request() > c.after->counters.sectors_per_load_request());
    for (Lang lang : {Lang::En, Lang::Id}) {
        h.session.set_lang(lang);
        h.frames(4);
        CHECK(h.has("versions_table"));
        CHECK(h.has("versions_choice"));
        CHECK_FALSE(h.has("versions_outcome"));  // its values are right on this case
    }
    // A new check of the exercise clears the comparison: its figures were of the previous result.
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    h.frames(2);
    CHECK(h.session.comparison() == nullptr);
}
