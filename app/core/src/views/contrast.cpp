#include "attnlab/core/views/contrast.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

double relative_luminance(const Rgb& c) {
    double l[3];
    for (int i = 0; i < 3; ++i) {
        const double v = c[static_cast<size_t>(i)] / 255.0;
        l[i] = v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

double contrast_ratio(const Rgb& a, const Rgb& b) {
    const double la = relative_luminance(a), lb = relative_luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

Rgb readable_ink(const Rgb& background) {
    constexpr Rgb kBlack = {0, 0, 0}, kWhite = {255, 255, 255};
    return contrast_ratio(kBlack, background) >= contrast_ratio(kWhite, background) ? kBlack : kWhite;
}

}  // namespace attnlab
