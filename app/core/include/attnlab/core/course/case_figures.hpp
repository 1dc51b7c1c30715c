#pragma once
// Figures about an exercise's cases in its texts, made true by construction.
//
// A statement that says "in two cases T > 32" goes stale the day a case is
// added. So a text either asks for the figure, and it is filled from
// cases.json when the course loads (a placeholder), or writes it by hand in a
// form `attnlab dev check` compares with the cases (case_figure_problems).
//
// Placeholders, in any statement, hint or explanation:
//   {{cases}}            how many cases the exercise has
//   {{count COND}}       how many cases satisfy COND            {{count T > 32}}
//   {{first COND}}       the number (1-based) of the first case that does
//   {{values EXPR}}      EXPR's distinct values, ascending, "1, 2, 5, 40"
//   {{min EXPR}}, {{max EXPR}}                                  {{max 8*T*hd}}
//   {{case N EXPR}}      EXPR in case N ("last" for the last case)
// EXPR is integer arithmetic (+ - * / %, parentheses) over the case's names;
// COND compares two EXPRs (== != < <= > >=), joined by && or ||.
// The names of a case: every identifier in a tensor parameter's documented
// shape bound to that axis's size ("(B, H, T, hd)"), and every int parameter
// by its name. A name two tensors give different sizes is not bound.
// Numbers of four digits or more are grouped with a space, as the course
// writes them ("10 240"), in both languages.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/core/course/course.hpp"

namespace attnlab {

using CaseNames = std::map<std::string, int64_t>;

// The names of each case, in case order: what the parameters bind, then
// each of `derived` (name -> expression over those) the case can evaluate.
std::vector<CaseNames> case_names(const std::vector<ParamSpec>& params, const std::vector<Case>& cases,
                                  const std::map<std::string, std::string>& derived = {});
// The exercise's own: its parameters and its "case_names".
std::vector<CaseNames> case_names(const Exercise& ex);

// A placeholder that cannot be filled: unknown word, unknown name, no case
// satisfying a {{first}}, a division by zero. what() names the placeholder.
class CaseFigureError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// EXPR (or COND, 1 for true) in one case. Throws CaseFigureError. Kernel
// rules that depend on the case use it too ("blocks_per_launch": "B*H").
int64_t evaluate_case_expression(const std::string& expr, const CaseNames& names);

// `text` with every {{…}} replaced by its figure. Throws CaseFigureError.
std::string expand_case_figures(const std::string& text, const std::vector<CaseNames>& cases);

// Hand-written facts about the cases in a text as its author wrote it (before
// expansion) that dev check can verify, and did not: English problems.
//  - a count of two or more cases in words or digits ("two cases", "dua
//    kasus") must be {{count …}};
//  - in a sentence that names exactly one case ("case 3", "the last case",
//    "kasus ke-2", "kasus terakhir"), every "name = number" with a name that
//    case binds must equal the case's value ("case 3 (`T = 13`)").
std::vector<std::string> case_figure_problems(const std::string& raw_text, const std::vector<CaseNames>& cases);

// A text's word for how large its cases' scores get ("scores in the
// thousands", "skornya mencapai ribuan": a score word, then within a few
// words "hundreds"/"ratusan" or "thousands"/"ribuan"), checked against
// `largest_score`, the largest |score| the reference computes over the cases
// (nullopt: the reference records no scores). "Thousands" means at least
// 1 000 and below a million; "hundreds", at least 100 and below 1 000.
// English problems, one per sentence that does not hold.
std::vector<std::string> score_size_problems(const std::string& raw_text, std::optional<double> largest_score);

// The same check on one case's name ("B = 2, H = 3, T = 13, hd = 16"): every
// "name = number" it writes is that case's.
std::vector<std::string> case_name_problems(const std::string& name, const CaseNames& names);

}  // namespace attnlab
