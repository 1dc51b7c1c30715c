#include "attnlab/core/views/learner_view.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "attnlab/core/text/launch_words.hpp"

namespace attnlab {

namespace {

LineMarkKind diagnostic_kind(const std::string& severity) {
    return severity == "warning" ? LineMarkKind::Warning : LineMarkKind::Error;
}

void add_mark(std::vector<LineMark>& marks, int line, int column, LineMarkKind kind, std::string message) {
    if (line <= 0) return;
    marks.push_back({line, column, kind, std::move(message)});
}

// The racecheck pair's other access, in words.
std::string other_access_text(const emu::Fault& f, Lang lang) {
    const std::string thread = "(" + std::to_string(f.other_thread.x) + ", " + std::to_string(f.other_thread.y) + ", " +
                               std::to_string(f.other_thread.z) + ")";
    return tr(lang, f.other_is_write ? "gui.lines.race_other_write" : "gui.lines.race_other_read",
              {{"thread", thread}, {"index", std::to_string(f.index)}});
}

}  // namespace

std::vector<LineMark> verdict_lines(const CheckResult& r, const std::string& learner_file, Lang lang) {
    std::vector<LineMark> marks;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.severity == "note" || d.file != learner_file) continue;
        add_mark(marks, d.line, d.column, diagnostic_kind(d.severity), d.severity + ": " + d.message);
    }
    if (r.failed_case >= 0 && r.failed_case < static_cast<int>(r.cases.size())) {
        const CaseOutcome& c = r.cases[static_cast<size_t>(r.failed_case)];
        for (const emu::LaunchReport& L : c.kernels.launches) {
            if (L.ok()) continue;
            add_mark(marks, L.fault.line, 0, LineMarkKind::Fault, describe_fault(L.fault, lang));
            if (L.fault.kind == emu::FaultKind::SharedRace && L.fault.other_line != L.fault.line)
                add_mark(marks, L.fault.other_line, 0, LineMarkKind::Fault, other_access_text(L.fault, lang));
            break;  // the first faulting launch stopped the case
        }
    }
    return marks;
}

namespace {

// The source with comments (and, when `blank_strings`, string and character
// literals) replaced by spaces; newlines and offsets are kept.
std::string without_comments(const std::string& src, bool blank_strings) {
    std::string out = src;
    enum { Code, Line, Block, Str, Chr } st = Code;
    for (size_t i = 0; i < src.size(); ++i) {
        const char c = src[i], n = i + 1 < src.size() ? src[i + 1] : '\0';
        auto blank = [&](size_t k) {
            if (out[k] != '\n') out[k] = ' ';
        };
        switch (st) {
            case Code:
                if (c == '/' && n == '/') st = Line, blank(i);
                else if (c == '/' && n == '*') st = Block, blank(i), blank(++i);
                else if (c == '"') st = Str;
                else if (c == '\'') st = Chr;
                break;
            case Line:
                if (c == '\n') st = Code;
                else blank(i);
                break;
            case Block:
                blank(i);
                if (c == '*' && n == '/') blank(++i), st = Code;
                break;
            case Str:
            case Chr:
                if (c == '\\' && i + 1 < src.size()) {
                    if (blank_strings) blank(i), blank(i + 1);
                    ++i;
                } else if ((st == Str && c == '"') || (st == Chr && c == '\'')) st = Code;
                else if (blank_strings) blank(i);
                break;
        }
    }
    return out;
}

// Names a learner is likely to give the tensor of a stage, best first.
std::vector<std::string> names_for(const std::string& stage) {
    std::string low = stage;
    for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    static const std::vector<std::pair<std::string, std::vector<std::string>>> aliases = {
        {"q", {"q", "Q", "queries", "q_h", "qh", "q_heads"}},
        {"k", {"K", "keys", "k_h", "kh", "k_heads"}},
        {"v", {"v", "V", "values", "v_h", "vh", "v_heads"}},
        {"scores", {"scores", "score", "att_scores", "attn_scores", "logits", "att", "s"}},
        {"masked", {"masked", "masked_scores", "scores_masked"}},
        {"weights", {"weights", "weight", "att_weights", "attn_weights", "probs", "p", "attn", "w"}},
        {"heads", {"heads", "head_out", "heads_out", "ctx", "context", "y"}},
        {"concat", {"concat", "merged", "joined", "cat", "combined"}},
        {"out", {"out", "output", "result", "y"}},
        {"output", {"out", "output", "result"}},
    };
    for (const auto& [key, names] : aliases)
        if (key == low) return names;
    return {stage};
}

int line_of(const std::string& text, size_t offset) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(offset, text.size())), '\n'));
}

size_t line_start(const std::string& text, size_t offset) {
    while (offset > 0 && text[offset - 1] != '\n') --offset;
    return offset;
}

std::string indentation_at(const std::string& text, size_t start) {
    size_t e = start;
    while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
    return text.substr(start, e - start);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// From a declaration, the end of its scope: the first `return` at the same
// brace depth, else the brace that closes the scope. npos when neither.
size_t scope_end(const std::string& code, size_t from) {
    int depth = 0;
    for (size_t i = from; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '{' || c == '(') ++depth;
        else if (c == '}' || c == ')') {
            if (--depth < 0) return c == '}' ? i : std::string::npos;
        } else if (depth == 0 && code.compare(i, 6, "return") == 0 && (i == 0 || !is_word_char(code[i - 1])) &&
                   (i + 6 >= code.size() || !is_word_char(code[i + 6])))
            return i;
    }
    return std::string::npos;
}

}  // namespace

std::optional<ProbeInsertion> suggest_probe(const std::string& source, const std::string& stage) {
    if (stage.empty() || stage.find_first_of("\"\\\n") != std::string::npos) return std::nullopt;
    // Already probed (in code, not in a comment): nothing to add.
    if (without_comments(source, false).find("probe(\"" + stage + "\"") != std::string::npos) return std::nullopt;
    const std::string code = without_comments(source, true);
    for (const std::string& name : names_for(stage)) {
        // A local tensor: `Tensor name = …`, `Tensor name({…})`, `auto name = …` (not a parameter).
        const std::regex decl("\\b(Tensor|auto)\\s*&?\\s+" + name + "\\s*(=|\\(|\\{)");
        size_t best = std::string::npos;
        for (auto it = std::sregex_iterator(code.begin(), code.end(), decl); it != std::sregex_iterator(); ++it)
            best = static_cast<size_t>(it->position(0));
        if (best == std::string::npos) continue;
        // Past the end of the declaring statement, then to the end of its scope.
        size_t semi = best;
        for (int depth = 0; semi < code.size(); ++semi) {
            if (code[semi] == '(' || code[semi] == '{') ++depth;
            else if (code[semi] == ')' || code[semi] == '}') --depth;
            else if (code[semi] == ';' && depth == 0) break;
        }
        if (semi >= code.size()) continue;
        const size_t end = scope_end(code, semi + 1);
        if (end == std::string::npos) continue;
        ProbeInsertion p;
        p.variable = name;
        const size_t at = line_start(source, end);
        p.line = line_of(source, at);
        // Before a `return`: its indentation; before a closing brace: the declaration's.
        const std::string indent = code[end] == '}' ? indentation_at(source, line_start(source, best)) : indentation_at(source, at);
        if (code.substr(at, end - at).find_first_not_of(" \t") != std::string::npos) continue;  // code before it on that line
        p.text = indent + "probe(\"" + stage + "\", " + name + ");\n";
        return p;
    }
    return std::nullopt;
}

std::string apply_probe(const std::string& source, const ProbeInsertion& insertion) {
    size_t offset = 0;
    for (int line = 1; line < insertion.line && offset < source.size(); ++offset)
        if (source[offset] == '\n') ++line;
    std::string out = source;
    out.insert(std::min(offset, out.size()), insertion.text);
    return out;
}

}  // namespace attnlab
