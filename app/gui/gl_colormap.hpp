#pragma once
// Heatmap textures for the window (OpenGL): float values coloured by a
// fragment shader (the colour maps as a 1024-step lookup texture), or, where
// that shader does not compile or link, RGBA pixels rasterised on the CPU.
#include <memory>

#include "ui.hpp"

namespace attnlab::gui {

// Needs a current OpenGL 3.0+ context and Dear ImGui's OpenGL3 backend.
// ATTNLAB_CPU_COLORMAP=1 forces the CPU path.
std::unique_ptr<TextureUploader> make_gl_textures();

}  // namespace attnlab::gui
