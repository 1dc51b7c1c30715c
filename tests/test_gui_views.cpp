// The GUI's view panels (heatmaps, stages, memory layout, experiments),
// driven headlessly as in test_gui.cpp — Dear ImGui without a backend, input
// simulated through io — against the REAL course's causal-mhsa exercise.
// Textures go to a fake uploader that counts uploads and releases.
#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include <doctest/doctest.h>
#include <stb_image.h>  // libstb, which the GUI links for its PNGs

#include "attnlab/core/check/performance.hpp"
#include "gui_harness.hpp"
#include "heatmap_picture.hpp"

using namespace attnlab;
using testing::contains;
using testing::slurp;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;
const fs::path kCourse = (kFixtures / ".." / ".." / "exercises").lexically_normal();

// Hands out distinct ids and remembers which are alive.
struct FakeTextures : gui::TextureUploader {
    int uploads = 0;
    int releases = 0;
    intptr_t next = 1;
    std::set<intptr_t> live;
    ImTextureID upload(int width, int height, const uint8_t* rgba) override {
        CHECK(width > 0);
        CHECK(height > 0);
        CHECK(rgba != nullptr);
        ++uploads;
        live.insert(next);
        return reinterpret_cast<ImTextureID>(next++);
    }
    void release(ImTextureID id) override {
        ++releases;
        CHECK(live.erase(reinterpret_cast<intptr_t>(id)) == 1);  // only what was uploaded, once
    }
};

// A base of its own so the textures exist before the harness's Ui uses them.
struct WithFakeTextures {
    FakeTextures textures;
};

// The shared harness on the real course's causal-mhsa, with fake textures,
// room for the views, and the views' own helpers.
struct Harness : WithFakeTextures, testing::Harness {
    Harness()
        : testing::Harness(testing::HarnessConfig{kCourse, "causal-mhsa", ImVec2(1400, 900), [this](gui::Ui& u) {
                                                      u.textures = &textures;
                                                      u.results_height = 560.0f;  // room for the views
                                                  }}) {}

    // Frames (not time) until pred holds: for what must happen within a few frames.
    bool within_frames(const std::function<bool()>& pred, int n) {
        for (int i = 0; i < n; ++i) {
            frame();
            if (pred()) return true;
        }
        return false;
    }

    void check(const std::string& code) {
        set_buffer(code);
        click("run");
        REQUIRE(wait_result(240.0));
    }

    void select(gui::BottomTab tab) {
        ui.select_bottom_tab = static_cast<int>(tab);
        REQUIRE(within_frames([&] { return ui.bottom_tab == tab; }, 5));
    }

    // The case's value of the int parameter n_heads, and its first tensor.
    int64_t n_heads(const Case& c) const {
        const Exercise& e = *session.current();
        for (size_t i = 0; i < e.params.size() && i < c.args.size(); ++i)
            if (e.params[i].name == "n_heads") return c.args[i].int_value;
        FAIL("no n_heads");
        return 0;
    }
    const TensorData& x_of(const Case& c) const {
        const Exercise& e = *session.current();
        for (size_t i = 0; i < e.params.size() && i < c.args.size(); ++i)
            if (e.params[i].name == "x") return c.args[i].tensor;
        FAIL("no x");
        return c.args.front().tensor;
    }
};

std::string solution_text() { return slurp(kCourse / "causal-mhsa" / "solution.cpp"); }

}  // namespace

namespace {

// Pixels of an RGBA picture inside `b` darker than mid-grey: text drawn on the white page.
int dark_pixels(const gui::HeatmapPicture& p, const gui::PixelBox& b) {
    int n = 0;
    for (int y = b.y0; y < b.y1; ++y)
        for (int x = b.x0; x < b.x1; ++x) {
            const uint8_t* c = &p.px[(static_cast<size_t>(y) * static_cast<size_t>(p.w) + static_cast<size_t>(x)) * 4];
            n += c[0] + c[1] + c[2] < 3 * 100;
        }
    return n;
}

Rgba pixel(const gui::HeatmapPicture& p, int x, int y) {
    Rgba c;
    std::copy_n(&p.px[(static_cast<size_t>(y) * static_cast<size_t>(p.w) + static_cast<size_t>(x)) * 4], 4, c.begin());
    return c;
}

}  // namespace

TEST_CASE("gui views: an exported PNG carries its title, the columns' and heads' names and the colour scales, in the learner's language") {
    Harness h;
    h.check(solution_text());
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Heatmaps);
    REQUIRE(h.within_frames([&] { return h.ui.heatmaps.set.has_value(); }, 5));
    REQUIRE(h.ui.heatmaps.set->stage == "weights");
    const int heads = h.ui.heatmaps.set->heads;
    for (const Lang lang : {Lang::En, Lang::Id}) {
        CAPTURE(lang_code(lang));
        h.session.set_lang(lang);
        h.frames(2);
        const gui::PictureSpec spec = gui::heatmap_picture_spec(h.ui, -1, -1);
        CHECK(contains(spec.title, h.session.current()->title.get(lang)));
        CHECK(contains(spec.title, lang == Lang::En ? "case " : "kasus "));
        CHECK(contains(spec.title, "weights"));
        REQUIRE(spec.head_labels.size() == static_cast<size_t>(heads));
        CHECK(spec.head_labels[1] == tr(lang, msg::gui_heatmap_head, {{"h", "1"}}));
        REQUIRE(spec.columns.size() >= 3);  // yours, reference, (CUDA,) difference
        CHECK(spec.columns.front().title == tr(lang, msg::gui_heatmap_yours));
        CHECK(spec.columns.back().title == tr(lang, msg::gui_heatmap_difference));
        REQUIRE(spec.scales.size() == 2);  // the weights' [0, 1] and the differences'
        CHECK(contains(spec.scales[0].text, tr(lang, msg::gui_heatmap_range, {{"lo", "0"}, {"hi", "1"}})));
        CHECK(spec.masked == tr(lang, msg::gui_heatmap_masked));  // causal: the future is masked

        // What the button writes is that picture, pixel for pixel.
        h.click("export_grid");
        REQUIRE_FALSE(h.ui.heatmaps.last_export.empty());
        const gui::HeatmapPicture picture = gui::draw_heatmap_picture(spec, h.ui.fonts.ui);
        int w = 0, ht = 0, channels = 0;
        uint8_t* png = stbi_load(h.ui.heatmaps.last_export.c_str(), &w, &ht, &channels, 4);
        REQUIRE(png != nullptr);
        CHECK(w == picture.w);
        CHECK(ht == picture.h);
        const bool same = w == picture.w && ht == picture.h && std::equal(picture.px.begin(), picture.px.end(), png);
        stbi_image_free(png);
        CHECK(same);

        // The words are drawn: dark glyph pixels where each one went.
        CHECK(dark_pixels(picture, picture.title) > 50);
        REQUIRE(picture.column_titles.size() == spec.columns.size());
        for (const gui::PixelBox& b : picture.column_titles) CHECK(dark_pixels(picture, b) > 10);
        REQUIRE(picture.head_labels.size() == spec.head_labels.size());
        for (const gui::PixelBox& b : picture.head_labels) CHECK(dark_pixels(picture, b) > 10);
        CHECK(picture.maps.size() == spec.columns.size() * spec.heads.size());
        // The scales run from their map's low end to its high end; the masked swatch is the masked grey.
        REQUIRE(picture.scale_bars.size() == 2);
        for (size_t k = 0; k < 2; ++k) {
            const gui::PixelBox& bar = picture.scale_bars[k];
            const double n = bar.x1 - bar.x0;
            const int mid = (bar.y0 + bar.y1) / 2;
            CHECK(pixel(picture, bar.x0, mid) == map_color(spec.scales[k].scale->map, 0.5 / n));
            CHECK(pixel(picture, bar.x1 - 1, mid) == map_color(spec.scales[k].scale->map, (n - 0.5) / n));
        }
        CHECK(pixel(picture, picture.masked_swatch.x0 + 1, picture.masked_swatch.y0 + 1) == kMaskedColor);
    }
}

TEST_CASE("gui views: heatmaps upload once, enlarge, switch stage, export a PNG") {
    Harness h;
    h.check(solution_text());
    const CheckResult& r = *h.session.last_result();
    REQUIRE(r.verdict == Verdict::Pass);
    REQUIRE_FALSE(r.cases.empty());
    // After a pass the views show the largest case (more to see than 2×2).
    const CaseOutcome& c0 = *gui::view_case(h.ui);
    for (const auto& c : r.cases) CHECK(c.expected.tensor.numel() <= c0.expected.tensor.numel());
    const int heads = static_cast<int>(h.n_heads(h.session.current()->cases[static_cast<size_t>(c0.index)]));
    REQUIRE(heads > 0);

    CHECK(h.textures.uploads == 0);  // nothing is uploaded before the tab is shown
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Heatmaps);
    REQUIRE(h.within_frames([&] { return h.ui.heatmaps.set.has_value(); }, 5));
    const HeatmapSet& set = *h.ui.heatmaps.set;
    CHECK(h.ui.bottom_tab == gui::BottomTab::Heatmaps);
    CHECK(h.ui.heatmaps.stage == "weights");  // the default: attention itself
    CHECK(set.stage == "weights");
    CHECK(set.heads == heads);
    CHECK(h.ui.heatmaps.built_case == c0.index);
    CHECK(set.learner.size() == static_cast<size_t>(heads));  // the solution probes "weights"
    CHECK(set.max_abs_difference <= 1e-4);
    // Textures are made for the heads in view: one per column (yours, reference,
    // CUDA when attnlab has kernels, difference), never more than all of them.
    const int per_head = set.cuda.empty() ? 3 : 4;
    const int first_uploads = h.textures.uploads;
    CHECK(first_uploads > 0);
    CHECK(first_uploads % per_head == 0);
    CHECK(first_uploads <= per_head * heads);
    CHECK(h.ui.heatmaps.uploads == first_uploads);
    CHECK(h.textures.releases == 0);
    CHECK(h.ui.heatmaps.learner.size() == static_cast<size_t>(heads));  // one slot per head
    CHECK(h.ui.heatmaps.reference.size() == static_cast<size_t>(heads));
    CHECK(h.ui.heatmaps.difference.size() == static_cast<size_t>(heads));

    h.frames(10);
    CHECK(h.textures.uploads == first_uploads);  // uploaded once, not per frame
    CHECK(h.textures.releases == 0);
    REQUIRE(h.has("heatmap:0:0"));
    REQUIRE(h.has("heatmap:0:2"));
    REQUIRE(h.has("export_grid"));

    // Export the grid: a real PNG under ATTNLAB_HOME/exports.
    h.click("export_grid");
    REQUIRE_FALSE(h.ui.heatmaps.last_export.empty());
    const fs::path png = h.ui.heatmaps.last_export;
    CHECK(png.parent_path() == h.home.dir / "exports");
    CHECK(png.extension() == ".png");
    REQUIRE(fs::exists(png));
    const std::string bytes = slurp(png);
    CHECK(bytes.size() > 1000);
    CHECK(bytes.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0);
    CHECK(h.textures.uploads == first_uploads);  // exporting uploads nothing

    // Click a head to enlarge it, then close it.
    CHECK(h.ui.heatmaps.enlarged == -1);
    h.click("heatmap:0:0");
    CHECK(h.ui.heatmaps.enlarged == 0);
    h.frames(3);  // the auto-resizing modal is measured, then shown
    CHECK(h.ui.heatmaps.enlarged == 0);
    REQUIRE(h.has("enlarged_close"));
    h.click("enlarged_close");
    CHECK(h.ui.heatmaps.enlarged == -1);
    CHECK(h.textures.uploads == first_uploads);

    // Another stage: the old textures are released, the new ones uploaded.
    const int before = h.textures.uploads;
    h.ui.heatmaps.stage = "scores";
    h.frame();
    REQUIRE(h.ui.heatmaps.set.has_value());
    CHECK(h.ui.heatmaps.set->stage == "scores");
    CHECK(h.ui.heatmaps.set->value_scale.map == ColorMap::PuOr);
    CHECK(h.textures.releases == before);
    const int new_uploads = h.textures.uploads - before;  // the heads now in view
    CHECK(new_uploads > 0);
    CHECK(new_uploads % per_head == 0);
    CHECK(new_uploads <= per_head * heads);
    CHECK(h.textures.live.size() == static_cast<size_t>(new_uploads));
    h.frames(5);
    CHECK(h.textures.uploads == before + new_uploads);
    CHECK(h.textures.releases == before);
}

TEST_CASE("gui views: the stages of a wrongly scaled solution diverge at scores; a click opens its heatmaps") {
    Harness h;
    std::string code = solution_text();
    const std::string right = "std::sqrt(static_cast<float>(hd))";
    const size_t at = code.find(right);
    REQUIRE(at != std::string::npos);
    code.replace(at, right.size(), "std::sqrt(static_cast<float>(x.shape(1)))");
    h.check(code);
    const CheckResult& r = *h.session.last_result();
    REQUIRE(r.verdict == Verdict::WrongAnswer);
    REQUIRE(r.failed_case >= 0);
    const CaseOutcome& failing = r.cases[static_cast<size_t>(r.failed_case)];
    const auto stages = compare_stages(failing, h.session.current()->tolerance);
    const int first = first_divergence(stages);
    REQUIRE(first >= 0);
    CHECK(stages[static_cast<size_t>(first)].name == "scores");
    for (int i = 0; i < first; ++i) CHECK(stages[static_cast<size_t>(i)].status == StageStatus::Match);

    h.select(gui::BottomTab::Stages);
    h.frames(2);
    for (const char* name : {"Q", "K", "V", "scores", "masked", "weights", "heads", "concat", "out"})
        CHECK_MESSAGE(h.has(std::string("stage:") + name), name);
    CHECK(h.textures.uploads == 0);

    h.click("stage:scores");
    REQUIRE(h.within_frames([&] { return h.ui.bottom_tab == gui::BottomTab::Heatmaps && h.ui.heatmaps.set.has_value(); }, 5));
    CHECK(h.ui.heatmaps.stage == "scores");
    CHECK(h.ui.heatmaps.set->stage == "scores");
    CHECK(h.ui.heatmaps.case_index == failing.index);
    CHECK(h.ui.heatmaps.built_case == failing.index);
    CHECK(h.ui.heatmaps.set->max_abs_difference > 1e-3);  // the wrong scale shows
    const int heads = h.ui.heatmaps.set->heads;
    CHECK(heads == static_cast<int>(h.n_heads(h.session.current()->cases[static_cast<size_t>(failing.index)])));
    CHECK(h.textures.uploads > 0);  // the heads in view, three textures each
    const int per_head = h.ui.heatmaps.set->cuda.empty() ? 3 : 4;  // + the CUDA column with kernels
    CHECK(h.textures.uploads % per_head == 0);
    CHECK(h.textures.uploads <= per_head * heads);
}

TEST_CASE("gui views: the CUDA column, the kernel's stages and the Kernel tab draw") {
    Harness h;
    h.check(solution_text());
    const CheckResult& r = *h.session.last_result();
    REQUIRE(r.verdict == Verdict::Pass);
    const CaseOutcome& c = *gui::view_case(h.ui);
#ifdef ATTNLAB_HAVE_KERNELS
    REQUIRE(c.reference_kernel.has_value());
    CHECK(c.reference_kernel->ok);
    h.select(gui::BottomTab::Results);
    h.frames(2);
    CHECK(h.has("results_cuda"));  // the verdict names the backend

    // Heatmaps: yours · reference · CUDA · difference, the CUDA one next to the reference's.
    h.select(gui::BottomTab::Heatmaps);
    REQUIRE(h.within_frames([&] { return h.ui.heatmaps.set.has_value(); }, 5));
    const HeatmapSet& set = *h.ui.heatmaps.set;
    REQUIRE(set.cuda.size() == static_cast<size_t>(set.heads));
    CHECK(set.cuda_backend == c.reference_kernel->backend);
    CHECK(set.cuda_max_abs_difference <= 1e-4);
    h.frames(2);
    CHECK(h.has("heatmap:0:3"));
    CHECK(h.has("heatmap_cuda_note"));
    const ImRect ref = h.ui.items["heatmap:0:1"], cuda = h.ui.items["heatmap:0:3"], diff = h.ui.items["heatmap:0:2"];
    CHECK(ref.Min.x < cuda.Min.x);
    CHECK(cuda.Min.x < diff.Min.x);

    // Stages: the kernel's stage of every reference stage, beside it.
    h.select(gui::BottomTab::Stages);
    h.frames(2);
    CHECK(h.has("stages_kernel_title"));
    for (const char* name : {"scores", "masked", "weights"}) CHECK_MESSAGE(h.has(std::string("kernel_stage:") + name), name);
    for (const StageComparison& s : compare_kernel_stages(c, h.session.current()->tolerance))
        if (s.learner_shape) CHECK_MESSAGE(s.status == StageStatus::Match, s.name);

    // Kernel: source, grid of blocks, a selected block, counters, both layouts.
    h.select(gui::BottomTab::Kernel);
    h.frames(2);
    for (const char* name : {"kernel_source", "kernel_file", "kernel_launch", "kernel_grid", "kernel_block", "kernel_counters", "kernel_layouts"})
        CHECK_MESSAGE(h.has(name), name);
    REQUIRE(h.ui.kernel.launch >= 0);
    CHECK(c.reference_kernel->launches[static_cast<size_t>(h.ui.kernel.launch)].kernel.rfind("attention", 0) == 0);
    // A click on the last block of the grid selects exactly that block.
    const KernelLaunchSummary& launch = c.reference_kernel->launches[static_cast<size_t>(h.ui.kernel.launch)];
    const long gx = launch.grid[0], rows = static_cast<long>(launch.grid[1]) * launch.grid[2];
    REQUIRE(gx * rows > 1);
    REQUIRE(gx <= 64);
    REQUIRE(rows <= 64);
    h.ui.kernel.selected_block = 0;
    h.click_at("kernel_grid", (static_cast<float>(gx) - 0.5f) / static_cast<float>(gx), (static_cast<float>(rows) - 0.5f) / static_cast<float>(rows));
    CHECK(h.ui.kernel.selected_block == (rows - 1) * gx + (gx - 1));
    CHECK(h.textures.uploads > 0);  // only the heatmaps' textures; the Kernel tab draws shapes
#else
    CHECK_FALSE(c.reference_kernel.has_value());
    h.select(gui::BottomTab::Kernel);
    h.frames(2);
    CHECK_FALSE(h.has("kernel_grid"));  // the tab says there is no kernel
#endif
}

TEST_CASE("gui views: the memory tab starts from the first case; experiments measure a tiny config") {
    Harness h;
    h.select(gui::BottomTab::Memory);
    h.frames(2);
    const Case& first = h.session.current()->cases.front();
    const TensorData& x = h.x_of(first);
    REQUIRE(x.shape.size() == 2);
    CHECK(h.ui.layout.initialised);
    CHECK(h.ui.layout.batch == 0);
    CHECK(h.ui.layout.tokens == x.shape[0]);
    CHECK(h.ui.layout.d_model == x.shape[1]);
    CHECK(h.ui.layout.heads == h.n_heads(first));
    CHECK(h.has("memory_before"));
    CHECK(h.has("memory_after"));

    h.select(gui::BottomTab::Experiments);
    h.frames(2);
    CHECK(h.ui.experiments.preset == 0);
    CHECK(h.has("exp_preset"));
    REQUIRE(h.has("exp_measure"));
    CHECK_FALSE(h.session.projection_timing().has_value());

    h.ui.experiments.preset = static_cast<int>(preset_configs().size());  // custom
    h.ui.experiments.custom.d_model = 64;
    h.ui.experiments.custom.heads = 4;
    h.ui.experiments.tokens = 32;
    h.frames(2);
    REQUIRE(h.has("exp_measure"));
    h.click("exp_measure");
    // The measurement is a core job of the session, not the panel's own thread.
    REQUIRE(h.wait_until([&] { return h.session.projection_timing().has_value(); }, 120.0));
    const ProjectionTiming& timing = *h.session.projection_timing();
    CHECK(timing.per_head_matmuls == 3 * 4);
    CHECK(timing.fused_matmuls == 1);
    CHECK(timing.per_head_ms >= 0);
    CHECK(timing.fused_ms >= 0);
    CHECK(timing.tokens == 32);
    CHECK(timing.d_model == 64);
    h.frames(2);
    CHECK(h.has("exp_measure"));
    CHECK(h.has("exp_why"));  // the figure comes with the reason the lesson's gain does (not) show
}

TEST_CASE("experiments: why the fused projection is (not) faster, from the sizes and the figures") {
    ProjectionTiming small{1.0, 1.0, 12, 1, 32, 64, 4};
    CHECK(timing_explanation_key(small) == msg::gui_exp_why_small);
    ProjectionTiming large{50.0, 48.0, 36, 1, 512, 768, 12};
    CHECK(timing_explanation_key(large) == msg::gui_exp_why_cpu);
    ProjectionTiming gain{30.0, 10.0, 36, 1, 512, 768, 12};
    CHECK(timing_explanation_key(gain) == msg::gui_exp_why_gain);
}

TEST_CASE("gui views: the Kernel view at 1280x800 stacks its panes, its sections collapse, and the tabs keep their names") {
    const fs::path course = kFixtures / "cuda-course";
    testing::Harness h(testing::HarnessConfig{course, "fx-cuda-split", ImVec2(1280, 800), nullptr});
    h.set_buffer(slurp(course / "fx-cuda-split" / "wrong" / "no_bounds_check.cu"));
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    REQUIRE(h.session.last_result()->verdict == Verdict::KernelFault);
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(3);
    REQUIRE(h.has("kview_stacked"));  // one scrolling pane: neither half squeezed to a column of words
    for (const char* name : {"kview_section:blocks", "kview_section:threads", "kview_section:thread", "kview_section:requests",
                             "kview_section:resources", "kview_legend:blocks", "kview_swatches", "kview_block", "kview_fault"})
        CHECK_MESSAGE(h.has(name), name);
    // A section folds away and opens again.
    h.click("kview_section:blocks");
    h.frames(2);
    CHECK_FALSE(h.has("kview_block"));
    h.click("kview_section:blocks");
    h.frames(2);
    CHECK(h.has("kview_block"));
    // The verdict badge sits above the tab bar, leaving the tabs their whole width.
    REQUIRE(h.has("verdict_badge"));
    const ImRect badge = h.ui.items.at("verdict_badge"), kernel_tab = h.ui.items.at("tab:gui.tab.kernel");
    CHECK(badge.Max.y <= kernel_tab.Min.y);
    CHECK(kernel_tab.Max.x <= 1280.0f);
}

TEST_CASE("gui views: the Kernel tab of a CUDA exercise shows the learner's own launches, threads, warp requests and resources") {
    const fs::path course = kFixtures / "cuda-course";
    testing::Harness h(testing::HarnessConfig{course, "fx-cuda-split", ImVec2(1800, 1400), [](gui::Ui& u) { u.results_height = 900.0f; }});
    h.set_buffer(slurp(course / "fx-cuda-split" / "solution.cu"));
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    const CheckResult& r = *h.session.last_result();
    REQUIRE(r.verdict == Verdict::Pass);
    const CaseOutcome& c = *gui::view_case(h.ui);
    REQUIRE(c.kernels.launches.size() == 1);  // the solution launches split_kernel once per case
    const emu::LaunchReport& launch = c.kernels.launches.front();
    REQUIRE(c.expected.kind == ValueKind::Tensor);
    const int64_t numel = c.expected.tensor.numel();
    const unsigned threads = static_cast<unsigned>(launch.block.count());
    REQUIRE(launch.grid.count() == static_cast<uint64_t>((numel + threads - 1) / threads));
    REQUIRE(launch.grid.count() > 2);

    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(3);
    for (const char* name : {"kview_launch", "kview_grid", "kview_block", "kview_threads", "kview_thread", "kview_order", "kview_requests",
                             "kview_request", "kview_lanes", "kview_buffer:out", "kview_buffer:x", "kview_arch"})
        CHECK_MESSAGE(h.has(name), name);
    CHECK_FALSE(h.has("kernel_grid"));  // not the view of attnlab's own reference kernels
    CHECK_FALSE(h.has("kview_stacked"));  // wide enough for the two panes side by side
    const gui::CudaKernelView& v = h.ui.cuda_kernel;
    CHECK(v.launch == 0);
    // One footprint per block of the launch; together they wrote every element once.
    REQUIRE(v.blocks.size() == launch.grid.count());
    int64_t writes = 0;
    for (const BlockFootprint& f : v.blocks) writes += f.output_writes;
    CHECK(writes == numel);

    // A click on the last cell of the grid selects exactly the last block.
    const long count = static_cast<long>(v.blocks.size()), cols = v.grid_columns, rows = (count + cols - 1) / cols;
    REQUIRE(cols >= 1);
    const long last = count - 1;
    h.click_at("kview_grid", (static_cast<float>(last % cols) + 0.5f) / static_cast<float>(cols),
               (static_cast<float>(last / cols) + 0.5f) / static_cast<float>(rows));
    CHECK(v.block == last);
    h.click_at("kview_grid", 0.5f / static_cast<float>(cols), 0.5f / static_cast<float>(rows));
    CHECK(v.block == 0);

    // A click on thread 37 (warp 1, lane 5) selects it; it wrote out[blockIdx·blockDim + 37].
    REQUIRE(threads > 37);
    const float warps = static_cast<float>((threads + 31) / 32);
    h.click_at("kview_threads", 5.5f / 32.0f, 1.5f / warps);
    REQUIRE(v.thread == 37);
    h.frame();
    bool wrote = false;
    for (const BufferTouches& t : v.thread_touches)
        if (t.buffer == "out") {
            REQUIRE(t.writes.size() == 1);
            CHECK(t.writes[0].index == 37);  // block 0
            CHECK(t.writes[0].coords == unravel_index(37, c.expected.tensor.shape));
            CHECK(t.reads.empty());
            wrote = true;
        }
    CHECK(wrote);

    // The default warp request is a load of x by the thread's warp: 32 lanes
    // reading 128 consecutive bytes, 4 sectors.
    REQUIRE(v.request >= 0);
    const WarpRequest& req = v.requests[static_cast<size_t>(v.request)];
    CHECK(req.warp == 1);
    CHECK(req.space == emu::MemorySpace::Global);
    CHECK_FALSE(req.is_write);
    CHECK(req.buffer() == "x");
    CHECK(req.lanes.size() == 32);
    CHECK(req.sectors.size() == 4);
    // Another request from the list becomes the selected one.
    REQUIRE(v.requests.size() >= 2);
    REQUIRE(h.has("kview_request:1"));
    h.click("kview_request:1");
    CHECK(v.request == 1);

    // The check's own resource report joins it (the verdict did not wait for
    // NVRTC: its blocks are too small for registers to refuse), for the default architecture.
    REQUIRE(h.wait_until([&] { return h.session.resources() != nullptr; }, 180.0));
    CHECK(h.session.resources()->arch == kDefaultGpuArch);

    // The resource panel: another architecture is computed in the background,
    // kept in the settings, and shown (figures with NVRTC, the reason without).
    CHECK(h.session.gpu_arch() == kDefaultGpuArch);
    CHECK_FALSE(h.session.set_gpu_arch("sm_1"));
    REQUIRE(h.session.set_gpu_arch("sm_80"));
    CHECK(h.session.preferences().gpu_arch == "sm_80");
    {
        Session again(testing::course_options(course));  // the same ATTNLAB_HOME: the choice was saved
        CHECK(again.gpu_arch() == "sm_80");
    }
    REQUIRE(h.wait_until([&] { return h.session.resources() && h.session.resources()->arch == "sm_80"; }, 180.0));
    const ResourceReport& report = *h.session.resources();
    h.frames(2);
    if (report.status == ResourceReport::Status::Ok) {
        CHECK(h.has("kview_resources"));
        REQUIRE(report.kernels.size() == 1);
        CHECK(report.kernels[0].kernel == "split_kernel");
        CHECK(report.kernels[0].registers > 0);
    } else {
        CHECK(report.status == ResourceReport::Status::Unavailable);
        CHECK(h.has("kview_resources_unavailable"));
    }
}

TEST_CASE("gui views: without NVRTC the CUDA Kernel tab says so and shows everything else") {
    const fs::path course = kFixtures / "cuda-course";
    setenv("ATTNLAB_NVRTC_LIB", "/nonexistent/libnvrtc.so", 1);  // what attnlab-nvrtc loads: nothing
    struct Unset {
        ~Unset() { unsetenv("ATTNLAB_NVRTC_LIB"); }
    } unset;
    testing::Harness h(testing::HarnessConfig{course, "fx-cuda-split", ImVec2(1800, 1400), [](gui::Ui& u) { u.results_height = 900.0f; }});
    h.set_buffer(slurp(course / "fx-cuda-split" / "solution.cu"));
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    REQUIRE(h.session.last_result()->verdict == Verdict::Pass);
    REQUIRE(h.wait_until([&] { return h.session.resources() != nullptr; }, 180.0));
    CHECK(h.session.resources()->status == ResourceReport::Status::Unavailable);
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(3);
    CHECK(h.has("kview_resources_unavailable"));
    CHECK_FALSE(h.has("kview_resources"));
    for (const char* name : {"kview_grid", "kview_threads", "kview_requests", "kview_buffer:out", "kview_arch"}) CHECK_MESSAGE(h.has(name), name);
}

TEST_CASE("gui views: a block the check did not record says so, and \"Record this block\" records it off the window's thread") {
    // fx-cuda-attention's solution at T = 70, hd = 64: block 0 alone fills the
    // check's access log, so blocks 1–5 are unrecorded (test_block_recording).
    const fs::path course = kFixtures / "cuda-course";
    testing::Harness h(testing::HarnessConfig{course, "fx-cuda-attention", ImVec2(1800, 1400), [](gui::Ui& u) { u.results_height = 900.0f; }});
    h.set_buffer(slurp(course / "fx-cuda-attention" / "solution.cu"));
    h.click("run");
    REQUIRE(h.wait_result(240.0));
    REQUIRE(h.session.last_result()->verdict == Verdict::Pass);
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(3);
    REQUIRE(gui::view_case(h.ui)->index == 1);  // after a pass: the largest case
    h.ui.cuda_kernel.block = 1;
    h.frames(2);
    REQUIRE(h.ui.cuda_kernel.blocks.size() == 6);
    CHECK_FALSE(h.ui.cuda_kernel.blocks[1].recorded);
    CHECK(h.has("kview_threads_unrecorded"));  // its threads are not drawn as idle without a word
    REQUIRE(h.has("kview_record_block"));
    const int generation = h.session.result_generation();
    h.click("kview_record_block");
    REQUIRE(h.wait_until([&] { return h.has("kview_block_recorded"); }, 240.0));
    CHECK(h.session.result_generation() == generation);  // the other views keep their result
    CHECK(h.ui.cuda_kernel.block == 1);                    // and the selection stays
    CHECK(h.ui.cuda_kernel.blocks[1].recorded);
    CHECK(h.ui.cuda_kernel.blocks[1].output_writes > 0);
    CHECK_FALSE(h.has("kview_record_block"));
    CHECK_FALSE(h.has("kview_threads_unrecorded"));
    CHECK_FALSE(h.ui.cuda_kernel.block_touches.empty());
    // Another unrecorded block still says so, with its own button.
    h.ui.cuda_kernel.block = 2;
    h.frames(2);
    CHECK_FALSE(h.ui.cuda_kernel.blocks[2].recorded);
    CHECK(h.has("kview_record_block"));
}

// ---- issue 32: the Kernel tab fits and tells the truth ------------------------------------------

TEST_CASE("gui views: a CUDA exercise's Kernel tab gets room by default; a large grid is a compact map; a mask kernel's roofline shows its bytes") {
    // No results_height: the window's own default split, at 1280×800.
    testing::Harness h(testing::HarnessConfig{kCourse, "cuda-first-kernel", ImVec2(1280, 800), nullptr});
    h.set_buffer(slurp(kCourse / "cuda-first-kernel" / "solution.cu"));
    h.click("run");
    REQUIRE(h.wait_result(300.0));
    REQUIRE(h.session.last_result()->verdict == Verdict::Pass);
    h.frames(3);
    REQUIRE(h.has("tab:gui.tab.kernel"));
    const float results_tabs_y = h.ui.items.at("tab:gui.tab.kernel").Min.y;
    h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
    h.frames(4);
    REQUIRE(h.ui.bottom_tab == gui::BottomTab::Kernel);
    // The tab bar moved up: the Kernel tab has most of the column (the editor keeps 30 %).
    const float kernel_tabs_y = h.ui.items.at("tab:gui.tab.kernel").Min.y;
    CHECK(kernel_tabs_y < results_tabs_y - 150.0f);
    CHECK(kernel_tabs_y < 800.0f * 0.4f);

    // cuda-first-kernel's largest case has hundreds of blocks: counted, drawn as a compact map.
    const gui::CudaKernelView& v = h.ui.cuda_kernel;
    REQUIRE(v.blocks.size() > 128);
    CHECK(h.has("kview_grid_summary"));
    REQUIRE(h.has("kview_grid"));
    CHECK(h.has("kview_block"));  // the selected block, in words, right below the map
    const float map_bottom = h.ui.items.at("kview_block").Min.y;
    CHECK(map_bottom - h.ui.items.at("kview_grid_summary").Max.y < ImGui::GetFontSize() * 9.0f);

    // The roofline: the mask does no arithmetic, so its launch is a bar of bytes, never "0.00 FLOP/s".
    h.ui.scroll_to_roofline = 3;
    h.frames(3);
    REQUIRE(h.has("kview_section:roofline"));
    CHECK(h.has("roofline_case"));
    const std::optional<Performance> perf = check_performance(*h.session.last_result(), *h.session.current());
    REQUIRE(perf);
    REQUIRE_FALSE(perf->launches.empty());
    for (const LaunchPerformance& L : perf->launches) {
        CHECK(L.flops.value_or(0) == 0);
        REQUIRE(h.has("roofline_bytes:" + L.kernel));
        CHECK_FALSE(h.has("roofline_point:" + L.kernel));
        // Above the plot, which has no point of it: in sight when the section opens.
        CHECK(h.ui.items.at("roofline_bytes:" + L.kernel).Max.y <= h.ui.items.at("roofline_plot").Min.y);
    }
    // The roofline's GPU follows the architecture selector until one is picked.
    CHECK(h.ui.roofline_gpu == -1);
    CHECK(h.has("roofline_gpu:H100 SXM"));  // sm_90, the default architecture
    h.session.set_gpu_arch("sm_80");
    h.frames(3);
    CHECK(h.has("roofline_gpu:A100 80GB SXM"));
    // The resource panel says which case its blocks come from.
    CHECK(h.has("kview_resources_case"));
}

TEST_CASE("gui views: blocks the access log did not reach are drawn as ? at every cell width, never as idle") {
    // fx-cuda-attention's solution at T = 70, hd = 64: block 0 alone fills the
    // check's access log, so the other blocks are unknown (test_block_recording).
    const fs::path course = kFixtures / "cuda-course";
    for (const ImVec2 size : {ImVec2(1280, 800), ImVec2(1920, 1080)}) {
        INFO("window " << size.x << "x" << size.y);
        testing::Harness h(testing::HarnessConfig{course, "fx-cuda-attention", size, nullptr});
        h.set_buffer(slurp(course / "fx-cuda-attention" / "solution.cu"));
        h.click("run");
        REQUIRE(h.wait_result(240.0));
        REQUIRE(h.session.last_result()->verdict == Verdict::Pass);
        h.ui.select_bottom_tab = static_cast<int>(gui::BottomTab::Kernel);
        h.frames(4);
        const gui::CudaKernelView& v = h.ui.cuda_kernel;
        long unknown = 0, idle = 0;
        for (const BlockFootprint& f : v.blocks) {
            unknown += f.unknown() ? 1 : 0;
            idle += !f.unknown() && !f.wrote_output() ? 1 : 0;
        }
        CHECK(unknown > 0);
        CHECK(idle == 0);                      // none of them is passed off as "wrote nothing"
        CHECK(v.unknown_marked == unknown);    // each one drawn hatched with its "?", whatever the cell's width
        CHECK(h.has("kview_trace_truncated")); // and the notice that promises the "?" is there
    }
}
