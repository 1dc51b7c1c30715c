// WMMA on the emulator (<mma.h>, app/learner/cuda_include/mma.h), through the
// course's cuda-tensor-core-qkv exercise: the solution and the passing
// variants (row_major and col_major fragments, mem_row_major and
// mem_col_major stores, a loaded accumulator, four warps a block, tiles
// staged in shared memory) match the reference, and each rule a GPU imposes
// on the warp matrix functions stops the kernel with its own fault, on the
// learner's line, worded in both languages.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "cuda_check_env.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::first_fault;
namespace fs = std::filesystem;

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"wmma", fs::path(ATTNLAB_TEST_FIXTURES) / ".." / ".." / "exercises", "cuda-tensor-core-qkv"};
    return e;
}

bool emulator_built() { return env().emulator_built(); }

}  // namespace

TEST_CASE("wmma: the solution and every layout variant match the reference, exactly where the inputs are exact halves") {
    if (!emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    REQUIRE(env().course.find("cuda-tensor-core-qkv") != nullptr);
    for (const char* file : {"solution.cu", "right/four_warps_per_block.cu", "right/shared_staging.cu", "right/col_major_layouts.cu"}) {
        CAPTURE(file);
        const CheckResult r = env().check(file);
        CHECK(r.verdict == Verdict::Pass);
        REQUIRE(!r.cases.empty());
        // Case 1: x = 0..31 and W = [I | 2I | -I] are exact in __half, so Q, K, V are exact.
        const TensorData& got = r.cases[0].actual.tensor;
        const TensorData& want = r.cases[0].expected.tensor;
        REQUIRE(got.data.size() == want.data.size());
        for (size_t i = 0; i < got.data.size(); ++i) CHECK(got.data[i] == want.data[i]);
    }
}

TEST_CASE("wmma: a call by part of a warp is synccheck, naming the function, the lanes and the line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/sixteen_threads_per_block.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "warp_divergence");
    const emu::Fault& f = first_fault(r);
    CHECK(f.detail == "wmma_partial_warp");
    CHECK(f.buffer == "wmma::fill_fragment");
    CHECK(f.index == 0xffff);  // lanes 0-15: the block has 16 threads
    CHECK(f.line == 25);
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(en, "only 16 lanes"));
    CHECK(contains(en, "lanes 0-15"));
    CHECK(contains(en, "all 32 lanes"));
    CHECK(contains(en, "line 25"));
    CHECK(contains(id, "hanya 16 lane"));
    CHECK(contains(id, "baris kode 25"));

    // Lanes that returned before the call: the warp operation waits for lanes that left.
    const CheckResult guard = env().check("wrong/per_lane_row_guard.cu");
    REQUIRE(guard.verdict == Verdict::KernelFault);
    CHECK(guard.cause.code() == "warp_divergence");
    CHECK(contains(explain(guard, env().ex(), Lang::En), "wmma::"));
}

TEST_CASE("wmma: a pointer off a 32-byte boundary and an ldm not a multiple of 8 halves are memcheck faults") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/tile_col_times_8.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "misaligned_address");
    const emu::Fault& f = first_fault(r);
    CHECK(f.buffer == "wmma::load_matrix_sync");
    CHECK(f.detail == "32");
    CHECK(f.index == 16);  // tile column 1 starts 8 halves, 16 bytes, in
    CHECK(f.line == 29);
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(en, "16 bytes past a multiple of 32"));
    CHECK(contains(en, "256-bit (32-byte)"));
    CHECK(contains(id, "16 byte setelah alamat kelipatan 32"));

    const CheckResult ldm = env().check("wrong/ldm_padded_by_one.cu");
    REQUIRE(ldm.verdict == Verdict::KernelFault);
    CHECK(ldm.cause.code() == "misaligned_address");
    const emu::Fault& g = first_fault(ldm);
    CHECK(g.detail == "ldm");
    CHECK(g.index == 17);
    CHECK(g.element_type == "__half");
    CHECK(contains(explain(ldm, env().ex(), Lang::En), "ldm = 17"));
    CHECK(contains(explain(ldm, env().ex(), Lang::En), "multiple of 8"));
    CHECK(contains(explain(ldm, env().ex(), Lang::Id), "kelipatan 8"));
}

TEST_CASE("wmma: fragment loads are the learner's accesses (out of bounds, initcheck), and a wrong layout is a wrong answer") {
    if (!emulator_built()) return;
    const CheckResult unpadded = env().check("wrong/no_padding.cu");
    REQUIRE(unpadded.verdict == Verdict::KernelFault);
    CHECK(unpadded.cause.code() == "out_of_bounds");
    CHECK(first_fault(unpadded).line == 27);  // the load of the x tile
    // The buffer is a cudaMalloc'd __half*: counted in halves, as the learner indexes it
    // (lane 26's first element is row 13 of the tile, 13 * 16 = 208).
    CHECK(first_fault(unpadded).index == 208);
    CHECK(contains(explain(unpadded, env().ex(), Lang::En), "(32 elements, valid indices 0..31)"));
    CHECK(contains(explain(unpadded, env().ex(), Lang::Id), "(32 elemen, indeks yang valid 0..31)"));
    const CheckResult unwritten = env().check("wrong/padding_not_zeroed.cu");
    REQUIRE(unwritten.verdict == Verdict::KernelFault);
    CHECK(unwritten.cause.code() == "uninitialized_read");
    const CheckResult col = env().check("wrong/b_col_major.cu");
    CHECK(col.verdict == Verdict::WrongAnswer);
    REQUIRE(col.mistake);
    CHECK(col.mistake->id == "wmma_layout_mismatch");
    const CheckResult ldm = env().check("wrong/w_ldm_of_x.cu");
    REQUIRE(ldm.mistake);
    CHECK(ldm.mistake->id == "wmma_ldm_wrong");
}

TEST_CASE("wmma: a fragment load or store is counted as the GPU moves it, and each mma_sync as tensor-core FLOPs") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("solution.cu");
    REQUIRE(r.verdict == Verdict::Pass);
    bool found = false;
    for (const CaseOutcome& c : r.cases)
        for (const emu::LaunchReport& L : c.kernels.launches) {
            if (L.kernel.find("wmma") == std::string::npos) continue;
            found = true;
            INFO(L.kernel);
            const emu::LaunchCounters& k = L.counters;
            // Each warp loads 16 x 16 __half tiles (512 bytes, ldm a multiple of 16): one request of
            // 16 full sectors each, never a sector per element; none of it wasted.
            CHECK(k.global_load_requests > 0);
            CHECK(k.global_load_sectors == 16 * k.global_load_requests);
            CHECK(k.global_load_wasted_sectors == 0);
            // The float accumulator tile (1 KB) is stored in two requests of 16 sectors.
            CHECK(k.global_store_sectors == 16 * k.global_store_requests);
            // 2·16·16·16 FLOPs per warp-wide mma_sync: the GEMM's, tile by tile (rows padded to 16).
            CHECK(k.tensor_flops > 0);
            CHECK(k.tensor_flops % (2 * 16 * 16 * 16) == 0);
        }
    CHECK(found);
}
