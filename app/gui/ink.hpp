#pragma once
// A label's colour on a filled cell: black or white, whichever reads on the
// fill (at least 4.5:1, core/views/contrast.hpp).
#include <cstdint>

#include <imgui.h>

#include "attnlab/core/views/contrast.hpp"

namespace attnlab::gui {

inline ImU32 ink_on(ImU32 fill) {
    const Rgb ink = readable_ink({static_cast<uint8_t>(fill >> IM_COL32_R_SHIFT), static_cast<uint8_t>(fill >> IM_COL32_G_SHIFT),
                                  static_cast<uint8_t>(fill >> IM_COL32_B_SHIFT)});
    return IM_COL32(ink[0], ink[1], ink[2], 255);
}

}  // namespace attnlab::gui
