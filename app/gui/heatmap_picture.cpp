#include "heatmap_picture.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace attnlab::gui {

namespace {

constexpr uint8_t kInk[3] = {20, 20, 20};  // near-black on white: 18:1
constexpr int kGap = 8;
constexpr int kBarWidth = 192;

int text_width(ImFont* font, const std::string& s) {
    return static_cast<int>(std::ceil(font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, s.c_str()).x));
}

void blend(HeatmapPicture& p, int x, int y, float alpha) {
    if (x < 0 || y < 0 || x >= p.w || y >= p.h || alpha <= 0) return;
    uint8_t* d = &p.px[(static_cast<size_t>(y) * static_cast<size_t>(p.w) + static_cast<size_t>(x)) * 4];
    for (int k = 0; k < 3; ++k) d[k] = static_cast<uint8_t>(std::lround(d[k] + (kInk[k] - d[k]) * std::min(alpha, 1.0f)));
}

// One glyph's quad, box-filtered down from the atlas (whose glyphs are
// oversampled horizontally), as the GPU's sampler would blend it.
void draw_glyph(HeatmapPicture& p, const ImFontGlyph& g, float pen_x, float top, const uint8_t* atlas, int aw, int ah) {
    const float qx0 = pen_x + g.X0, qx1 = pen_x + g.X1, qy0 = top + g.Y0, qy1 = top + g.Y1;
    if (qx1 <= qx0 || qy1 <= qy0) return;
    const float u0 = g.U0 * static_cast<float>(aw), u1 = g.U1 * static_cast<float>(aw);
    const float v0 = g.V0 * static_cast<float>(ah), v1 = g.V1 * static_cast<float>(ah);
    for (int y = static_cast<int>(std::floor(qy0)); y < static_cast<int>(std::ceil(qy1)); ++y)
        for (int x = static_cast<int>(std::floor(qx0)); x < static_cast<int>(std::ceil(qx1)); ++x) {
            // The atlas texels under this pixel.
            const float sx0 = u0 + (std::max(static_cast<float>(x), qx0) - qx0) / (qx1 - qx0) * (u1 - u0);
            const float sx1 = u0 + (std::min(static_cast<float>(x + 1), qx1) - qx0) / (qx1 - qx0) * (u1 - u0);
            const float sy0 = v0 + (std::max(static_cast<float>(y), qy0) - qy0) / (qy1 - qy0) * (v1 - v0);
            const float sy1 = v0 + (std::min(static_cast<float>(y + 1), qy1) - qy0) / (qy1 - qy0) * (v1 - v0);
            const int tx0 = std::clamp(static_cast<int>(sx0), 0, aw - 1), tx1 = std::clamp(static_cast<int>(std::ceil(sx1)), tx0 + 1, aw);
            const int ty0 = std::clamp(static_cast<int>(sy0), 0, ah - 1), ty1 = std::clamp(static_cast<int>(std::ceil(sy1)), ty0 + 1, ah);
            float sum = 0;
            for (int ty = ty0; ty < ty1; ++ty)
                for (int tx = tx0; tx < tx1; ++tx) sum += atlas[(static_cast<size_t>(ty) * static_cast<size_t>(aw) + static_cast<size_t>(tx)) * 4 + 3];
            blend(p, x, y, sum / (255.0f * static_cast<float>((tx1 - tx0) * (ty1 - ty0))));
        }
}

// `s` at (x, y) (its line's top left); the box it took.
PixelBox draw_text(HeatmapPicture& p, ImFont* font, int x, int y, const std::string& s) {
    unsigned char* atlas = nullptr;
    int aw = 0, ah = 0;
    font->ContainerAtlas->GetTexDataAsRGBA32(&atlas, &aw, &ah);  // the pixels the window's texture was made from
    float pen = static_cast<float>(x);
    const char* c = s.c_str();
    const char* end = c + s.size();
    while (c < end && atlas) {
        unsigned int codepoint = 0;
        c += ImTextCharFromUtf8(&codepoint, c, end);
        if (codepoint == 0) break;
        const ImFontGlyph* g = font->FindGlyph(static_cast<ImWchar>(codepoint));
        if (!g) continue;
        if (g->Visible) draw_glyph(p, *g, pen, static_cast<float>(y), atlas, aw, ah);
        pen += g->AdvanceX;
    }
    return {x, y, static_cast<int>(std::ceil(pen)), y + static_cast<int>(std::ceil(font->FontSize))};
}

void fill(HeatmapPicture& p, const PixelBox& b, const Rgba& c) {
    for (int y = std::max(b.y0, 0); y < std::min(b.y1, p.h); ++y)
        for (int x = std::max(b.x0, 0); x < std::min(b.x1, p.w); ++x)
            std::copy_n(c.data(), 4, &p.px[(static_cast<size_t>(y) * static_cast<size_t>(p.w) + static_cast<size_t>(x)) * 4]);
}

// One head matrix, nearest-neighbour scaled to `cell` pixels a value.
void draw_map(HeatmapPicture& p, const HeadMatrix& m, const ColorScale& scale, int x0, int y0, int cell) {
    std::vector<uint8_t> raster;
    rasterize(m, scale, raster);
    for (int y = 0; y < m.rows * cell; ++y)
        for (int x = 0; x < m.cols * cell; ++x) {
            const size_t src = (static_cast<size_t>(y / cell) * static_cast<size_t>(m.cols) + static_cast<size_t>(x / cell)) * 4;
            const size_t dst = (static_cast<size_t>(y0 + y) * static_cast<size_t>(p.w) + static_cast<size_t>(x0 + x)) * 4;
            std::copy_n(&raster[src], 4, &p.px[dst]);
        }
}

}  // namespace

HeatmapPicture draw_heatmap_picture(const PictureSpec& spec, ImFont* font) {
    const int cell = std::max(1, 256 / std::max(spec.rows, 1));  // each heatmap at least ~256 px
    const int hw = spec.cols * cell, hh = spec.rows * cell;
    const int line = static_cast<int>(std::ceil(font->FontSize)) + 4;
    int label_w = 0;
    for (const std::string& l : spec.head_labels) label_w = std::max(label_w, text_width(font, l));
    const int maps_x = kGap + label_w + kGap;
    const int maps_y = kGap + line + kGap / 2 + line;
    const int n_cols = static_cast<int>(spec.columns.size()), n_heads = static_cast<int>(spec.heads.size());
    const int scales_y = maps_y + n_heads * (hh + kGap);
    int widest = maps_x + n_cols * (hw + kGap);
    widest = std::max(widest, kGap + text_width(font, spec.title) + kGap);
    for (const PictureScale& s : spec.scales) widest = std::max(widest, kGap + kBarWidth + kGap + text_width(font, s.text) + kGap);
    widest = std::max(widest, kGap + line + kGap + text_width(font, spec.masked) + kGap);

    HeatmapPicture p;
    p.w = widest;
    p.h = scales_y + static_cast<int>(spec.scales.size() + (spec.masked.empty() ? 0 : 1)) * line + kGap;
    p.px.assign(static_cast<size_t>(p.w) * static_cast<size_t>(p.h) * 4, 255);

    p.title = draw_text(p, font, kGap, kGap, spec.title);
    for (int c = 0; c < n_cols; ++c) {
        const int x = maps_x + c * (hw + kGap);
        p.column_titles.push_back(draw_text(p, font, x, maps_y - line, spec.columns[static_cast<size_t>(c)].title));
    }
    for (int r = 0; r < n_heads; ++r) {
        const int y = maps_y + r * (hh + kGap);
        const std::string& label = spec.head_labels[static_cast<size_t>(r)];
        p.head_labels.push_back(draw_text(p, font, maps_x - kGap - text_width(font, label), y + (hh - line) / 2, label));
        for (int c = 0; c < n_cols; ++c) {
            const PictureColumn& col = spec.columns[static_cast<size_t>(c)];
            const size_t head = static_cast<size_t>(spec.heads[static_cast<size_t>(r)]);
            if (!col.heads || head >= col.heads->size()) continue;
            const int x = maps_x + c * (hw + kGap);
            draw_map(p, (*col.heads)[head], *col.scale, x, y, cell);
            p.maps.push_back({x, y, x + hw, y + hh});
        }
    }
    int y = scales_y;
    const int bar_h = line - 6;
    for (const PictureScale& s : spec.scales) {
        const PixelBox bar{kGap, y + 3, kGap + kBarWidth, y + 3 + bar_h};
        for (int x = bar.x0; x < bar.x1; ++x)
            fill(p, {x, bar.y0, x + 1, bar.y1}, map_color(s.scale->map, (x - bar.x0 + 0.5) / kBarWidth));
        p.scale_bars.push_back(bar);
        draw_text(p, font, bar.x1 + kGap, y + 2, s.text);
        y += line;
    }
    if (!spec.masked.empty()) {
        p.masked_swatch = {kGap, y + 3, kGap + bar_h, y + 3 + bar_h};
        fill(p, p.masked_swatch, kMaskedColor);
        draw_text(p, font, p.masked_swatch.x1 + kGap, y + 2, spec.masked);
    }
    return p;
}

}  // namespace attnlab::gui
