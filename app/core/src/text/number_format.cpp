#include "attnlab/core/text/number_format.hpp"

#include <cmath>
#include <cstdio>

#include "attnlab/core/base/util.hpp"

namespace attnlab {

namespace {

char group_separator(Lang lang) { return lang == Lang::Id ? '.' : ','; }
char decimal_separator(Lang lang) { return lang == Lang::Id ? ',' : '.'; }

// "1234567" → "1,234,567" (digits only, no sign).
std::string grouped(const std::string& digits, char sep) {
    std::string out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0) out += sep;
        out += digits[i];
    }
    return out;
}

}  // namespace

std::string whole_megabytes(size_t bytes) { return std::to_string(bytes >> 20) + " MB"; }

std::string format_count(int64_t n, Lang lang) {
    const bool negative = n < 0;
    const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
    return (negative ? "-" : "") + grouped(std::to_string(magnitude), group_separator(lang));
}

std::string format_fixed(double v, int decimals, Lang lang) {
    if (!std::isfinite(v)) return format_number(v);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(v));
    std::string s = buf;
    const size_t dot = s.find('.');
    std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    const bool zero = s.find_first_not_of("0.") == std::string::npos;
    std::string out = (v < 0 && !zero ? "-" : "") + grouped(whole, group_separator(lang));
    if (!frac.empty()) out += decimal_separator(lang) + frac;
    return out;
}

std::string format_number(double v, Lang lang) {
    std::string s = format_number(v);
    if (s.find_first_of("en") != std::string::npos || s.find_first_not_of("-0123456789.") != std::string::npos)
        return with_decimal_separator(s, lang);  // 1.234e-04, NaN, -inf: no thousands to group
    // Fixed notation: group the whole part (12345.5 → 12,345.5 / 12.345,5).
    const bool negative = !s.empty() && s[0] == '-';
    const std::string body = negative ? s.substr(1) : s;
    const size_t dot = body.find('.');
    std::string out = (negative ? "-" : "") + grouped(body.substr(0, dot), group_separator(lang));
    if (dot != std::string::npos) out += decimal_separator(lang) + body.substr(dot + 1);
    return out;
}

std::string format_short(double v, Lang lang) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return with_decimal_separator(buf, lang);
}

std::string format_percent(double fraction, Lang lang) {
    const double percent = fraction * 100.0;
    return format_fixed(percent, percent == std::floor(percent) ? 0 : 1, lang);
}

std::string with_decimal_separator(std::string s, Lang lang) {
    if (lang == Lang::Id)
        for (char& c : s)
            if (c == '.') c = ',';
    return s;
}

}  // namespace attnlab
