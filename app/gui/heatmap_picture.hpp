#pragma once
// A heatmap grid as a picture that reads on its own, for the exported PNGs: a
// title, each column's heading, each head's label and the colour scales with
// their ranges (and the masked grey when a cell is masked), the text drawn in
// the window's own font from Dear ImGui's font atlas, no GPU involved.
#include <string>
#include <vector>

#include "ui.hpp"

namespace attnlab::gui {

struct PictureColumn {
    const std::vector<HeadMatrix>* heads = nullptr;  // one matrix per head of the set
    const ColorScale* scale = nullptr;
    std::string title;
};
struct PictureScale {
    const ColorScale* scale = nullptr;
    std::string text;  // what the scale is for and its range
};
// What to draw: the panel decides (heatmap_picture_spec), draw_heatmap_picture draws.
struct PictureSpec {
    std::string title;
    int rows = 0, cols = 0;  // of every matrix
    std::vector<PictureColumn> columns;
    std::vector<int> heads;
    std::vector<std::string> head_labels;  // one per entry of `heads`
    std::vector<PictureScale> scales;
    std::string masked;  // the masked grey's legend; empty when no cell is masked
};

struct PixelBox {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
struct HeatmapPicture {
    int w = 0, h = 0;
    std::vector<uint8_t> px;  // RGBA, row-major, white background
    // Where each part went (tests sample the pixels there).
    PixelBox title;
    std::vector<PixelBox> column_titles, head_labels, maps, scale_bars;
    PixelBox masked_swatch;
};

// The open case's heatmaps as shown (head < 0: every head; column < 0: every
// column), with the words in the learner's language.
PictureSpec heatmap_picture_spec(const Ui& ui, int head, int column);
HeatmapPicture draw_heatmap_picture(const PictureSpec& spec, ImFont* font);

}  // namespace attnlab::gui
