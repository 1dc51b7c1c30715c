#include "attnlab/core/course/case_figures.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace attnlab {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The identifiers of a documented shape, one per axis: "(B, H, T, hd)" →
// B, H, T, hd. An axis written as an expression ("3D", "1 + H") binds nothing.
std::vector<std::string> axis_names(const std::string& shape) {
    std::vector<std::string> axes;
    std::string inner = shape;
    inner.erase(std::remove_if(inner.begin(), inner.end(), [](char c) { return c == '(' || c == ')' || c == ' '; }), inner.end());
    size_t start = 0;
    while (start <= inner.size()) {
        const size_t comma = std::min(inner.find(',', start), inner.size());
        const std::string axis = inner.substr(start, comma - start);
        const bool identifier = !axis.empty() && is_name_start(axis[0]) && std::all_of(axis.begin(), axis.end(), is_name_char);
        axes.push_back(identifier ? axis : "");
        start = comma + 1;
    }
    return axes;
}

// The course's way of writing a whole number: groups of three digits
// separated by a space from 1 000 on, in both languages.
std::string course_number(int64_t n) {
    const std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0 && digits.size() >= 4) out += ' ';
        out += digits[i];
    }
    return (n < 0 ? "-" : "") + out;
}

// Integer arithmetic and comparisons over one case's names, evaluated while
// it is parsed (the expressions are a few characters long).
class Expression {
public:
    Expression(const std::string& text, const CaseNames& names) : text_(text), names_(names) {}

    int64_t evaluate() {
        const int64_t v = parse_or();
        skip_spaces();
        if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_) + "'");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw CaseFigureError(problem); }
    void skip_spaces() {
        while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
    }
    bool take(const char* op) {
        skip_spaces();
        const size_t n = std::char_traits<char>::length(op);
        if (text_.compare(pos_, n, op) != 0) return false;
        // "<" must not take the first half of "<=", nor "=" of "==".
        if (n == 1 && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=' && (*op == '<' || *op == '>')) return false;
        pos_ += n;
        return true;
    }
    int64_t parse_or() {
        int64_t v = parse_and();
        while (take("||")) v = (parse_and() != 0) || v != 0;
        return v;
    }
    int64_t parse_and() {
        int64_t v = parse_comparison();
        while (take("&&")) v = (parse_comparison() != 0) && v != 0;
        return v;
    }
    int64_t parse_comparison() {
        const int64_t a = parse_sum();
        if (take("==")) return a == parse_sum();
        if (take("!=")) return a != parse_sum();
        if (take("<=")) return a <= parse_sum();
        if (take(">=")) return a >= parse_sum();
        if (take("<")) return a < parse_sum();
        if (take(">")) return a > parse_sum();
        return a;
    }
    int64_t parse_sum() {
        int64_t v = parse_term();
        for (;;) {
            if (take("+")) v += parse_term();
            else if (take("-")) v -= parse_term();
            else return v;
        }
    }
    int64_t parse_term() {
        int64_t v = parse_unary();
        for (;;) {
            const bool divides = take("/");
            const bool modulo = !divides && take("%");
            if (!divides && !modulo) {
                if (!take("*")) return v;
                v *= parse_unary();
                continue;
            }
            const int64_t d = parse_unary();
            if (d == 0) fail("division by zero");
            v = divides ? v / d : v % d;
        }
    }
    int64_t parse_unary() {
        if (take("-")) return -parse_unary();
        return parse_primary();
    }
    int64_t parse_primary() {
        skip_spaces();
        if (take("(")) {
            const int64_t v = parse_or();
            if (!take(")")) fail("a '(' without its ')'");
            return v;
        }
        const size_t start = pos_;
        if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
            return std::stoll(text_.substr(start, pos_ - start));
        }
        if (pos_ < text_.size() && is_name_start(text_[pos_])) {
            while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
            const std::string name = text_.substr(start, pos_ - start);
            const auto it = names_.find(name);
            if (it == names_.end()) fail("'" + name + "' is not a name of the cases (" + known_names() + ")");
            return it->second;
        }
        fail(pos_ < text_.size() ? "unexpected '" + text_.substr(pos_) + "'" : "an expression ends too early");
    }
    std::string known_names() const {
        std::string s;
        for (const auto& [name, value] : names_) s += (s.empty() ? "" : ", ") + name;
        return s.empty() ? "none bound" : "they are " + s;
    }

    const std::string& text_;
    const CaseNames& names_;
    size_t pos_ = 0;
};

int64_t evaluate(const std::string& expr, const CaseNames& names) { return evaluate_case_expression(expr, names); }

// One placeholder's body ("count T > 32") into its figure.
std::string fill(const std::string& body, const std::vector<CaseNames>& cases) {
    const size_t space = body.find(' ');
    const std::string word = body.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : body.substr(space + 1);
    if (word == "cases") {
        if (!rest.empty()) throw CaseFigureError("'cases' takes no expression: {{cases}}, or {{count COND}}");
        return course_number(static_cast<int64_t>(cases.size()));
    }
    if (rest.empty()) throw CaseFigureError("'" + word + "' needs an expression, or is not a placeholder (cases, count, first, values, min, max, case)");
    if (cases.empty()) throw CaseFigureError("the exercise has no cases");
    if (word == "count" || word == "first") {
        int64_t count = 0;
        for (size_t i = 0; i < cases.size(); ++i)
            if (evaluate(rest, cases[i]) != 0) {
                if (word == "first") return std::to_string(i + 1);
                ++count;
            }
        if (word == "first") throw CaseFigureError("no case satisfies " + rest);
        return course_number(count);
    }
    if (word == "values" || word == "min" || word == "max") {
        std::set<int64_t> values;
        for (const CaseNames& c : cases) values.insert(evaluate(rest, c));
        if (word == "min") return course_number(*values.begin());
        if (word == "max") return course_number(*values.rbegin());
        std::string s;
        for (int64_t v : values) s += (s.empty() ? "" : ", ") + course_number(v);
        return s;
    }
    if (word == "case") {
        const size_t next = rest.find(' ');
        const std::string which = rest.substr(0, next);
        if (next == std::string::npos) throw CaseFigureError("'case N EXPR' needs a case number and an expression");
        const bool last = which == "last";
        if (!last && (which.empty() || !std::all_of(which.begin(), which.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })))
            throw CaseFigureError("'" + which + "' is not a case number (1, 2, …, or last)");
        const size_t n = last ? cases.size() : std::stoul(which);
        if (n < 1 || n > cases.size()) throw CaseFigureError("case " + which + " does not exist: there are " + std::to_string(cases.size()));
        return course_number(evaluate(rest.substr(next + 1), cases[n - 1]));
    }
    throw CaseFigureError("'" + word + "' is not a placeholder (cases, count, first, values, min, max, case)");
}

}  // namespace

int64_t evaluate_case_expression(const std::string& expr, const CaseNames& names) { return Expression(expr, names).evaluate(); }

std::vector<CaseNames> case_names(const std::vector<ParamSpec>& params, const std::vector<Case>& cases,
                                  const std::map<std::string, std::string>& derived) {
    std::vector<CaseNames> all;
    for (const Case& c : cases) {
        CaseNames names;
        std::set<std::string> conflicting;
        const auto bind = [&](const std::string& name, int64_t value) {
            const auto [it, fresh] = names.emplace(name, value);
            if (!fresh && it->second != value) conflicting.insert(name);
        };
        for (size_t p = 0; p < params.size() && p < c.args.size(); ++p) {
            const Value& v = c.args[p];
            if (v.kind == ValueKind::Int) bind(params[p].name, v.int_value);
            if (v.kind != ValueKind::Tensor) continue;
            const std::vector<std::string> axes = axis_names(params[p].shape);
            if (axes.size() != v.tensor.shape.size()) continue;  // a shape the text documents loosely binds nothing
            for (size_t a = 0; a < axes.size(); ++a)
                if (!axes[a].empty()) bind(axes[a], v.tensor.shape[a]);
        }
        for (const std::string& name : conflicting) names.erase(name);
        // Over the parameters' names only, so their order does not matter; a
        // name the parameters already bind keeps its value (the course loader
        // refuses one that disagrees, and one a case cannot evaluate).
        CaseNames more;
        for (const auto& [name, expr] : derived) {
            try {
                more.emplace(name, evaluate_case_expression(expr, names));
            } catch (const CaseFigureError&) {
            }
        }
        names.insert(more.begin(), more.end());
        all.push_back(std::move(names));
    }
    return all;
}

std::vector<CaseNames> case_names(const Exercise& ex) { return case_names(ex.params, ex.cases, ex.derived_case_names); }

std::string expand_case_figures(const std::string& text, const std::vector<CaseNames>& cases) {
    std::string out;
    size_t pos = 0;
    for (;;) {
        const size_t open = text.find("{{", pos);
        if (open == std::string::npos) break;
        const size_t close = text.find("}}", open + 2);
        if (close == std::string::npos) throw CaseFigureError("a '{{' without its '}}': " + text.substr(open, 40));
        std::string body = text.substr(open + 2, close - open - 2);
        body.erase(0, body.find_first_not_of(' '));
        body.erase(body.find_last_not_of(' ') + 1);
        out += text.substr(pos, open - pos);
        try {
            out += fill(body, cases);
        } catch (const CaseFigureError& e) {
            throw CaseFigureError("{{" + body + "}}: " + e.what());
        }
        pos = close + 2;
    }
    return out + text.substr(pos);
}

namespace {

// "·" (with or without spaces around it) as "*", so that "B·H = 24" reads as
// a product; everything else as it was.
std::string with_products(const std::string& text) {
    static const std::regex middle_dot(" ?\xC2\xB7 ?");
    return std::regex_replace(text, middle_dot, "*");
}

// Every "name = name = … = number" in a text, each name checked against one
// case. A name the case does not bind (W_O, a constant) is not a case figure.
std::vector<std::string> wrong_assignments(const std::string& text, const CaseNames& names, const std::string& where) {
    static const std::regex chain(R"((^|[^A-Za-z0-9_*])((?:[A-Za-z_][A-Za-z0-9_]*(?:\*[A-Za-z_][A-Za-z0-9_]*)*\s*=\s*)+)(-?[0-9]{1,3}(?: [0-9]{3})+|-?[0-9]+)(?![0-9.]))");
    static const std::regex name_re(R"([A-Za-z_][A-Za-z0-9_]*(?:\*[A-Za-z_][A-Za-z0-9_]*)*)");
    std::vector<std::string> problems;
    const std::string normal = with_products(text);
    for (std::sregex_iterator it(normal.begin(), normal.end(), chain), end; it != end; ++it) {
        std::string digits = (*it)[3].str();
        digits.erase(std::remove(digits.begin(), digits.end(), ' '), digits.end());
        const int64_t written = std::stoll(digits);
        const std::string lhs = (*it)[2].str();
        for (std::sregex_iterator n(lhs.begin(), lhs.end(), name_re); n != std::sregex_iterator(); ++n) {
            int64_t value = 1;
            bool bound = true;
            const std::string product = n->str();
            for (size_t start = 0; start <= product.size();) {
                const size_t star = std::min(product.find('*', start), product.size());
                const auto found = names.find(product.substr(start, star - start));
                if (found == names.end()) bound = false;
                else value *= found->second;
                start = star + 1;
            }
            if (bound && value != written)
                problems.push_back(where + " writes " + product + " = " + std::to_string(written) + ", but it is " + std::to_string(value));
        }
    }
    return problems;
}

// The cases one sentence names: "case 3", "cases 2, 3 and 5", "the first
// case", "the last case", "kasus 4", "kasus ke-2", "kasus pertama/terakhir".
std::set<size_t> cases_named(const std::string& sentence, size_t case_count) {
    static const std::regex numbered(R"(\b(?:[Cc]ases? |[Kk]asus (?:ke-)?)([0-9]+(?:(?:,? and |,? dan |, )[0-9]+)*))");
    static const std::regex number("[0-9]+");
    static const std::regex first(R"(\b(?:[Ff]irst case|[Kk]asus pertama)\b)");
    static const std::regex last(R"(\b(?:[Ll]ast case|[Kk]asus terakhir)\b)");
    std::set<size_t> named;
    for (std::sregex_iterator it(sentence.begin(), sentence.end(), numbered), end; it != end; ++it) {
        const std::string list = (*it)[1].str();
        for (std::sregex_iterator n(list.begin(), list.end(), number); n != std::sregex_iterator(); ++n) named.insert(std::stoul(n->str()));
    }
    if (std::regex_search(sentence, first)) named.insert(1);
    if (std::regex_search(sentence, last)) named.insert(case_count);
    return named;
}

std::vector<std::string> sentences_of(const std::string& text) {
    std::vector<std::string> out;
    std::string current;
    for (size_t i = 0; i < text.size(); ++i) {
        current += text[i];
        const bool ends = text[i] == '\n' || ((text[i] == '.' || text[i] == '!' || text[i] == '?') && (i + 1 == text.size() || text[i + 1] == ' '));
        if (ends) {
            out.push_back(current);
            current.clear();
        }
    }
    if (!current.empty()) out.push_back(current);
    return out;
}

std::string quoted(const std::string& sentence) {
    std::string s = sentence;
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return "\"" + (s.size() > 70 ? s.substr(0, 67) + "..." : s) + "\"";
}

}  // namespace

std::vector<std::string> case_figure_problems(const std::string& raw_text, const std::vector<CaseNames>& cases) {
    static const std::regex counted(
        R"(\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|[0-9]+) (?:of the )?cases\b|\b(?:dua|tiga|empat|lima|enam|tujuh|delapan|sembilan|sepuluh|sebelas|dua belas|[0-9]+) kasus\b)",
        std::regex::icase);
    // "One case" and "satu kasus" are left alone: "in one case" also means
    // "per case" ("dalam satu kasus"), and a count of one is what a reader checks.
    std::vector<std::string> problems;
    for (const std::string& sentence : sentences_of(raw_text)) {
        std::smatch m;
        if (std::regex_search(sentence, m, counted))
            problems.push_back("\"" + m.str() + "\" counts the cases by hand: write the count as {{count COND}} or {{cases}}, in " + quoted(sentence));
        const std::set<size_t> named = cases_named(sentence, cases.size());
        if (named.size() != 1) continue;
        const size_t n = *named.begin();
        if (n < 1 || n > cases.size()) {
            problems.push_back("case " + std::to_string(n) + " does not exist (there are " + std::to_string(cases.size()) + "), in " + quoted(sentence));
            continue;
        }
        for (std::string& p : wrong_assignments(sentence, cases[n - 1], "case " + std::to_string(n) + ": " + quoted(sentence)))
            problems.push_back(std::move(p));
    }
    return problems;
}

std::vector<std::string> score_size_problems(const std::string& raw_text, std::optional<double> largest_score) {
    struct Size {
        std::regex words;
        double at_least, below;
        const char* name;
    };
    // A score word close before the size word: "rows of thousands of keys"
    // or "thousands of threads" say nothing about the scores.
    static const std::vector<Size> sizes = {
        {std::regex(R"(\b(?:scores?|skor(?:nya)?)\b[^.;:]{0,24}\b(?:thousands|ribuan)\b)", std::regex::icase), 1e3, 1e6, "thousands"},
        {std::regex(R"(\b(?:scores?|skor(?:nya)?)\b[^.;:]{0,24}\b(?:hundreds|ratusan)\b)", std::regex::icase), 1e2, 1e3, "hundreds"},
    };
    std::vector<std::string> problems;
    for (const std::string& sentence : sentences_of(raw_text))
        for (const Size& size : sizes) {
            if (!std::regex_search(sentence, size.words)) continue;
            if (!largest_score)
                problems.push_back(std::string("says the scores reach the ") + size.name +
                                   ", but the reference records no scores to compare with, in " + quoted(sentence));
            else if (*largest_score < size.at_least || *largest_score >= size.below)
                problems.push_back(std::string("says the scores reach the ") + size.name + ", but the largest |score| in the cases is " +
                                   std::to_string(static_cast<long long>(*largest_score)) + ", in " + quoted(sentence));
        }
    return problems;
}

std::vector<std::string> case_name_problems(const std::string& name, const CaseNames& names) {
    return wrong_assignments(name, names, "the name " + quoted(name));
}

}  // namespace attnlab
