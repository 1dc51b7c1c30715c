#pragma once
// Every number a person reads (CLI text, reports, the GUI) goes through these;
// JSON keeps plain numbers.
// Numbers as a person reads them in their language: English groups thousands
// with ',' and writes '.' before the decimals (2,359,296 · 4.00); Indonesian
// the other way round (2.359.296 · 4,00). One helper for the GUI and the CLI.
#include <cstddef>
#include <cstdint>
#include <string>

#include "attnlab/core/course/course.hpp"

namespace attnlab {

// A limit that is a whole number of MiB, as the sentences quoting it write it: "1 MB".
std::string whole_megabytes(size_t bytes);
// A whole number with thousands grouped: 2,359,296 / 2.359.296.
std::string format_count(int64_t n, Lang lang);
// Fixed decimals, thousands grouped: format_fixed(4, 2) = 4.00 / 4,00.
std::string format_fixed(double v, int decimals, Lang lang);
// format_number(v) (util.hpp: the shortest honest form, 0.5, 1.234e-04) with
// the language's decimal separator.
// Thousands grouped in its fixed form (12,345.5 / 12.345,5).
std::string format_number(double v, Lang lang);
// printf's %g (tolerances: 1e-05, 0.0001 / 0,0001).
std::string format_short(double v, Lang lang);
// A fraction as a percentage, one decimal when it is not whole: 0.5 → 50, 0.125 → 12.5 / 12,5.
std::string format_percent(double fraction, Lang lang);
// A number already written the English way ("0.25", "1.5e-03"), with the
// language's decimal separator (no grouping).
std::string with_decimal_separator(std::string s, Lang lang);

}  // namespace attnlab
