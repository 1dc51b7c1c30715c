#pragma once
// Numbers as a person reads them in their language: English groups thousands
// with ',' and writes '.' before the decimals (2,359,296 · 4.00); Indonesian
// the other way round (2.359.296 · 4,00). One helper for the GUI and the CLI.
#include <cstdint>
#include <string>

#include "attnlab/core/course.hpp"

namespace attnlab {

// A whole number with thousands grouped: 2,359,296 / 2.359.296.
std::string format_count(int64_t n, Lang lang);
// Fixed decimals, thousands grouped: format_fixed(4, 2) = 4.00 / 4,00.
std::string format_fixed(double v, int decimals, Lang lang);
// format_number(v) (util.hpp: the shortest honest form, 0.5, 1.234e-04) with
// the language's decimal separator.
std::string format_number(double v, Lang lang);

}  // namespace attnlab
