// CPU time to build one frame of the attention-heatmap view for 12 heads ×
// T = 512 (ANDREA-120M's head count), headless: the first frame (build the
// heatmap data, rasterise, upload 36 textures) and the steady frames after
// it (textures cached). A benchmark: it prints figures, asserts nothing.
//
//   build/bench/attnlab-bench-heatmaps [--tokens 512] [--heads 12] [--frames 200] [--cpu-colormap]
// (--cpu-colormap: rasterise RGBA on the CPU, the window's fallback where the shader fails)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/core/course/case_inputs.hpp"
#include "fonts.hpp"
#include "ui.hpp"

using namespace attnlab;
using namespace attnlab::gui;

namespace {

struct CountingTextures : TextureUploader {
    intptr_t next = 1;
    size_t bytes = 0;
    bool gpu = true;  // as the window does: values up as they are, the shader colours them
    bool colors_on_gpu() const override { return gpu; }
    ImTextureID upload_values(const HeadMatrix& m) override {
        bytes += m.values.size() * sizeof(float) + m.mask.size();
        volatile float touch = m.values[0];  // a real upload reads the values
        (void)touch;
        return reinterpret_cast<ImTextureID>(next++);
    }
    void image(ImTextureID id, ImVec2 size, const ColorScale&) override { ImGui::Image(id, size); }
    ImTextureID upload(int w, int h, const uint8_t* rgba) override {
        bytes += static_cast<size_t>(w) * static_cast<size_t>(h) * 4;
        volatile uint8_t touch = rgba[0];  // a real upload reads the pixels
        (void)touch;
        return reinterpret_cast<ImTextureID>(next++);
    }
    void release(ImTextureID) override {}
};

// Causal attention for random scores: masked (-inf above the diagonal) and softmax.
CaseOutcome synthetic_case(int heads, int tokens) {
    CaseOutcome c;
    c.index = 0;
    TensorData scores = random_tensor({heads, tokens, tokens}, 7, 3.0);
    TensorData masked = scores, weights = scores;
    const size_t n = static_cast<size_t>(tokens);
    for (int h = 0; h < heads; ++h)
        for (size_t i = 0; i < n; ++i) {
            float* row = &masked.data[(static_cast<size_t>(h) * n + i) * n];
            float* w = &weights.data[(static_cast<size_t>(h) * n + i) * n];
            float m = -INFINITY, sum = 0;
            for (size_t j = 0; j < n; ++j) {
                if (j > i) row[j] = -INFINITY;
                m = std::max(m, row[j]);
            }
            for (size_t j = 0; j < n; ++j) sum += (w[j] = j > i ? 0.0f : std::exp(row[j] - m));
            for (size_t j = 0; j < n; ++j) w[j] /= sum;
        }
    c.stages = {{"scores", scores}, {"masked", masked}, {"weights", weights}};
    TensorData mine = weights;
    for (size_t k = 0; k < mine.data.size(); k += 97) mine.data[k] *= 1.01f;  // a learner off by a little
    c.probes = {{"weights", mine}};
    c.verdict = Verdict::WrongAnswer;
    return c;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    int tokens = 512, heads = 12, frames = 200;
    bool cpu_colormap = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cpu-colormap") cpu_colormap = true;
        else if (i + 1 < argc && a == "--tokens") tokens = std::max(2, std::atoi(argv[++i]));
        else if (i + 1 < argc && a == "--heads") heads = std::max(1, std::atoi(argv[++i]));
        else if (i + 1 < argc && a == "--frames") frames = std::max(1, std::atoi(argv[++i]));
    }
    char home[] = "/tmp/attnlab-bench-heatmaps-XXXXXX";
    if (!mkdtemp(home)) return 2;
    setenv("ATTNLAB_HOME", home, 1);
    Session session(Session::Options{});
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.0f / 60.0f;
    io.IniFilename = nullptr;
    Ui ui(session);
    CountingTextures textures;
    textures.gpu = !cpu_colormap;
    ui.textures = &textures;
    ui.fonts = build_fonts(16);
    unsigned char* px;
    int w, h;
    io.Fonts->GetTexDataAsRGBA32(&px, &w, &h);

    const CaseOutcome c = synthetic_case(heads, tokens);
    auto frame = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        ui.items.clear();
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(io.DisplaySize);
        ImGui::Begin("bench", nullptr, ImGuiWindowFlags_NoDecoration);
        draw_heatmap_grid(ui, c, 1, {"head", "query", "key"});
        ImGui::End();
        ImGui::Render();
        return ms_since(t0);
    };
    // Where the first frame's time goes: the data, then the pixels of the heads in view.
    auto t0 = std::chrono::steady_clock::now();
    const std::optional<HeatmapSet> probe_set = build_heatmaps(c, "weights");
    const double build_ms = ms_since(t0);
    std::vector<uint8_t> pixels;
    t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 12 && probe_set && k < static_cast<int>(probe_set->reference.size()); ++k)
        rasterize(probe_set->reference[static_cast<size_t>(k)], probe_set->value_scale, pixels);
    const double raster_ms = ms_since(t0);
    const double first = frame();
    const int uploads_first = ui.heatmaps.uploads;
    const size_t bytes_first = textures.bytes;
    std::vector<double> steady;
    for (int f = 0; f < frames; ++f) steady.push_back(frame());
    std::sort(steady.begin(), steady.end());
    size_t images = 0;
    for (const auto& [name, rect] : ui.items) images += name.rfind("heatmap:", 0) == 0;
    std::printf("  (last frame drew %zu heatmap images, %d vertices)\n", images, ImGui::GetDrawData()->TotalVtxCount);
    std::printf("heatmap view, %d heads x T=%d (3 columns: yours, reference, difference), colour map on the %s\n", heads, tokens,
                cpu_colormap ? "CPU (rasterised RGBA)" : "GPU (float textures, shader)");
    std::printf("  first frame after new data (build heatmap data, %s the %d textures in view, %.1f MB): %.1f ms\n",
                cpu_colormap ? "rasterise and upload" : "upload the values of", uploads_first, static_cast<double>(bytes_first) / (1 << 20), first);
    std::printf("    of which: heatmap data %.1f ms, rasterising 12 heads %.1f ms (measured apart)\n", build_ms, raster_ms);
    std::printf("  steady frame: p50 %.3f ms, p90 %.3f ms, max %.3f ms over %d frames (goal <= 4 ms)\n", steady[steady.size() / 2],
                steady[steady.size() * 9 / 10], steady.back(), frames);
    ImGui::DestroyContext();
    std::string cleanup = std::string("rm -rf ") + home;
    return std::system(cleanup.c_str()) == 0 ? 0 : 0;
}
