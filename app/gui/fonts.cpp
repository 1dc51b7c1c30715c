#include "fonts.hpp"

#include <string>

#include "attnlab/core/base/install_layout.hpp"

namespace attnlab::gui {

namespace {

const ImWchar* glyph_ranges() {
    static ImVector<ImWchar> ranges;
    if (ranges.empty()) {
        ImFontGlyphRangesBuilder b;
        static const ImWchar extra[] = {
            0x0020, 0x00FF,  // Basic Latin + Latin-1 (×, ·, ², é)
            0x0100, 0x017F,  // Latin Extended-A
            0x0370, 0x03FF,  // Greek (α, σ, Σ)
            0x1D00, 0x1D7F,  // Phonetic extensions (ᵀ)
            0x2000, 0x206F,  // General punctuation (–, —, …, ‘ ’ “ ”)
            0x2070, 0x209F,  // Super/subscripts
            0x2190, 0x21FF,  // Arrows (→, ←, ↔)
            0x2200, 0x22FF,  // Mathematical operators (√, ≤, ≥, ≈, ∞, ·)
            0x2308, 0x230B,  // Ceiling and floor (⌈T / 64⌉ in statements)
            0x2500, 0x257F,  // Box drawing
            0x25A0, 0x25FF,  // Geometric shapes (■, ▶)
            0x2713, 0x2717,  // ✓ ✗
            0xFFFD, 0xFFFD,  // replacement character
            0,
        };
        b.AddRanges(extra);
        b.BuildRanges(&ranges);
    }
    return ranges.Data;
}

ImFont* add(ImFontAtlas* atlas, const char* file, float size) {
    const std::string path = find_font_file(file).string();  // where: install_layout.cpp
    if (path.empty()) return nullptr;
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    return atlas->AddFontFromFileTTF(path.c_str(), size, &cfg, glyph_ranges());
}

}  // namespace

Fonts build_fonts(float size_px) {
    ImFontAtlas* atlas = ImGui::GetIO().Fonts;
    atlas->Clear();
    Fonts f;
    f.ui = add(atlas, "DejaVuSans.ttf", size_px);
    if (f.ui) {
        f.unicode_ok = true;
        f.bold = add(atlas, "DejaVuSans-Bold.ttf", size_px);
        f.mono = add(atlas, "DejaVuSansMono.ttf", size_px);
        f.heading = add(atlas, "DejaVuSans-Bold.ttf", size_px * 1.3f);
    } else {
        ImFontConfig cfg;
        cfg.SizePixels = size_px;
        f.ui = atlas->AddFontDefault(&cfg);
    }
    if (!f.bold) f.bold = f.ui;
    if (!f.mono) f.mono = f.ui;
    if (!f.heading) f.heading = f.bold;
    atlas->Build();
    return f;
}

}  // namespace attnlab::gui
