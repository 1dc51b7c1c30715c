#include "attnlab/emu/cuda_source.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace attnlab::cuda_source {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Learner code is at most 1 MiB, yet every scan below must stay linear in it
// (a hostile file must not make a check take minutes): scans that start over
// at each match are capped by what real code needs.
constexpr size_t kMaxKernelNameChars = 512;   // `ns::tile_kernel<float, 16, true>`
constexpr size_t kMaxConfigChars = 4096;      // grid, block, bytes, stream
constexpr size_t kMaxDeclarationChars = 4096; // `__shared__ float a[...], b[...];`
constexpr size_t kMaxUnreadParts = 20;         // a file's unread constructs, by line

// The end of the identifier or preprocessing number at `i` (1'024, 0x1p-3,
// 1e+5): a digit separator `'` in one opens no character literal.
size_t token_end(const std::string& s, size_t i) {
    const bool number = std::isdigit(static_cast<unsigned char>(s[i])) != 0;
    for (++i; i < s.size(); ++i) {
        const char c = s[i];
        if (is_ident(c)) continue;
        if (!number) break;
        const bool separator = c == '\'' && i + 1 < s.size() && is_ident(s[i + 1]);
        const bool exponent_sign = (c == '+' || c == '-') && std::strchr("eEpP", s[i - 1]) != nullptr;
        if (c != '.' && !separator && !exponent_sign) break;
    }
    return i;
}

// Where the raw string literal whose `"` is at `quote` ends (just past it), or
// npos when that `"` does not open one (R"delim( ... )delim").
size_t raw_string_end(const std::string& s, size_t quote) {
    if (quote == 0 || s[quote - 1] != 'R') return std::string::npos;
    size_t prefix = quote - 1;  // R, or its encoding prefix u8R, uR, UR, LR
    if (prefix >= 2 && s.compare(prefix - 2, 2, "u8") == 0) prefix -= 2;
    else if (prefix >= 1 && (s[prefix - 1] == 'u' || s[prefix - 1] == 'U' || s[prefix - 1] == 'L')) prefix -= 1;
    if (prefix > 0 && is_ident(s[prefix - 1])) return std::string::npos;  // FOOR"...": an identifier, then a string
    size_t open = quote + 1;  // the delimiter has at most 16 characters
    while (open < s.size() && open - quote - 1 <= 16 && s[open] != '(') ++open;
    if (open >= s.size() || s[open] != '(') return std::string::npos;
    const std::string delimiter = s.substr(quote + 1, open - quote - 1);
    if (delimiter.find_first_of(" \\\n\t)\"") != std::string::npos) return std::string::npos;
    const size_t close = s.find(")" + delimiter + "\"", open + 1);
    return close == std::string::npos ? s.size() : close + delimiter.size() + 2;
}

// The source with comments (and, with `literals`, the insides of string and
// character literals) blanked, newlines kept, so every search below sees code
// only, at the same offsets as the original.
std::string blanked(const std::string& s, bool literals) {
    std::string out = s;
    size_t i = 0;
    auto blank = [&](size_t from, size_t to) {
        for (size_t k = from; k < to && k < out.size(); ++k)
            if (out[k] != '\n') out[k] = ' ';
    };
    while (i < s.size()) {
        if (s.compare(i, 2, "//") == 0) {
            size_t end = s.find('\n', i);
            while (end != std::string::npos && end > 0 && s[end - 1] == '\\') end = s.find('\n', end + 1);  // continued
            if (end == std::string::npos) end = s.size();
            blank(i, end);
            i = end;
        } else if (s.compare(i, 2, "/*") == 0) {
            size_t end = s.find("*/", i + 2);
            end = end == std::string::npos ? s.size() : end + 2;
            blank(i, end);
            i = end;
        } else if (s[i] == '"' && raw_string_end(s, i) != std::string::npos) {
            const size_t end = raw_string_end(s, i);
            if (literals) blank(i + 1, end - 1);  // the quotes stay: a literal is still a token
            i = end;
        } else if (s[i] == '"' || s[i] == '\'') {
            const char quote = s[i];
            size_t k = i + 1;
            while (k < s.size() && s[k] != quote && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
            if (literals) blank(i + 1, k);
            i = k + 1;
        } else if (is_ident(s[i])) {
            i = token_end(s, i);
        } else {
            ++i;
        }
    }
    return out;
}

std::string code_only(const std::string& s) { return blanked(s, true); }

// A blank at `i`: whitespace, or the backslash of a line continuation.
bool is_blank(const std::string& code, size_t i) {
    return std::isspace(static_cast<unsigned char>(code[i])) || (code[i] == '\\' && i + 1 < code.size() && code[i + 1] == '\n');
}

// Where the launch configuration that starts at `from` (just past `<<<`)
// ends: the offset of its `>>>`, outside every (), [] and {} (a lambda's body
// may hold `;` and `>>>`-free commas), or npos: none before a `;` outside
// them, or a bracket closed that the configuration never opened.
size_t launch_config_end(const std::string& code, size_t from) {
    int depth = 0;
    const size_t end = std::min(code.size(), from + kMaxConfigChars);
    for (size_t i = from; i + 2 < end; ++i) {
        const char c = code[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return std::string::npos;
        } else if (depth == 0 && code.compare(i, 3, ">>>") == 0) {
            return i;
        } else if (depth == 0 && c == ';') {
            return std::string::npos;
        }
    }
    return std::string::npos;
}

bool is_member_arrow(const std::string& code, size_t i) { return code[i] == '>' && i > 0 && code[i - 1] == '-'; }

// The opening bracket of the closing one at `close` (`)`, `]` or a template's
// `>`), scanning back no further than `limit`; npos when there is none.
// (), [] and {} nest; a `<` or `>` counts only where it can be a template's
// (not inside parentheses or brackets: `k<(N > 2)>` is one argument).
size_t opening_bracket(const std::string& code, size_t close, size_t limit) {
    char open[64];  // the brackets still open, innermost last, as their closers
    size_t depth = 0;  // no kernel's name nests deeper
    for (size_t i = close + 1; i-- > limit;) {
        const char c = code[i];
        const char inner = depth == 0 ? '\0' : open[depth - 1];
        if (c == ')' || c == ']' || c == '}' || (c == '>' && (depth == 0 || inner == '>') && !is_member_arrow(code, i))) {
            if (depth == sizeof open) return std::string::npos;
            open[depth++] = c;
            continue;
        }
        const char closer = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : c == '<' ? '>' : '\0';
        if (closer == '\0' || (c == '<' && inner != '>')) {
            if (c == ';' && inner != '}') return std::string::npos;
            continue;
        }
        if (closer != inner) return std::string::npos;
        if (--depth == 0) return i;
    }
    return std::string::npos;
}

// The identifier that ends at `end` (just past it): its start, or npos.
size_t identifier_start(const std::string& code, size_t end, size_t limit) {
    size_t i = end;
    while (i > limit && is_ident(code[i - 1])) --i;
    if (i == end || std::isdigit(static_cast<unsigned char>(code[i]))) return std::string::npos;
    return i;
}

// Words after which `(...)` is a condition (`if (c) k<<<...`) or an operand
// (`return (k)`), never the arguments of a call.
bool is_condition_keyword(const std::string& w) { return w == "if" || w == "while" || w == "for" || w == "switch"; }
bool is_operand_keyword(const std::string& w) {
    return w == "return" || w == "case" || w == "else" || w == "do" || w == "throw" || w == "co_return";
}

// One piece of a kernel expression read backwards from `end`: a name (with
// its template arguments) or a bracketed group; `start` npos when neither.
struct Piece {
    size_t start = std::string::npos;
    bool name = false;
    char closer = 0;  // ')' or ']' for a bracketed group
};

Piece piece_before(const std::string& code, size_t end, size_t limit) {
    const char c = code[end - 1];
    Piece p;
    if (c == '>' && !is_member_arrow(code, end - 1)) {  // template arguments, after their template's name
        const size_t open = opening_bracket(code, end - 1, limit);
        p.start = open == std::string::npos ? open : identifier_start(code, open, limit);
        p.name = true;
    } else if (is_ident(c)) {
        p.start = identifier_start(code, end, limit);
        p.name = true;
    } else if (c == ')' || c == ']') {
        p.start = opening_bracket(code, end - 1, limit);
        p.closer = c;
    }
    return p;
}

// The start of the kernel expression that ends just before `<<<` at `at`, or
// npos when there is none. The kernel is a postfix expression, read backwards:
// a name (`k`, `ns::k`, `::k`, `k<float, 4>`, `k<(N > 2)>`), a call, subscript
// or member of one (`pick(n)`, `table[i]`, `s.fn`, `p->fn`), or a primary in
// parentheses (`(c ? k2 : k1)`). Every bracket balances, so a comparison or
// a comma inside one never ends it.
size_t kernel_expression_start(const std::string& code, size_t at) {
    size_t end = at;
    while (end > 0 && is_blank(code, end - 1)) --end;
    const size_t limit = end > kMaxKernelNameChars ? end - kMaxKernelNameChars : 0;
    size_t i = end;  // the expression read so far is [i, end)
    enum class Needs { Nothing, Name, Operand } needs = Needs::Operand;  // what must come before it
    while (i > limit) {
        const Piece p = piece_before(code, i, limit);
        if (p.start == std::string::npos || (needs == Needs::Name && !p.name)) break;  // the expression ends here
        const size_t after = i;  // where this piece ends
        i = p.start;
        needs = Needs::Nothing;
        const char before = i > limit ? code[i - 1] : '\0';
        if (p.name) {  // `::`, `.` or `->` may come before a name
            if (i >= limit + 2 && code.compare(i - 2, 2, "::") == 0) {
                i -= 2;  // `::k` alone names the global scope's k
                if (i > limit && (is_ident(code[i - 1]) || code[i - 1] == '>')) needs = Needs::Name;
            } else if (before == '.' || (before == '>' && is_member_arrow(code, i - 1))) {
                i -= before == '.' ? 1 : 2;
                needs = Needs::Operand;
            } else {
                return i;
            }
            continue;
        }
        // A bracketed group is a call or a subscript when a callee comes right
        // before it, else (a `(`) the parenthesised kernel itself.
        const bool callee = is_ident(before) || before == ')' || before == ']' || (before == '>' && !is_member_arrow(code, i - 1));
        if (is_ident(before)) {
            const size_t word = identifier_start(code, i, limit);
            const std::string w = word == std::string::npos ? "" : code.substr(word, i - word);
            if (is_condition_keyword(w)) return after < end ? after : std::string::npos;
            if (is_operand_keyword(w)) return p.closer == ')' ? i : std::string::npos;
        }
        if (!callee) return p.closer == ')' ? i : std::string::npos;
        needs = Needs::Operand;
    }
    // Read to its start, unless nothing (or half a name) is before `<<<` or it
    // is longer than any kernel expression.
    return needs == Needs::Nothing && (i > limit || limit == 0) ? i : std::string::npos;
}

// The replacement of `replaced` with the same number of lines: the newlines
// it lacks (a declaration spread over lines becomes one) follow it, continued
// with a backslash where the learner's were (a launch inside a macro).
std::string keep_lines(const std::string& replaced, std::string replacement) {
    const auto count = [](const std::string& t, const char* what) {
        long n = 0;
        for (size_t at = t.find(what); at != std::string::npos; at = t.find(what, at + 1)) ++n;
        return n;
    };
    const long missing = count(replaced, "\n") - count(replacement, "\n");
    const long continued = std::min(missing, count(replaced, "\\\n") - count(replacement, "\\\n"));
    for (long k = 0; k < missing; ++k) replacement += k < continued ? "\\\n" : "\n";
    return replacement;
}

struct Edit {
    size_t from, to;
    std::string text;
};

std::string apply(const std::string& s, const std::vector<Edit>& edits) {
    std::string out;
    size_t at = 0;
    for (const Edit& e : edits) {
        out.append(s, at, e.from - at);
        out += keep_lines(s.substr(e.from, e.to - e.from), e.text);
        at = e.to;
    }
    out.append(s, at, std::string::npos);
    return out;
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// Text on one line: every run of blanks, newlines and line continuations
// becomes one space.
std::string one_line(const std::string& t) {
    std::string out;
    bool blank = false;
    for (size_t i = 0; i < t.size(); ++i) {
        const bool continuation = t[i] == '\\' && i + 1 < t.size() && t[i + 1] == '\n';
        if (continuation || std::isspace(static_cast<unsigned char>(t[i]))) {
            blank = true;
            i += continuation;
            continue;
        }
        if (blank && !out.empty()) out += ' ';
        blank = false;
        out += t[i];
    }
    return out;
}

// `t` as the inside of a C++ string literal.
std::string escaped(const std::string& t) {
    std::string out;
    for (char c : t) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

// What the rewrite could not read, by line (the first kMaxUnreadParts: a
// hostile file may hold a million `<<<`).
class UnreadLog {
public:
    explicit UnreadLog(const std::string& code) : code_(code) {}
    void add(UnreadConstruct construct, size_t offset) {
        if (parts_.size() >= kMaxUnreadParts) return;
        if (line_starts_.empty()) {
            line_starts_.push_back(0);
            for (size_t i = 0; i < code_.size(); ++i)
                if (code_[i] == '\n') line_starts_.push_back(i + 1);
        }
        const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - line_starts_.begin();
        parts_.push_back({construct, static_cast<int>(line)});
    }
    std::vector<UnreadPart> parts() const {
        std::vector<UnreadPart> sorted = parts_;
        std::stable_sort(sorted.begin(), sorted.end(), [](const UnreadPart& a, const UnreadPart& b) { return a.line < b.line; });
        return sorted;
    }

private:
    const std::string& code_;
    std::vector<size_t> line_starts_;
    std::vector<UnreadPart> parts_;
};

// Every `name<<<config>>>(` in the code, rewritten by `make(name, label,
// config)`: the name without comments, on one line; the label the same as
// the inside of a string literal. A `<<<` that starts no launch it can read
// goes to `unread`.
template <class Make> void find_launches(const std::string& s, const std::string& code, std::vector<Edit>& edits, UnreadLog& unread, Make make) {
    const std::string uncommented = blanked(s, false);
    for (size_t at = code.find("<<<"); at != std::string::npos; at = code.find("<<<", at + 3)) {
        const size_t name_from = kernel_expression_start(code, at);
        if (name_from != std::string::npos && trim(code.substr(name_from, at - name_from)) == "operator") continue;  // operator<< <T>
        const size_t close = launch_config_end(code, at + 3);
        size_t paren = close == std::string::npos ? close : close + 3;
        while (paren < code.size() && is_blank(code, paren)) ++paren;
        if (name_from == std::string::npos || paren >= code.size() || code[paren] != '(') {
            unread.add(UnreadConstruct::Launch, at);
            continue;
        }
        const std::string name = one_line(uncommented.substr(name_from, at - name_from));
        const std::string config = s.substr(at + 3, close - at - 3);
        edits.push_back({name_from, paren + 1, make(name, escaped(name), config)});
        at = paren;
    }
}

// Brackets of a declaration, as one depth: (), [] and {} always; a
// template's <> only outside the others (inside `[N < M]` it compares).
class DeclarationDepth {
public:
    void see(char c) {
        if (c == '(' || c == '[' || c == '{') ++brackets_;
        else if (c == ')' || c == ']' || c == '}') --brackets_;
        else if (brackets_ == 0 && c == '<') ++angles_;
        else if (brackets_ == 0 && c == '>' && angles_ > 0) --angles_;
    }
    bool top() const { return brackets_ == 0 && angles_ == 0; }
    bool closed_too_many() const { return brackets_ < 0; }

private:
    int brackets_ = 0, angles_ = 0;
};

// `text` cut at its commas outside brackets and template arguments
// (`Pair<float, int> a, b` is two parts).
std::vector<std::string> top_level_parts(const std::string& text) {
    std::vector<std::string> parts(1);
    DeclarationDepth depth;
    for (char c : text) {
        if (c == ',' && depth.top()) parts.emplace_back();
        else parts.back() += c;
        depth.see(c);
    }
    return parts;
}

// The first `c` in `text` outside brackets and template arguments, or npos.
size_t find_top(const std::string& text, char c) {
    DeclarationDepth depth;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == c && depth.top()) return i;
        depth.see(text[i]);
    }
    return std::string::npos;
}

// One declarator of a shared declaration: `name`, `*name` or `name[dims]...`,
// with what precedes it (the type, in the first one, unless the type is a
// struct's body) and the pointer declarators of its own.
struct Declarator {
    std::string before, pointers, name, dims;
};

// True when `dims` is nothing but bracketed extents: `[N]`, `[TILE * HD][(n + 1)]`.
bool only_extents(const std::string& dims) {
    size_t i = 0;
    while (i < dims.size()) {
        if (dims[i] != '[') return false;
        int depth = 0;
        for (; i < dims.size(); ++i) {
            if (dims[i] == '[' || dims[i] == '(') ++depth;
            if ((dims[i] == ']' || dims[i] == ')') && --depth == 0) break;
        }
        if (i == dims.size()) return false;
        ++i;
        while (i < dims.size() && std::isspace(static_cast<unsigned char>(dims[i]))) ++i;
    }
    return true;
}

bool parse_declarator(const std::string& part, Declarator& d) {
    const size_t bracket = find_top(part, '[');
    size_t name_end = bracket == std::string::npos ? part.size() : bracket;
    while (name_end > 0 && std::isspace(static_cast<unsigned char>(part[name_end - 1]))) --name_end;
    size_t name_begin = name_end;
    while (name_begin > 0 && is_ident(part[name_begin - 1])) --name_begin;
    d.name = part.substr(name_begin, name_end - name_begin);
    d.dims = bracket == std::string::npos ? "" : trim(part.substr(bracket));
    if (bracket == std::string::npos && !trim(part.substr(name_end)).empty()) return false;
    // `float *p`, `float* p`: the stars are this declarator's own
    size_t type_end = name_begin;
    while (type_end > 0 && (part[type_end - 1] == '*' || std::isspace(static_cast<unsigned char>(part[type_end - 1])))) --type_end;
    for (size_t k = type_end; k < name_begin; ++k)
        if (part[k] == '*') d.pointers += '*';
    d.before = trim(part.substr(0, type_end));
    // Outside template arguments the type is words and `::` only: no
    // declarator of its own (a reference, a function pointer, an array's
    // brackets), nothing that is not C++ (`#`).
    DeclarationDepth depth;
    for (char c : d.before) {
        if (depth.top() && !is_ident(c) && c != ' ' && c != ':' && c != '<' && c != '>') return false;
        depth.see(c);
    }
    return !d.name.empty() && !std::isdigit(static_cast<unsigned char>(d.name[0])) && only_extents(d.dims);
}

// Whether a position is outside every function and class: each brace open
// there is a namespace's or an `extern "C"` block's. Asked for positions in
// increasing order, it reads the code once.
class NamespaceScope {
public:
    explicit NamespaceScope(const std::string& code) : code_(code) {}
    bool at(size_t position) {
        for (; next_ < position; ++next_) {
            if (code_[next_] == '}' && !braces_.empty()) {
                non_namespace_ -= !braces_.back();
                braces_.pop_back();
            }
            if (code_[next_] != '{') continue;
            braces_.push_back(opens_namespace(next_));
            non_namespace_ += !braces_.back();
        }
        return non_namespace_ == 0;
    }

private:
    // `namespace {`, `namespace a::b {`, `inline namespace v {`, `extern "C" {`
    bool opens_namespace(size_t brace) const {
        size_t k = brace;  // back over `name`, `a::b` or nothing, then the word before
        while (k > 0 && std::isspace(static_cast<unsigned char>(code_[k - 1]))) --k;
        if (k > 0 && code_[k - 1] == '"') {  // extern "C" {
            size_t q = k >= 2 ? code_.rfind('"', k - 2) : std::string::npos;
            while (q != std::string::npos && q > 0 && std::isspace(static_cast<unsigned char>(code_[q - 1]))) --q;
            return q != std::string::npos && q >= 6 && code_.compare(q - 6, 6, "extern") == 0;
        }
        size_t word_end = k;
        while (k > 0 && (is_ident(code_[k - 1]) || code_[k - 1] == ':')) --k;
        std::string word = code_.substr(k, word_end - k);
        if (word != "namespace") {  // a named namespace: the word before its name
            while (k > 0 && std::isspace(static_cast<unsigned char>(code_[k - 1]))) --k;
            word_end = k;
            while (k > 0 && is_ident(code_[k - 1])) --k;
            word = code_.substr(k, word_end - k);
        }
        return word == "namespace";
    }

    const std::string& code_;
    size_t next_ = 0;
    std::vector<bool> braces_;
    size_t non_namespace_ = 0;
};

// `__align__(16)`, `alignas(16)` or `__attribute__((aligned(16)))` in a
// declaration's type: removed from `type`, the number returned (0: none).
std::string take_alignment(std::string& type) {
    for (const char* spelling : {"__align__", "alignas", "__attribute__"}) {
        const size_t at = type.find(spelling);
        if (at == std::string::npos) continue;
        size_t open = type.find('(', at);
        if (open == std::string::npos) continue;
        int depth = 0;
        size_t close = open;
        for (; close < type.size(); ++close) {
            if (type[close] == '(') ++depth;
            if (type[close] == ')' && --depth == 0) break;
        }
        if (close >= type.size()) continue;
        std::string inside = type.substr(open + 1, close - open - 1);
        type.erase(at, close + 1 - at);
        std::string digits;
        for (char c : inside)
            if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
        return digits.empty() ? std::string() : digits;
    }
    return "";
}

// The preprocessor directives of the code, in order: [start, end) of each,
// its continued lines included.
std::vector<std::pair<size_t, size_t>> directives(const std::string& code) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t line = 0; line < code.size();) {
        size_t end = code.find('\n', line);
        while (end != std::string::npos && end > line && code[end - 1] == '\\') end = code.find('\n', end + 1);
        if (end == std::string::npos) end = code.size();
        size_t first = line;
        while (first < end && (code[first] == ' ' || code[first] == '\t')) ++first;
        if (first < end && code[first] == '#') out.emplace_back(line, end);
        line = end + 1;
    }
    return out;
}

// The parameters of the macro a `#define` directive defines (none for an
// object-like macro), and whether a `__shared__` in it is in its body (not
// its name); `defines` false for any other directive.
struct MacroContext {
    bool defines = false, in_body = false;
    std::vector<std::string> parameters;
};

MacroContext macro_context(const std::string& code, size_t start, size_t end) {
    MacroContext m;
    const std::string d = one_line(code.substr(start, end - start));
    size_t i = d.find('#') + 1;
    while (i < d.size() && d[i] == ' ') ++i;
    if (d.compare(i, 6, "define") != 0 || (i + 6 < d.size() && is_ident(d[i + 6]))) return m;
    m.defines = true;
    i += 6;
    while (i < d.size() && d[i] == ' ') ++i;
    const size_t name = i;
    while (i < d.size() && is_ident(d[i])) ++i;
    const size_t name_end = i;
    if (i < d.size() && d[i] == '(') {
        const size_t close = d.find(')', i);
        for (const std::string& p : top_level_parts(d.substr(i + 1, close == std::string::npos ? std::string::npos : close - i - 1)))
            m.parameters.push_back(trim(p));
    }
    m.in_body = d.compare(name, name_end - name, "__shared__") != 0;
    return m;
}

// Where the `__shared__` declaration whose text starts at `from` ends: at
// its `;` outside brackets and braces (a struct's body holds its own), or at
// the end of the directive it is written in (`directive_end`, npos for
// none: a macro's body), whichever is first. npos when neither comes within
// kMaxDeclarationChars, or a bracket closes that it never opened; `stop` is
// then where the search stopped.
size_t declaration_end(const std::string& code, size_t from, size_t directive_end, size_t& stop) {
    int depth = 0;
    const size_t end = std::min({code.size(), from + kMaxDeclarationChars, directive_end});
    for (stop = from; stop < end; ++stop) {
        const char c = code[stop];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0) return std::string::npos;
        else if (c == ';' && depth == 0) return stop;
    }
    return stop == directive_end && depth == 0 ? stop : std::string::npos;
}

// A declaration's struct, union or class body (`struct { float a[32]; int n; }`)
// split from its declarators: the type returned, `rest` keeps the declarators.
// "" when the type has no body.
std::string take_struct_body(std::string& rest) {
    const size_t open = find_top(rest, '{');
    if (open == std::string::npos) return "";
    const std::string head = " " + rest.substr(0, open);
    bool keyword = false;
    for (const char* k : {"struct", "union", "class"})
        for (size_t at = head.find(k); at != std::string::npos; at = head.find(k, at + 1))
            keyword = keyword || (!is_ident(head[at - 1]) && !is_ident(head[at + std::strlen(k)]));
    if (!keyword) return "";
    int depth = 0;
    for (size_t i = open; i < rest.size(); ++i) {
        if (rest[i] == '{') ++depth;
        if (rest[i] == '}' && --depth == 0) {
            const std::string body = trim(rest.substr(0, i + 1));
            rest = rest.substr(i + 1);
            return body;
        }
    }
    return "";
}

// A `__shared__` declaration read: its type, declarators, alignment and
// storage, or the construct it cannot be read as.
struct SharedDeclaration {
    bool understood = false;
    UnreadConstruct why = UnreadConstruct::SharedDeclaration;
    std::string type, alignment;
    bool struct_body = false, is_static = false;
    std::vector<Declarator> declarators;
};

SharedDeclaration read_shared(std::string decl) {
    SharedDeclaration s;
    decl = trim(one_line(decl));
    if (decl.compare(0, 6, "static") == 0 && (decl.size() == 6 || !is_ident(decl[6]))) {  // `__shared__ static float x;`
        s.is_static = true;
        decl.erase(0, 6);
    }
    s.alignment = take_alignment(decl);
    const std::string body = take_struct_body(decl);
    s.struct_body = !body.empty();
    if (find_top(decl, '=') != std::string::npos || find_top(decl, '{') != std::string::npos) {
        s.why = UnreadConstruct::SharedInitialiser;  // `= 0`, `{}`, `(1)` after the name is refused below
        return s;
    }
    for (const std::string& part : top_level_parts(decl)) {
        Declarator d;
        if (!parse_declarator(part, d)) return s;
        const bool first = s.declarators.empty();
        if ((first && !s.struct_body) == d.before.empty()) return s;  // the type is in the first one (or the body)
        s.declarators.push_back(std::move(d));
    }
    s.type = s.struct_body ? body : s.declarators[0].before;
    s.understood = !s.type.empty() && !s.declarators.empty();
    return s;
}

// The references a read declaration becomes: each declarator a reference of
// its own C++ type into the block's shared memory (raw_memory.hpp), named in
// faults by `label` (a string, or `#name` where a macro's parameter is the
// name). A struct's body is named once, by a typedef before them.
std::string shared_references(const SharedDeclaration& s, const MacroContext& macro, bool ends_with_semicolon) {
    const auto is_parameter = [&](const std::string& name) {
        return std::find(macro.parameters.begin(), macro.parameters.end(), name) != macro.parameters.end();
    };
    std::vector<std::string> statements;
    std::string type = s.type;
    if (s.struct_body) {
        const std::string& first = s.declarators[0].name;
        type = is_parameter(first) ? "attnlab_shared_##" + first + "##_type" : "attnlab_shared_" + first + "_type";
        statements.push_back("typedef " + s.type + " " + type);
    }
    const std::string storage = s.is_static ? "static " : "";
    const std::string align_arg = s.alignment.empty() ? "" : ", " + s.alignment;
    for (const Declarator& d : s.declarators) {
        const std::string t = type + d.pointers, dims = one_line(d.dims);
        const std::string reference = dims.empty() ? t + "& " + d.name : t + " (&" + d.name + ")" + dims;
        const std::string label = is_parameter(d.name) ? "#" + d.name : "\"" + d.name + "\"";
        statements.push_back(storage + reference + " = ::attnlab::emu::raw::shared_variable<" + t + dims + ">(" + label + ", [] {}" + align_arg + ")");
    }
    std::string text;
    for (size_t k = 0; k < statements.size(); ++k) text += (k ? "; " : "") + statements[k];
    return ends_with_semicolon ? text + ";" : text;
}

// `[static] [extern] __shared__ T a[dims], b, *c;` -> references into the
// block's shared memory (raw_memory.hpp): the names keep their C++ types
// (`float (&a)[N][M]`), so indexing, sizeof and decay to a pointer are the
// learner's own, and every access is checked through the instrumentation.
// T may be any type: a template's arguments with commas, a struct's body.
// `extern __shared__ T s[];` becomes a pointer to the launch's dynamic shared
// memory. A macro's body is read the same way up to the directive's end. Any
// other `__shared__` (an initialiser, a declarator it cannot read, a macro
// that stands for the word alone) goes to `unread`: never an unchecked static.
void find_shared(const std::string& code, std::vector<Edit>& edits, UnreadLog& unread) {
    const std::string key = "__shared__";
    NamespaceScope scope(code);
    const std::vector<std::pair<size_t, size_t>> lines_of_directives = directives(code);
    size_t directive = 0;  // the first directive that does not end before the search
    size_t macro_of = std::string::npos;  // the directive `macro` was read from (each is read once)
    MacroContext macro;
    for (size_t at = code.find(key); at != std::string::npos; at = code.find(key, at + key.size())) {
        if ((at > 0 && is_ident(code[at - 1])) || is_ident(code[at + key.size()])) continue;
        while (directive < lines_of_directives.size() && lines_of_directives[directive].second < at) ++directive;
        const bool in_directive = directive < lines_of_directives.size() && lines_of_directives[directive].first <= at;
        if (in_directive && macro_of != directive) {
            macro = macro_context(code, lines_of_directives[directive].first, lines_of_directives[directive].second);
            macro_of = directive;
        }
        if (in_directive && (!macro.defines || !macro.in_body)) continue;  // `#ifdef __shared__`, `#define __shared__`
        size_t stop = 0;
        const size_t semi = declaration_end(code, at + key.size(), in_directive ? lines_of_directives[directive].second : std::string::npos, stop);
        const size_t resume = at;
        // The next search starts where this one stopped: no text is read
        // twice, however many `__shared__` a hostile file holds.
        at = std::max(at, (semi == std::string::npos ? stop : semi) - key.size());
        if (semi == std::string::npos) {
            unread.add(UnreadConstruct::SharedDeclaration, resume);
            continue;
        }
        SharedDeclaration s = read_shared(code.substr(resume + key.size(), semi - resume - key.size()));
        if (!s.understood) {
            unread.add(s.why, resume);
            continue;
        }
        const bool ends_with_semicolon = semi < code.size() && code[semi] == ';';
        const size_t end = ends_with_semicolon ? semi + 1 : semi;
        size_t before = resume;
        while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
        const auto word_before = [&](const char* word) {
            const size_t n = std::strlen(word);
            return before >= n && code.compare(before - n, n, word) == 0 && (before == n || !is_ident(code[before - n - 1]));
        };
        if (word_before("extern")) {
            const Declarator& d = s.declarators[0];
            if (s.declarators.size() != 1 || d.dims != "[]" || s.struct_body) {
                unread.add(UnreadConstruct::SharedDeclaration, resume);
                continue;
            }
            edits.push_back({before - 6, end,
                             std::string(scope.at(resume) ? "static " : "") + s.type + d.pointers + "* const " + d.name +
                                 " = ::attnlab::emu::raw::dynamic_shared_as<" + s.type + d.pointers + ">()" + (ends_with_semicolon ? ";" : "")});
            continue;
        }
        const bool has_open_extent = std::any_of(s.declarators.begin(), s.declarators.end(), [](const Declarator& d) { return d.dims.find("[]") != std::string::npos; });
        if (has_open_extent) {
            unread.add(UnreadConstruct::SharedDeclaration, resume);
            continue;
        }
        const size_t from = word_before("static") ? before - 6 : resume;  // `static` is repeated before each reference
        s.is_static = s.is_static || from != resume;
        edits.push_back({from, end, shared_references(s, in_directive ? macro : MacroContext{}, ends_with_semicolon)});
    }
}

// The bracket at `open` ('(') closed: the offset of its ')', or npos (none
// within `limit` characters).
size_t matching_paren(const std::string& code, size_t open, size_t limit) {
    int depth = 0;
    const size_t end = std::min(code.size(), open + limit);
    for (size_t i = open; i < end; ++i) {
        if (code[i] == '(') ++depth;
        else if (code[i] == ')' && --depth == 0) return i;
    }
    return std::string::npos;
}

// `__launch_bounds__(A[, B[, C]])` on a kernel: its body starts with a call
// that refuses a launch of more threads per block than A (raw_memory.hpp),
// written after the body's `{` on the same line. A declaration without a
// body (`;` first) gets nothing: its definition carries the bound too.
void find_launch_bounds(const std::string& source, const std::string& code, std::vector<Edit>& edits) {
    const std::string key = "__launch_bounds__";
    for (size_t at = code.find(key); at != std::string::npos; at = code.find(key, at + key.size())) {
        if ((at > 0 && is_ident(code[at - 1])) || is_ident(code[at + key.size()])) continue;
        size_t open = at + key.size();
        while (open < code.size() && is_blank(code, open)) ++open;
        if (open >= code.size() || code[open] != '(') continue;
        const size_t close = matching_paren(code, open, kMaxConfigChars);
        if (close == std::string::npos) continue;
        int depth = 0;
        size_t body = close + 1;
        const size_t end = std::min(code.size(), body + kMaxDeclarationChars);
        for (; body < end; ++body) {
            const char c = code[body];
            if (c == '(' || c == '[') ++depth;
            else if (c == ')' || c == ']') --depth;
            else if (depth == 0 && (c == '{' || c == ';')) break;
        }
        if (body >= end || code[body] != '{') continue;
        const std::string bound = one_line(source.substr(open + 1, close - open - 1));
        edits.push_back({body + 1, body + 1, " ::attnlab::emu::raw::launch_bounds(" + bound + ");"});
    }
}

std::vector<Edit> sorted(std::vector<Edit> edits) {
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.from < b.from; });
    std::vector<Edit> out;  // overlapping edits cannot happen in valid code; keep the first
    for (Edit& e : edits)
        if (out.empty() || e.from >= out.back().to) out.push_back(std::move(e));
    return out;
}

}  // namespace

namespace {

// The file for the emulator, and what in it the rewrite could not read.
struct Reading {
    std::string text;
    std::vector<UnreadPart> unread;
};

Reading read_for_emulator(const std::string& source) {
    const std::string code = code_only(source);
    std::vector<Edit> edits;
    UnreadLog unread(code);
    find_launches(source, code, edits, unread, [](const std::string& name, const std::string& label, const std::string& config) {
        return "::attnlab::detail::launch_site(\"" + label + "\", " + name + ", " + config + ")(";
    });
    find_shared(code, edits, unread);
    find_launch_bounds(source, code, edits);
    return {apply(source, sorted(std::move(edits))), unread.parts()};
}

}  // namespace

std::string for_emulator(const std::string& source) { return read_for_emulator(source).text; }

std::vector<UnreadPart> unread_parts(const std::string& source) { return read_for_emulator(source).unread; }

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    size_t at = 0;
    while (at <= text.size()) {
        const size_t nl = text.find('\n', at);
        lines.push_back(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
        if (nl == std::string::npos) break;
        at = nl + 1;
    }
    return lines;
}

// "   12 | text" -> 12 (0: not an excerpt line).
int excerpt_line(const std::string& line, size_t& bar) {
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    const size_t digits = i;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
    if (i == digits || line.compare(i, 3, " | ") != 0) return 0;
    bar = i + 3;
    return std::atoi(line.c_str() + digits);
}

bool caret_line(const std::string& line) {
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    return line.compare(i, 2, "| ") == 0 || line.compare(i, 1, "|") == 0;
}

}  // namespace

std::string restore_learner_lines(const std::string& output, const std::string& original, const std::string& rewritten) {
    const std::vector<std::string> before = split_lines(original), after = split_lines(rewritten);
    std::vector<std::string> lines = split_lines(output);
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
        size_t bar = 0;
        const int n = excerpt_line(lines[i], bar);
        if (n > 0 && size_t(n) <= before.size() && size_t(n) <= after.size() && before[n - 1] != after[n - 1] &&
            lines[i].compare(bar, std::string::npos, after[n - 1]) == 0) {
            out += lines[i].substr(0, bar) + before[n - 1] + "\n";
            while (i + 1 < lines.size() && caret_line(lines[i + 1])) ++i;  // its columns were the rewrite's
            continue;
        }
        out += lines[i];
        if (i + 1 < lines.size()) out += "\n";
    }
    return out;
}

std::string for_nvrtc(const std::string& source) {
    const std::string code = code_only(source);
    std::vector<Edit> edits;
    UnreadLog unread(code);  // the check refused the file before NVRTC sees it
    // The kernel is named, as on the emulator: that instantiates a templated
    // kernel, which NVRTC otherwise never compiles (no figures for it).
    find_launches(source, code, edits, unread, [](const std::string& name, const std::string& label, const std::string& config) {
        return "::attnlab::detail::launch_site(\"" + label + "\", " + name + ", " + config + ")(";
    });
    return apply(source, sorted(std::move(edits)));
}

}  // namespace attnlab::cuda_source
