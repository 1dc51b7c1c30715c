// The line-for-line rewrite of a learner's .cu file (cuda_source.hpp): what
// the host compiler and NVRTC see. Table tests: input, expected output.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attnlab/emu/cuda_source.hpp"

using namespace attnlab;

namespace {

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

struct Row {
    const char* what;
    const char* in;
    const char* emulator;
    const char* nvrtc;
};

const Row rows[] = {
    {"a launch with grid and block", "k<<<g, b>>>(out, x);",
     "::attnlab::detail::launch_site(\"k\", k, g, b)(out, x);", "::attnlab::detail::launch_site(\"k\", k, g, b)(out, x);"},
    {"a launch with shared bytes, spaces and a call in the config", "k <<< ceil_div(n, 128), 128, 4 * T >>> (p);",
     "::attnlab::detail::launch_site(\"k\", k,  ceil_div(n, 128), 128, 4 * T )(p);",
     "::attnlab::detail::launch_site(\"k\", k,  ceil_div(n, 128), 128, 4 * T )(p);"},
    {"a templated kernel", "tile<float, 16><<<dim3(2, 3), 64>>>(o);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", tile<float, 16>, dim3(2, 3), 64)(o);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", tile<float, 16>, dim3(2, 3), 64)(o);"},
    {"a comparison inside the config is not the end", "k<<<a > b ? 1 : 2, 32>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, a > b ? 1 : 2, 32)(o);", "::attnlab::detail::launch_site(\"k\", k, a > b ? 1 : 2, 32)(o);"},
    {"a static shared array", "__shared__ float tile[64];", "float (&tile)[64] = ::attnlab::emu::raw::shared_variable<float[64]>(\"tile\", [] {});",
     "__shared__ float tile[64];"},
    {"two dimensions, volatile kept", "__shared__ volatile float t[TILE][HD + 1];",
     "volatile float (&t)[TILE][HD + 1] = ::attnlab::emu::raw::shared_variable<volatile float[TILE][HD + 1]>(\"t\", [] {});", "__shared__ volatile float t[TILE][HD + 1];"},
    {"dynamic shared memory", "void k() { extern __shared__ float smem[]; }",
     "void k() { float* const smem = ::attnlab::emu::raw::dynamic_shared_as<float>(); }",
     "void k() { extern __shared__ float smem[]; }"},
    {"a scalar shared variable", "__shared__ float total;", "float& total = ::attnlab::emu::raw::shared_variable<float>(\"total\", [] {});", "__shared__ float total;"},
    {"an aligned array keeps its alignment", "__shared__ __align__(16) float a[8];", "float (&a)[8] = ::attnlab::emu::raw::shared_variable<float[8]>(\"a\", [] {}, 16);",
     "__shared__ __align__(16) float a[8];"},
    {"comments and strings are never rewritten", "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";",
     "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";",
     "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";"},
    {"a shift is not a launch (and `<<<` that starts none is left as written)", "int a = b << 3; int c = d <<< 2;", "int a = b << 3; int c = d <<< 2;",
     "int a = b << 3; int c = d <<< 2;"},
};

}  // namespace

TEST_CASE("the rewrite for the emulator and for NVRTC, row by row") {
    for (const Row& row : rows) {
        CAPTURE(row.what);
        CHECK(cuda_source::for_emulator(row.in) == row.emulator);
        CHECK(cuda_source::for_nvrtc(row.in) == row.nvrtc);
    }
}

// Learners' files that the first rewrite misread: each row compiles (and is
// checked) the way the learner wrote it.
const Row tricky_rows[] = {
    {"a shared array sized by a product is checked", "__shared__ float tile[TILE * HD];",
     "float (&tile)[TILE * HD] = ::attnlab::emu::raw::shared_variable<float[TILE * HD]>(\"tile\", [] {});", "__shared__ float tile[TILE * HD];"},
    {"a shared array sized by a parenthesised expression is checked", "__shared__ float s[(N + 31) / 32][sizeof(float)];",
     "float (&s)[(N + 31) / 32][sizeof(float)] = ::attnlab::emu::raw::shared_variable<float[(N + 31) / 32][sizeof(float)]>(\"s\", [] {});",
     "__shared__ float s[(N + 31) / 32][sizeof(float)];"},
    {"two shared arrays in one declaration are both checked", "__shared__ float a[32], b[2 * 32];",
     "float (&a)[32] = ::attnlab::emu::raw::shared_variable<float[32]>(\"a\", [] {}); float (&b)[2 * 32] = ::attnlab::emu::raw::shared_variable<float[2 * 32]>(\"b\", [] {});",
     "__shared__ float a[32], b[2 * 32];"},
    {"an array and a scalar in one declaration: both checked", "__shared__ float a[32], total;",
     "float (&a)[32] = ::attnlab::emu::raw::shared_variable<float[32]>(\"a\", [] {}); float& total = ::attnlab::emu::raw::shared_variable<float>(\"total\", [] {});", "__shared__ float a[32], total;"},
    {"an array of pointers is checked too", "__shared__ float *p[4];", "float* (&p)[4] = ::attnlab::emu::raw::shared_variable<float*[4]>(\"p\", [] {});",
     "__shared__ float *p[4];"},
    {"a comment between the kernel and <<< is not part of its name", "k /* the kernel */ <<<1, 32>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, 1, 32)(o);", "::attnlab::detail::launch_site(\"k\", k, 1, 32)(o);"},
    {"a line comment between the kernel and <<< does not swallow the launch", "k // the kernel\n<<<1, 32>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, 1, 32)(\no);", "::attnlab::detail::launch_site(\"k\", k, 1, 32)(\no);"},
    {"template arguments over two lines", "tile<float,\n     16><<<1, 32>>>(o);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", tile<float, 16>, 1, 32)(\no);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", tile<float, 16>, 1, 32)(\no);"},
    {"a quote in a template argument stays inside the kernel's name", "k<'\"'><<<1, 1>>>(o);",
     "::attnlab::detail::launch_site(\"k<'\\\"'>\", k<'\"'>, 1, 1)(o);", "::attnlab::detail::launch_site(\"k<'\\\"'>\", k<'\"'>, 1, 1)(o);"},
    {"a raw string over lines is never rewritten", "const char* s = R\"(\nk<<<1, 1>>>(x);\n__shared__ float a[2];\n)\";",
     "const char* s = R\"(\nk<<<1, 1>>>(x);\n__shared__ float a[2];\n)\";", "const char* s = R\"(\nk<<<1, 1>>>(x);\n__shared__ float a[2];\n)\";"},
    {"a quote inside a raw string does not open a comment", "const char* s = R\"(\" /* )\"; k<<<1, 1>>>(o); // */",
     "const char* s = R\"(\" /* )\"; ::attnlab::detail::launch_site(\"k\", k, 1, 1)(o); // */",
     "const char* s = R\"(\" /* )\"; ::attnlab::detail::launch_site(\"k\", k, 1, 1)(o); // */"},
    {"dynamic shared memory at file scope: a static pointer (the memory never moves)", "extern __shared__ float smem[];",
     "static float* const smem = ::attnlab::emu::raw::dynamic_shared_as<float>();", "extern __shared__ float smem[];"},
    {"... also inside a namespace or an extern \"C\" block", "namespace a::b { extern \"C\" { extern __shared__ float smem[]; } }",
     "namespace a::b { extern \"C\" { static float* const smem = ::attnlab::emu::raw::dynamic_shared_as<float>(); } }",
     "namespace a::b { extern \"C\" { extern __shared__ float smem[]; } }"},
    {"... but not in a kernel inside a namespace", "namespace n { __global__ void k() { if (1) { extern __shared__ float smem[]; } } }",
     "namespace n { __global__ void k() { if (1) { float* const smem = ::attnlab::emu::raw::dynamic_shared_as<float>(); } } }",
     "namespace n { __global__ void k() { if (1) { extern __shared__ float smem[]; } } }"},
    {"static before __shared__ (NVIDIA's blockReduceSum) stays: a static reference to the same memory",
     "static __shared__ float partial[32]; static __shared__ float total;",
     "static float (&partial)[32] = ::attnlab::emu::raw::shared_variable<float[32]>(\"partial\", [] {}); static float& total = ::attnlab::emu::raw::shared_variable<float>(\"total\", [] {});",
     "static __shared__ float partial[32]; static __shared__ float total;"},
    {"a digit separator is no character literal", "k<<<1'024, 32>>>(o);", "::attnlab::detail::launch_site(\"k\", k, 1'024, 32)(o);",
     "::attnlab::detail::launch_site(\"k\", k, 1'024, 32)(o);"},
    {"a launch in a macro spread over continued lines stays one macro", "#define LAUNCH(n) \\\n    k \\\n    <<<n, 32>>>(o)\nint after;",
     "#define LAUNCH(n) \\\n    ::attnlab::detail::launch_site(\"k\", k, n, 32)(\\\no)\nint after;",
     "#define LAUNCH(n) \\\n    ::attnlab::detail::launch_site(\"k\", k, n, 32)(\\\no)\nint after;"},
};

TEST_CASE("the rewrite of hostile or unusual learner code, row by row") {
    for (const Row& row : tricky_rows) {
        const std::string what = row.what;
        CAPTURE(what);
        CHECK(cuda_source::for_emulator(row.in) == std::string(row.emulator));
        CHECK(cuda_source::for_nvrtc(row.in) == std::string(row.nvrtc));
        CHECK(lines(cuda_source::for_emulator(row.in)) == lines(row.in));
    }
}

// Valid launches the rewrite once could not read (g++ then said "expected
// primary-expression before '<'"): the kernel expression and the launch
// configuration are read with every bracket balanced, whatever is inside.
const Row launch_rows[] = {
    {"a template argument with `>` inside parentheses", "k<(N > 2)><<<grid, block>>>(o);",
     "::attnlab::detail::launch_site(\"k<(N > 2)>\", k<(N > 2)>, grid, block)(o);", ""},
    {"a template argument with a shift and nested templates", "ns::k<Tile<(W >> 1)>, std::max<int>(4, 8)><<<1, 32>>>(o);",
     "::attnlab::detail::launch_site(\"ns::k<Tile<(W >> 1)>, std::max<int>(4, 8)>\", ns::k<Tile<(W >> 1)>, std::max<int>(4, 8)>, 1, 32)(o);", ""},
    {"a parenthesised choice of kernel", "(c ? k2 : k1)<<<g, b>>>(o, n);",
     "::attnlab::detail::launch_site(\"(c ? k2 : k1)\", (c ? k2 : k1), g, b)(o, n);", ""},
    {"a choice between template kernels", "if (wide) (c ? k<2> : k<1>)<<<g, b>>>(o);",
     "if (wide) ::attnlab::detail::launch_site(\"(c ? k<2> : k<1>)\", (c ? k<2> : k<1>), g, b)(o);", ""},
    {"a condition written against the launch is not a call", "if(n)k<<<1, 1>>>(o);", "if(n)::attnlab::detail::launch_site(\"k\", k, 1, 1)(o);", ""},
    {"a parenthesised kernel after a condition", "if(n)(k)<<<1, 1>>>(o);", "if(n)::attnlab::detail::launch_site(\"(k)\", (k), 1, 1)(o);", ""},
    {"a parenthesised kernel after return", "return(k)<<<1, 1>>>(o);", "return::attnlab::detail::launch_site(\"(k)\", (k), 1, 1)(o);", ""},
    {"a lambda and a dim3 with commas in the configuration", "k<<<dim3(a, b), [&]{ return 128; }()>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, dim3(a, b), [&]{ return 128; }())(o);", ""},
    {"a braced dim3 and a ternary in the configuration", "k<<<dim3{a, b, 1}, n > 32 ? 64 : 32, 0, stream>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, dim3{a, b, 1}, n > 32 ? 64 : 32, 0, stream)(o);", ""},
    {"a kernel from a table, a call, a member and a pointer's member", "table[i]<<<1, 1>>>(o); pick(n)<<<1, 1>>>(o); s.fn<<<1, 1>>>(o); p->fn<<<1, 1>>>(o);",
     "::attnlab::detail::launch_site(\"table[i]\", table[i], 1, 1)(o); ::attnlab::detail::launch_site(\"pick(n)\", pick(n), 1, 1)(o); "
     "::attnlab::detail::launch_site(\"s.fn\", s.fn, 1, 1)(o); ::attnlab::detail::launch_site(\"p->fn\", p->fn, 1, 1)(o);", ""},
    {"the global namespace's kernel", "x = 1; ::k<<<1, 1>>>(o);", "x = 1; ::attnlab::detail::launch_site(\"::k\", ::k, 1, 1)(o);", ""},
    {"a character literal `>` in a template argument", "k<'>'><<<1, 1>>>(o);",
     "::attnlab::detail::launch_site(\"k<'>'>\", k<'>'>, 1, 1)(o);", ""},
    {"`>>>` inside a string in the configuration does not end it", "k<<<n, f(\">>>\")>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, n, f(\">>>\"))(o);", ""},
    {"operator<< of a template is no launch", "friend std::ostream& operator<<<T>(std::ostream& o, const V<T>& v);",
     "friend std::ostream& operator<<<T>(std::ostream& o, const V<T>& v);", ""},
};

TEST_CASE("launches read with every bracket balanced: template arguments, a parenthesised kernel, lambdas in the configuration") {
    for (const Row& row : launch_rows) {
        const std::string what = row.what;
        CAPTURE(what);
        CHECK(cuda_source::for_emulator(row.in) == std::string(row.emulator));
        CHECK(cuda_source::for_nvrtc(row.in) == std::string(row.emulator));  // launches are rewritten alike for NVRTC
        CHECK(cuda_source::unread_parts(row.in).empty());
    }
}

// A `<<<` that starts no launch the rewrite reads: the lines the check refuses
// (in attnlab's words) instead of handing g++ a parse error. The text itself
// is left as written.
struct UnreadRow {
    const char* what;
    const char* in;
    std::vector<int> lines;
};

const UnreadRow unread_launch_rows[] = {
    {"no arguments after the configuration", "k<<<1, 32>>>;", {1}},
    {"no `>>>` before the statement ends", "void f() {\n  k<<<1, 32(o);\n}", {2}},
    {"a bracket the configuration never closes", "k<<<dim3(1, 32>>>(o);", {1}},
    {"a bracket it closes but never opened", "k<<<1, 32)>>>(o);", {1}},
    {"nothing before <<<", "\n\n<<<1, 1>>>(o);", {3}},
    {"a number is no kernel", "3<<<1, 1>>>(o);", {1}},
    {"half a qualified name", "x = ns::<<<1, 1>>>(o);", {1}},
    {"a shift followed by a comparison", "int c = d <<< 2;", {1}},
    {"each unread launch, by line, after a good one", "k<<<1, 1>>>(o);\nk<<<1, 1>>>;\n// k<<<\nk<<<2;\n", {2, 4}},
};

TEST_CASE("a launch the rewrite cannot read is named by its line, and left as written") {
    for (const UnreadRow& row : unread_launch_rows) {
        const std::string what = row.what;
        CAPTURE(what);
        const std::vector<UnreadPart> unread = cuda_source::unread_parts(row.in);
        std::vector<int> lines;
        for (const UnreadPart& p : unread) {
            CHECK(p.construct == UnreadConstruct::Launch);
            lines.push_back(p.line);
        }
        CHECK(lines == row.lines);
    }
    CHECK(cuda_source::for_emulator("int c = d <<< 2;") == "int c = d <<< 2;");
    // A hostile file names at most 20 lines.
    std::string many;
    for (int i = 0; i < 1000; ++i) many += "k<<<;\n";
    CHECK(cuda_source::unread_parts(many).size() == 20);
}

// `__shared__` declarations the first rewrite left as unchecked statics: a
// race or an index past the end on them went unseen. Each is now a reference
// into the block's shared memory like any other (NVRTC sees them as written).
const Row shared_rows[] = {
    {"a template type with a comma", "__shared__ Pair<float, int> s[32];",
     "Pair<float, int> (&s)[32] = ::attnlab::emu::raw::shared_variable<Pair<float, int>[32]>(\"s\", [] {});", ""},
    {"a template type with a comma, two declarators", "__shared__ std::pair<float, int> a[4], b;",
     "std::pair<float, int> (&a)[4] = ::attnlab::emu::raw::shared_variable<std::pair<float, int>[4]>(\"a\", [] {}); "
     "std::pair<float, int>& b = ::attnlab::emu::raw::shared_variable<std::pair<float, int>>(\"b\", [] {});", ""},
    {"nested template arguments closed by >>", "__shared__ Vec<Pair<float, int>> v[N > 2 ? 4 : 8];",
     "Vec<Pair<float, int>> (&v)[N > 2 ? 4 : 8] = ::attnlab::emu::raw::shared_variable<Vec<Pair<float, int>>[N > 2 ? 4 : 8]>(\"v\", [] {});", ""},
    {"cooperative groups' tile memory", "__shared__ cg::block_tile_memory<256> scratch;",
     "cg::block_tile_memory<256>& scratch = ::attnlab::emu::raw::shared_variable<cg::block_tile_memory<256>>(\"scratch\", [] {});", ""},
    {"an anonymous struct, named once by a typedef", "__shared__ struct { float sum[32]; int count; } stats;",
     "typedef struct { float sum[32]; int count; } attnlab_shared_stats_type; "
     "attnlab_shared_stats_type& stats = ::attnlab::emu::raw::shared_variable<attnlab_shared_stats_type>(\"stats\", [] {});", ""},
    {"a struct over lines, an array of it: later lines stay", "__shared__ struct Acc {\n  float m, l;\n} acc[8];\nint after;",
     "typedef struct Acc { float m, l; } attnlab_shared_acc_type; "
     "attnlab_shared_acc_type (&acc)[8] = ::attnlab::emu::raw::shared_variable<attnlab_shared_acc_type[8]>(\"acc\", [] {});\n\n\nint after;", ""},
    {"a macro-made array: named by the macro's argument", "#define SHARED_TILE(name, n) __shared__ float name[n]\nSHARED_TILE(tile, 64);",
     "#define SHARED_TILE(name, n) float (&name)[n] = ::attnlab::emu::raw::shared_variable<float[n]>(#name, [] {})\nSHARED_TILE(tile, 64);", ""},
    {"a macro over continued lines, a fixed name", "#define DECLARE_PARTS \\\n    __shared__ float parts[32];\nDECLARE_PARTS",
     "#define DECLARE_PARTS \\\n    float (&parts)[32] = ::attnlab::emu::raw::shared_variable<float[32]>(\"parts\", [] {});\nDECLARE_PARTS", ""},
    {"an anonymous struct made by a macro", "#define STATS(s) __shared__ struct { float m; } s\nSTATS(row);",
     "#define STATS(s) typedef struct { float m; } attnlab_shared_##s##_type; "
     "attnlab_shared_##s##_type& s = ::attnlab::emu::raw::shared_variable<attnlab_shared_##s##_type>(#s, [] {})\nSTATS(row);", ""},
    {"static after __shared__", "__shared__ static float total;", "static float& total = ::attnlab::emu::raw::shared_variable<float>(\"total\", [] {});", ""},
    {"static before __shared__ applies to every declarator", "static __shared__ float a[2], *b;",
     "static float (&a)[2] = ::attnlab::emu::raw::shared_variable<float[2]>(\"a\", [] {}); "
     "static float*& b = ::attnlab::emu::raw::shared_variable<float*>(\"b\", [] {});", ""},
    {"dynamic shared memory of a template type", "extern __shared__ Pair<float, int> dyn[];",
     "static Pair<float, int>* const dyn = ::attnlab::emu::raw::dynamic_shared_as<Pair<float, int>>();", ""},
    {"an aligned struct", "__shared__ __align__(16) struct { float4 q[4]; } t;",
     "typedef struct { float4 q[4]; } attnlab_shared_t_type; "
     "attnlab_shared_t_type& t = ::attnlab::emu::raw::shared_variable<attnlab_shared_t_type>(\"t\", [] {}, 16);", ""},
    {"directives that only test the word are no declarations", "#ifdef __shared__\n#endif\n#define __shared__\n",
     "#ifdef __shared__\n#endif\n#define __shared__\n", ""},
};

TEST_CASE("every __shared__ declaration form is read: template types with commas, structs, macros, cg::block_tile_memory") {
    for (const Row& row : shared_rows) {
        const std::string what = row.what;
        CAPTURE(what);
        CHECK(cuda_source::for_emulator(row.in) == std::string(row.emulator));
        CHECK(cuda_source::for_nvrtc(row.in) == std::string(row.in));
        CHECK(lines(cuda_source::for_emulator(row.in)) == lines(row.in));
        CHECK(cuda_source::unread_parts(row.in).empty());
    }
}

// What no rewrite should guess at: refused by line, never an unchecked static.
struct UnreadSharedRow {
    const char* what;
    const char* in;
    UnreadConstruct construct;
    int line;
};

const UnreadSharedRow unread_shared_rows[] = {
    {"an initialiser (nvcc refuses it too)", "__shared__ float x = 0.0f;", UnreadConstruct::SharedInitialiser, 1},
    {"a braced initialiser", "\n__shared__ float x{};", UnreadConstruct::SharedInitialiser, 2},
    {"an array's initialiser", "__shared__ float a[4] = {0};", UnreadConstruct::SharedInitialiser, 1},
    {"a macro that stands for the word alone", "#define SMEM __shared__\nSMEM float a[32];", UnreadConstruct::SharedDeclaration, 1},
    {"a function pointer", "__shared__ void (*fp)(int);", UnreadConstruct::SharedDeclaration, 1},
    {"an open extent without extern", "__shared__ float a[];", UnreadConstruct::SharedDeclaration, 1},
    {"extern with a second extent", "extern __shared__ float s[][33];", UnreadConstruct::SharedDeclaration, 1},
    {"a declaration the file never ends", "__global__ void k() {\n  __shared__ float a[32]", UnreadConstruct::SharedDeclaration, 2},
    {"a bracket closed that it never opened", "void k() { __shared__ float a[32] }", UnreadConstruct::SharedDeclaration, 1},
};

TEST_CASE("a __shared__ declaration the rewrite cannot read is named by its line, never left an unchecked static") {
    for (const UnreadSharedRow& row : unread_shared_rows) {
        const std::string what = row.what;
        CAPTURE(what);
        const std::vector<UnreadPart> unread = cuda_source::unread_parts(row.in);
        REQUIRE(unread.size() == 1);
        CHECK(unread[0].construct == row.construct);
        CHECK(unread[0].line == row.line);
    }
}

TEST_CASE("a launch or a declaration spread over lines keeps every later line where it was") {
    const std::string in =
        "void f() {\n"
        "    k<<<grid,\n"
        "        block>>>(a,\n"
        "                 b);\n"
        "    __shared__ float t[\n"
        "        32];\n"
        "    int after = 1;\n"
        "}\n";
    for (const std::string& out : {cuda_source::for_emulator(in), cuda_source::for_nvrtc(in)}) {
        CHECK(lines(out) == lines(in));
        // "int after" is still on line 7
        size_t line = 1;
        for (size_t i = 0; i < out.find("int after"); ++i) line += out[i] == '\n';
        CHECK(line == 7);
    }
    CHECK(cuda_source::for_emulator(in).find("launch_site(\"k\", k, grid,\n        block)(a,") != std::string::npos);
}

TEST_CASE("hostile files of the size limit (1 MiB) are rewritten in one pass, lines kept") {
    // Each unit made a search start over from every occurrence (quadratic: a
    // check of such a file took minutes before it even compiled).
    for (const char* unit : {">>>><<<", "a<<<(", "__shared__ ", "1'", "R\"", "extern __shared__ float s[];\n", "k<<<1, 1>>>(x);\n",
                             "#define S __shared__ ", "__shared__ struct { ", "__shared__ Pair<"}) {
        const std::string what = unit;
        CAPTURE(what);
        std::string in;
        while (in.size() < (1u << 20)) in += unit;
        const std::string emulator = cuda_source::for_emulator(in), nvrtc = cuda_source::for_nvrtc(in);
        CHECK(lines(emulator) == lines(in));
        CHECK(lines(nvrtc) == lines(in));
        CHECK(cuda_source::unread_parts(in).size() <= 20);
        if (what.find(';') == std::string::npos) CHECK(emulator == in);  // nothing in them is a launch or a declaration
    }
}

TEST_CASE("compiler errors quote the learner's launch line, never attnlab's rewrite of it") {
    const std::string original = "void f() {\n  k<<<1, 32>>>(out, 3.5);\n}\n";
    const std::string rewritten = cuda_source::for_emulator(original);
    REQUIRE(rewritten != original);
    const std::string output = "mine.cu:2:40: error: cannot convert 'double' to 'float*'\n"
                               "    2 |   ::attnlab::detail::launch_site(\"k\", k, 1, 32)(out, 3.5);\n"
                               "      |                                        ^~~\n"
                               "mine.cu:1:6: note: in f\n"
                               "    1 | void f() {\n"
                               "      |      ^\n";
    const std::string shown = cuda_source::restore_learner_lines(output, original, rewritten);
    CHECK(shown.find("launch_site") == std::string::npos);
    CHECK(shown.find("    2 |   k<<<1, 32>>>(out, 3.5);\n") != std::string::npos);
    CHECK(shown.find("^~~") == std::string::npos);  // the rewrite's columns are gone
    CHECK(shown.find("    1 | void f() {\n      |      ^") != std::string::npos);  // unchanged lines keep their caret
    CHECK(shown.find("error: cannot convert 'double' to 'float*'") != std::string::npos);
}

TEST_CASE("every CUDA file of the course and the fixtures is read whole: nothing refused, no __shared__ left unchecked") {
    const std::filesystem::path fixtures = ATTNLAB_TEST_FIXTURES;
    int files = 0;
    for (const std::filesystem::path& root : {fixtures / "cuda-course", fixtures.parent_path().parent_path() / "exercises"})
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
            if (entry.path().extension() != ".cu") continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            const std::string file = entry.path().string();
            CAPTURE(file);
            CHECK(cuda_source::unread_parts(text.str()).empty());
            ++files;
        }
    CHECK(files > 40);
}
