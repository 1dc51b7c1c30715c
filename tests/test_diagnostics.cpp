// The compiler's output read as diagnostics, whatever the learner's code makes
// the compiler print: ordinary errors, one 60 KB line, binary bytes, 10 MB.
#include <random>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/diagnostics.hpp"

using namespace attnlab;

TEST_CASE("parse_diagnostics: file, line, column, severity, message and the excerpt below") {
    const std::string out =
        "solution.cpp: In function 'Tensor f(const Tensor&)':\n"
        "solution.cpp:12:5: error: 'foo' was not declared in this scope\n"
        "   12 |     foo(x);\n"
        "      |     ^~~\n"
        "C:odd:name.cpp:3:1: warning: unused variable 'y' [-Wunused-variable]\n"
        "<attnlab entry declaration>:2:9: note: declared here\n"
        "solution.cpp:7:2: fatal error: cuda.h: No such file or directory\n";
    const std::vector<Diagnostic> d = parse_diagnostics(out);  // in line order: solution.cpp's 7 before its 12
    REQUIRE(d.size() == 4);
    CHECK(d[0].severity == "fatal error");
    CHECK(d[0].line == 7);
    CHECK(d[0].message == "cuda.h: No such file or directory");
    CHECK(d[1].file == "solution.cpp");
    CHECK(d[1].line == 12);
    CHECK(d[1].column == 5);
    CHECK(d[1].severity == "error");
    CHECK(d[1].message == "'foo' was not declared in this scope");
    CHECK(d[1].context == "   12 |     foo(x);\n      |     ^~~\n");
    CHECK(d[2].file == "C:odd:name.cpp");  // the first place where line:column: severity: fits
    CHECK(d[2].severity == "warning");
    CHECK(d[3].file == "<attnlab entry declaration>");  // the note stays with its warning
    CHECK(d[3].severity == "note");
}

namespace {

Diagnostic diag(const std::string& file, int line, int column, const std::string& severity) {
    Diagnostic d;
    d.file = file;
    d.line = line;
    d.column = column;
    d.severity = severity;
    d.message = file + ":" + std::to_string(line) + ":" + std::to_string(column);
    return d;
}

std::vector<std::string> places(const std::vector<Diagnostic>& ds) {
    std::vector<std::string> out;
    for (const Diagnostic& d : ds) out.push_back(d.severity + " " + d.message);
    return out;
}

}  // namespace

TEST_CASE("in_line_order: by line then column within a file, notes after their diagnostic, files as first named") {
    struct Row {
        const char* what;
        std::vector<Diagnostic> printed;
        std::vector<std::string> read;
    };
    const Row rows[] = {
        {"nothing", {}, {}},
        {"already in order", {diag("a.cpp", 1, 1, "error"), diag("a.cpp", 2, 1, "warning")}, {"error a.cpp:1:1", "warning a.cpp:2:1"}},
        {"a template's error reported at its instantiation, below a later line",
         {diag("a.cpp", 20, 3, "error"), diag("a.cpp", 8, 5, "error"), diag("a.cpp", 8, 2, "warning")},
         {"warning a.cpp:8:2", "error a.cpp:8:5", "error a.cpp:20:3"}},
        {"notes travel with the diagnostic above them, even into another file",
         {diag("a.cpp", 9, 1, "error"), diag("decl.h", 2, 9, "note"), diag("a.cpp", 9, 4, "note"), diag("a.cpp", 3, 1, "error")},
         {"error a.cpp:3:1", "error a.cpp:9:1", "note decl.h:2:9", "note a.cpp:9:4"}},
        {"files keep the order the compiler first named them in",
         {diag("b.h", 5, 1, "error"), diag("a.cpp", 1, 1, "error"), diag("b.h", 2, 1, "error")},
         {"error b.h:2:1", "error b.h:5:1", "error a.cpp:1:1"}},
        {"a leading note has no diagnostic to follow and is placed by its own line",
         {diag("a.cpp", 4, 1, "note"), diag("a.cpp", 2, 1, "error")}, {"error a.cpp:2:1", "note a.cpp:4:1"}},
        {"equal places keep the compiler's order", {diag("a.cpp", 3, 1, "error"), diag("a.cpp", 3, 1, "warning")},
         {"error a.cpp:3:1", "warning a.cpp:3:1"}},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        CHECK(places(in_line_order(row.printed)) == row.read);
    }
}

TEST_CASE("parse_diagnostics: what is not a diagnostic stays out") {
    for (const char* line : {"solution.cpp:12: error: no column", "solution.cpp:x:5: error: not a number", ":1:1: error: no file",
                             "solution.cpp:1:1: remark: not a severity", "solution.cpp:99999999999:1: error: a line past int",
                             "solution.cpp:1:1:error: no space"})
        CHECK_MESSAGE(parse_diagnostics(line).empty(), line);
}

TEST_CASE("parse_diagnostics: a 60 KB line, 90 KB of colons and digits, binary bytes and 10 MB end in a bounded answer") {
    // One line as long as the learner's longest (a compile error quoting it).
    std::string long_line = "solution.cpp:1:1: error: expected ';' before " + std::string(60 * 1024, 'x') + "\n   1 | " +
                            std::string(60 * 1024, 'y') + "\n";
    std::vector<Diagnostic> d = parse_diagnostics(long_line);
    REQUIRE(d.size() == 1);
    CHECK(d[0].message.size() <= kMaxDiagnosticMessageBytes + 3);
    CHECK(d[0].context.size() <= kMaxDiagnosticContextBytes + 4);

    std::string colons;
    for (int i = 0; i < 30000; ++i) colons += "1:2:";
    CHECK(parse_diagnostics(colons).empty());
    CHECK(parse_diagnostics("a" + colons + "3: error: at last").size() == 1);

    std::mt19937 rng(7);
    std::string binary(1 << 20, '\0');
    for (char& c : binary) c = static_cast<char>(rng());
    (void)parse_diagnostics(binary);

    std::string big;
    while (big.size() < 10u * 1024 * 1024) big += "solution.cpp:4:2: error: expected primary-expression before '<' token\n   4 |   k<<<\n";
    d = parse_diagnostics(big);
    CHECK(d.size() == kMaxDiagnostics);
    // A cut never splits a UTF-8 character.
    const std::string wide = "f.cpp:1:1: error: " + std::string(kMaxDiagnosticMessageBytes - 1, 'a') + "\xc3\xa9\xc3\xa9";
    d = parse_diagnostics(wide);
    REQUIRE(d.size() == 1);
    CHECK(d[0].message.substr(d[0].message.size() - 4) == std::string("a") + "…");
}

TEST_CASE("missing_header: the header of the first 'No such file or directory', else nothing") {
    const std::string cub = "mine.cu:3:10: fatal error: cub/cub.cuh: No such file or directory\n    3 | #include <cub/cub.cuh>\n      |          ^~~~~~~~~~~~~\n";
    CHECK(missing_header(parse_diagnostics(cub)) == "cub/cub.cuh");
    CHECK(missing_header(parse_diagnostics("mine.cpp:5:3: error: 'x' was not declared in this scope\n")).empty());
    CHECK(missing_header(parse_diagnostics("mine.cpp:1:10: fatal error: too many errors\n")).empty());
    CHECK(missing_header({}).empty());
}
