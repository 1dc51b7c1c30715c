// The line-for-line rewrite of a learner's .cu file (cuda_source.hpp): what
// the host compiler and NVRTC see. Table tests: input, expected output.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "attnlab/core/cuda_source.hpp"

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
     "::attnlab::detail::launch_site(\"k\", k, g, b)(out, x);", "::attnlab::detail::launch_site(\"k\", g, b)(out, x);"},
    {"a launch with shared bytes, spaces and a call in the config", "k <<< ceil_div(n, 128), 128, 4 * T >>> (p);",
     "::attnlab::detail::launch_site(\"k\", k,  ceil_div(n, 128), 128, 4 * T )(p);",
     "::attnlab::detail::launch_site(\"k\",  ceil_div(n, 128), 128, 4 * T )(p);"},
    {"a templated kernel", "tile<float, 16><<<dim3(2, 3), 64>>>(o);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", tile<float, 16>, dim3(2, 3), 64)(o);",
     "::attnlab::detail::launch_site(\"tile<float, 16>\", dim3(2, 3), 64)(o);"},
    {"a comparison inside the config is not the end", "k<<<a > b ? 1 : 2, 32>>>(o);",
     "::attnlab::detail::launch_site(\"k\", k, a > b ? 1 : 2, 32)(o);", "::attnlab::detail::launch_site(\"k\", a > b ? 1 : 2, 32)(o);"},
    {"a static shared array", "__shared__ float tile[64];", "__shared__ ::attnlab::emu::shared<float[64]> tile{\"tile\"};",
     "__shared__ float tile[64];"},
    {"two dimensions, volatile dropped", "__shared__ volatile float t[TILE][HD + 1];",
     "__shared__ ::attnlab::emu::shared<float[TILE][HD + 1]> t{\"t\"};", "__shared__ volatile float t[TILE][HD + 1];"},
    {"dynamic shared memory", "extern __shared__ float smem[];",
     "::attnlab::emu::SharedPtr<float> smem = ::attnlab::emu::dynamic_shared<float>(\"smem\");", "extern __shared__ float smem[];"},
    {"a scalar shared variable stays as written", "__shared__ float total;", "__shared__ float total;", "__shared__ float total;"},
    {"an aligned array stays as written", "__shared__ __align__(16) float a[8];", "__shared__ __align__(16) float a[8];",
     "__shared__ __align__(16) float a[8];"},
    {"comments and strings are never rewritten", "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";",
     "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";",
     "// k<<<1, 1>>>(x);\nconst char* s = \"k<<<1,1>>>(x) __shared__ float a[2];\";"},
    {"a shift is not a launch", "int a = b << 3; int c = d <<< 2;", "int a = b << 3; int c = d <<< 2;", "int a = b << 3; int c = d <<< 2;"},
};

}  // namespace

TEST_CASE("the rewrite for the emulator and for NVRTC, row by row") {
    for (const Row& row : rows) {
        CAPTURE(row.what);
        CHECK(cuda_source::for_emulator(row.in) == row.emulator);
        CHECK(cuda_source::for_nvrtc(row.in) == row.nvrtc);
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

TEST_CASE("the NVRTC prelude declares the learner's names") {
    const std::string& p = cuda_source::nvrtc_prelude();
    for (const char* name : {"dev_ptr", "DeviceTensor", "ceil_div", "launch_site", "cudaGetLastError", "INFINITY"}) {
        CAPTURE(name);
        CHECK(p.find(name) != std::string::npos);
    }
}
