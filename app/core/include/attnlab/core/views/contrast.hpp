#pragma once
// Text that stays readable on whatever colour a view paints under it: WCAG 2's
// contrast ratio, and the ink (black or white) that gives a label on a
// background at least 4.5:1, which one of the two always does.
#include <array>
#include <cstdint>

namespace attnlab {

using Rgb = std::array<uint8_t, 3>;

// WCAG 2's relative luminance of an sRGB colour, in [0, 1].
double relative_luminance(const Rgb& c);
// (lighter + 0.05) / (darker + 0.05): 1 for equal colours, 21 for black on white.
double contrast_ratio(const Rgb& a, const Rgb& b);
// Black or white, whichever reads better on `background` (never under 4.58:1).
Rgb readable_ink(const Rgb& background);

}  // namespace attnlab
