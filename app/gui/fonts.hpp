#pragma once
#include "ui.hpp"

namespace attnlab::gui {

// (Re)builds the font atlas: DejaVu Sans (UI), Sans Bold, Sans Mono (editor)
// with the glyphs course texts use (Greek, arrows, math operators, super/
// subscripts, ᵀ). Falls back to Dear ImGui's built-in font when DejaVu is
// missing (fonts-dejavu-core). The caller uploads the texture.
Fonts build_fonts(float size_px);

}  // namespace attnlab::gui
