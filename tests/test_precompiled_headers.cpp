// Precompiled headers for learner files (issue 35): which headers a file's
// own includes let attnlab precompile, that a precompiled header is built
// exactly as the compiles that use it (-Winvalid-pch, and g++'s own word that
// it loaded it), that one is rebuilt when a header it was built from changes,
// and that a file still gets only the headers it asked for.
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/learner_includes.hpp"
#include "attnlab/core/check/precompiled_headers.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/base/util.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;

std::vector<std::string> leading(const std::string& source) {
    std::vector<std::string> known = standard_library_headers();
    known.push_back("attnlab/tensor.hpp");
    return leading_library_includes(source, known);
}

const Exercise& split() {
    static const Course course = load_course(kFixtures / "course");
    const Exercise* e = course.find("fx-split");
    REQUIRE(e != nullptr);
    return *e;
}

// A correct split_heads that needs <cmath> (std::sqrt) and <stdexcept>.
std::string split_heads_with(const std::string& includes) {
    return includes +
           "using namespace attnlab;\n"
           "Tensor split_heads(const Tensor& x, int n_heads) {\n"
           "    if (n_heads <= 0) throw std::invalid_argument(\"n_heads\");\n"
           "    const int64_t T = x.shape(0), hd = x.shape(1) / n_heads;\n"
           "    if (std::sqrt(1.0) != 1.0) return x;\n"
           "    return x.reshape({T, n_heads, hd}).transpose(1, 0, 2).contiguous();\n"
           "}\n";
}

// attnlab's own toolchain with `extra` added to the learner's flags (and so
// to the precompiled header's, which are the same).
Toolchain toolchain_with(const std::vector<std::string>& extra) {
    Toolchain t = Toolchain::detect();
    t.flags.insert(t.flags.end(), extra.begin(), extra.end());
    return t;
}

// g++ -H's output (one line per header it opens, "." per level of nesting)
// names a header ending in `suffix`.
bool opened(const std::string& output, const std::string& suffix) {
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        const size_t dots = line.find_first_not_of('.');
        const bool header_line = dots > 0 && dots != std::string::npos && line[dots] == ' ';
        if (header_line && line.size() >= suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
    }
    return false;
}

// What only <cmath>'s guarded body includes (libstdc++): opened when the
// compile parses <cmath> itself. (<cmath> itself is opened either way: its
// #include_next <math.h> comes before its include guard.)
const char* const kCmathBody = "/bits/specfun.h";

size_t files_ending(const fs::path& dir, const std::string& suffix) {
    size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        n += e.path().string().size() >= suffix.size() && e.path().string().compare(e.path().string().size() - suffix.size(), suffix.size(), suffix) == 0;
    return n;
}

}  // namespace

TEST_CASE("a file's leading library includes are what its precompiled header may hold") {
    CHECK(leading("#include <attnlab/tensor.hpp>\n\n#include <cmath>\n#include <stdexcept>\n\nusing namespace attnlab;\n#include <vector>\n") ==
          std::vector<std::string>{"attnlab/tensor.hpp", "cmath", "stdexcept"});  // <vector> comes after code: not moved ahead of it
    CHECK(leading("// A comment\n/* a block\n   comment */\n#include <cmath>  // std::exp\n  #  include <algorithm>\n") ==
          std::vector<std::string>{"algorithm", "cmath"});
    CHECK(leading("#include <vector>\n#include <vector>\n#include <cmath>\n") == std::vector<std::string>{"cmath", "vector"});
    // A macro, a quoted or unknown header may change what the headers after it
    // declare: the scan stops there.
    CHECK(leading("#include <cmath>\n#define _GLIBCXX_DEBUG\n#include <vector>\n") == std::vector<std::string>{"cmath"});
    CHECK(leading("#include \"mine.hpp\"\n#include <cmath>\n").empty());
    CHECK(leading("#include <Eigen/Dense>\n#include <cmath>\n").empty());
    CHECK(leading("#include <cmath> /* why */\n#include <vector>\n").empty());
    CHECK(leading("").empty());
}

TEST_CASE("a file that names a special math function keeps them; any other file's precompiled header leaves them out") {
    CHECK(names_special_math_function("float y = std::cyl_bessel_j(0.5f, x);"));
    CHECK(names_special_math_function("using namespace std;\nfloat z = riemann_zetaf(2.0f);"));
    CHECK(names_special_math_function("double b = std::betal(1, 2);"));
    CHECK(names_special_math_function("const float beta = 0.9f;  // a word match: the file keeps them"));
    CHECK_FALSE(names_special_math_function("float y = std::exp(x - m) / std::sqrt(hd);"));
    CHECK_FALSE(names_special_math_function("float betas = 1, alphabeta = 2, beta_1 = 3, legendre_table = 4;"));
    CHECK_FALSE(names_special_math_function(""));
    CHECK(precompiled_header_prelude("float beta;").empty());
    const std::vector<std::string> prelude = precompiled_header_prelude("float y = std::exp(x);");
    REQUIRE(prelude.size() == 1);
    CHECK(contains(prelude[0], "#define _GLIBCXX_BITS_SPECFUN_H"));
}

TEST_CASE("a dependency list names every file after its target") {
    CHECK(dependency_list_files("x.gch: x.hpp /usr/include/c++/12/cmath \\\n  /a\\ b/c.h\n") ==
          std::vector<std::string>{"x.hpp", "/usr/include/c++/12/cmath", "/a b/c.h"});
    CHECK(dependency_list_files("").empty());
}

TEST_CASE("the precompiled header is built exactly as the learner's compile uses it (-Winvalid-pch)") {
    // g++'s own report that it loaded the precompiled header: -H marks it
    // "!" (and "x" when it is not valid, which -Winvalid-pch also warns of).
    const Toolchain t = toolchain_with({"-Winvalid-pch", "-H"});
    REQUIRE(t.use_pch);
    TempDir cache("pch");
    Compiler c(t, cache.path());
    for (const std::string& includes : {std::string("#include <attnlab/tensor.hpp>\n#include <cmath>\n#include <stdexcept>\n"),
                                        std::string("#include <attnlab/tensor.hpp>\n#include <stdexcept>\n#include <cmath>\n")}) {
        const CompileOutput co = c.compile(split(), split_heads_with(includes), "mine.cpp", nullptr);
        CAPTURE(co.raw_output);
        CHECK(co.ok);
        CHECK_FALSE(contains(co.raw_output, "Winvalid-pch"));
        CHECK_FALSE(contains(co.raw_output, "not used because"));
        CHECK(contains(co.raw_output, "! "));
        CHECK(contains(co.raw_output, ".hpp.gch"));
        CHECK_FALSE(contains(co.raw_output, "\nx "));
        // <cmath> came from the precompiled header: the compile did not parse it.
        CHECK_FALSE(opened(co.raw_output, kCmathBody));
    }
    // The two files include the same headers in another order: one header serves both.
    CHECK(files_ending(cache.path() / "pch", ".hpp.gch") == 2);  // the registration's (entry header alone), and the learner file's

    // Without precompiled headers the same compile opens <cmath> itself.
    Toolchain without = t;
    without.use_pch = false;
    TempDir plain_cache("pch");
    Compiler plain(without, plain_cache.path());
    const CompileOutput co = plain.compile(split(), split_heads_with("#include <attnlab/tensor.hpp>\n#include <cmath>\n"
                                                                     "#include <stdexcept>\n"), "mine.cpp", nullptr);
    CAPTURE(co.raw_output);
    CHECK(co.ok);
    CHECK(opened(co.raw_output, kCmathBody));
}

TEST_CASE("a precompiled header is rebuilt when a header it was built from changes") {
    TempDir dir("pch-stale");
    const fs::path input = dir.path() / "input.h";
    write_file_atomic(input, "int a;\n");
    PrecompiledHeaders headers(dir.path() / "pch");
    int builds = 0;
    // Stands in for the compiler: "builds" the header and lists `input` as what it was built from.
    const PrecompiledHeaders::Build build = [&](const fs::path& header, const fs::path& output, const fs::path& deps, bool&) {
        ++builds;
        write_file_atomic(output, "built from " + header.string());
        write_file_atomic(deps, output.string() + ": " + header.string() + " \\\n " + input.string() + "\n");
        return true;
    };
    const fs::path first = headers.header_for("cpp", {}, "attnlab/tensor.hpp", {"cmath"}, build);
    REQUIRE_FALSE(first.empty());
    CHECK(fs::exists(fs::path(first.string() + ".gch")));
    CHECK(read_file(first).value_or("").find("#include <cmath>") != std::string::npos);
    CHECK(headers.header_for("cpp", {}, "attnlab/tensor.hpp", {"cmath"}, build) == first);
    CHECK(builds == 1);
    write_file_atomic(input, "int a, b;\n");  // a system update changes a header
    CHECK(headers.header_for("cpp", {}, "attnlab/tensor.hpp", {"cmath"}, build) == first);
    CHECK(builds == 2);
    // Another prelude is another precompiled header.
    const fs::path with_prelude = headers.header_for("cpp", {"#define X 1"}, "attnlab/tensor.hpp", {"cmath"}, build);
    CHECK(with_prelude != first);
    CHECK(read_file(with_prelude).value_or("").find("#define X 1\n#include <attnlab/tensor.hpp>") != std::string::npos);
    // Another set of library headers is another precompiled header.
    CHECK(headers.header_for("cpp", {}, "attnlab/tensor.hpp", {"cmath", "vector"}, build) != first);
    CHECK(builds == 4);
}

TEST_CASE("a precompiled header the compiler refuses is not tried again, and the compile goes on without") {
    TempDir dir("pch-refused");
    PrecompiledHeaders headers(dir.path() / "pch");
    int builds = 0;
    const PrecompiledHeaders::Build refuse = [&](const fs::path&, const fs::path&, const fs::path&, bool& refused) {
        ++builds;
        refused = true;
        return false;
    };
    CHECK(headers.header_for("cpp", {}, "attnlab/tensor.hpp", {}, refuse).empty());
    CHECK(headers.header_for("cpp", {}, "attnlab/tensor.hpp", {}, refuse).empty());
    CHECK(builds == 1);
}

TEST_CASE("a file that calls a special math function compiles with the precompiled header, one that does not leaves them out") {
    TempDir cache("pch");
    Compiler c(toolchain_with({"-Winvalid-pch", "-H"}), cache.path());
    const std::string includes = "#include <attnlab/tensor.hpp>\n#include <cmath>\n#include <stdexcept>\n";
    const CompileOutput with = c.compile(split(), split_heads_with(includes + "static const double z = std::riemann_zeta(2.0);\n"), "mine.cpp", nullptr);
    CAPTURE(with.raw_output);
    CHECK(with.ok);
    CHECK(contains(with.raw_output, ".hpp.gch"));  // it was precompiled, with the special functions
    // g++ is the judge that they are left out of the other file's header: naming one is an error there.
    const CompileOutput without = c.compile(split(), split_heads_with(includes), "mine.cpp", nullptr);
    CHECK(without.ok);
    fs::path plain_header;
    for (const auto& e : fs::recursive_directory_iterator(cache.path() / "pch"))
        if (e.path().extension() == ".hpp" && contains(read_file(e.path()).value_or(""), "_GLIBCXX_BITS_SPECFUN_H") &&
            contains(read_file(e.path()).value_or(""), "cmath"))
            plain_header = e.path();
    REQUIRE_FALSE(plain_header.empty());
    const std::string probe = "#include \"" + plain_header.string() + "\"\nauto z = std::riemann_zeta(2.0);\n";
    TempDir scratch("pch-probe");
    write_file_atomic(scratch.path() / "probe.cpp", probe);
    const std::string cmd = "g++ -std=c++17 -fsyntax-only -I " + Toolchain::detect().include_dir.string() + " " + (scratch.path() / "probe.cpp").string() +
                            " > " + (scratch.path() / "out.txt").string() + " 2>&1";
    CHECK(std::system(cmd.c_str()) != 0);
    CHECK(contains(read_file(scratch.path() / "out.txt").value_or(""), "riemann_zeta"));
}

TEST_CASE("a file gets only the headers it includes, precompiled or not") {
    TempDir cache("pch");
    Compiler c(Toolchain::detect(), cache.path());
    // A precompiled header with <cmath> now exists; a file that forgets
    // <cmath> must still be told so, on its own line.
    REQUIRE(c.compile(split(), split_heads_with("#include <attnlab/tensor.hpp>\n#include <cmath>\n#include <stdexcept>\n"), "mine.cpp",
                      nullptr)
                .ok);
    const CompileOutput forgot = c.compile(split(), split_heads_with("#include <attnlab/tensor.hpp>\n#include <stdexcept>\n"), "mine.cpp", nullptr);
    CAPTURE(forgot.raw_output);
    CHECK_FALSE(forgot.ok);
    REQUIRE_FALSE(forgot.diagnostics.empty());
    CHECK(forgot.diagnostics[0].file == "mine.cpp");
    CHECK(forgot.diagnostics[0].line == 7);  // std::sqrt
    CHECK(contains(forgot.diagnostics[0].context, "    7 |"));
}
