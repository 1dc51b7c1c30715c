// Learners' plain CUDA end to end (tests/fixtures/cuda-course/fx-cuda-attention):
// kernels written the way tutorials write them (raw pointers, float4, __half,
// __device__ helpers, cooperative groups, templates, cudaMalloc/cudaMemset,
// 2-D grids) pass unchanged, and one bugged kernel per check class is named,
// with the learner's own line, in both languages.
#include <doctest/doctest.h>

#include <future>

#include <filesystem>
#include <string>

#include "attnlab/core/base/util.hpp"

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/views/learner_view.hpp"
#include "cuda_check_env.hpp"
#include "runner_seams.hpp"  // internal: what a test may change in a Runner
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::first_fault;
namespace fs = std::filesystem;

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"plain-cuda", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-attention"};
    return e;
}

bool emulator_built() { return env().emulator_built(); }

}  // namespace

TEST_CASE("tutorial-style kernels pass unchanged and every bugged one gets its named cause (dev check)") {
    if (!emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    REQUIRE(env().course.problems.empty());
    const ExerciseCheck ec = check_exercise(env().runner, env().ex());
    for (const std::string& p : ec.problems) FAIL_CHECK(p);
    CHECK(ec.solution_verdict == "pass");
    REQUIRE(ec.fixtures.size() >= 14);
    for (const FixtureCheck& f : ec.fixtures) {
        CAPTURE(f.file);
        CAPTURE(f.verdict);
        CAPTURE(f.cause.code());
        CHECK(f.ok);
    }
}

TEST_CASE("two blocks adding into one element: a global-memory race naming both blocks and the line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/blocks_accumulate.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "global_race");
    const emu::Fault& f = first_fault(r);
    CHECK(f.line == 29);  // `out[...] += part;`
    CHECK(f.buffer == "out");
    CHECK_FALSE(f.other_block == f.block);
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(en, "global-memory race"));
    CHECK(contains(en, "atomicAdd"));
    CHECK(contains(en, "line 29"));
    CHECK(contains(id, "race di memori global"));
    CHECK(contains(id, "baris kode 29"));
}

TEST_CASE("a per-thread float acc[32] indexed at hd = 64: memcheck names the array and the line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/local_array_overflow.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "out_of_bounds");
    CHECK(r.failed_case == 1);  // hd = 2 fits; the hd = 64 case overflows
    const emu::Fault& f = first_fault(r);
    CHECK(f.space == emu::MemorySpace::Local);
    CHECK(f.index == 32);
    CHECK(f.size == 32);
    CHECK(f.line == 11);
    CHECK(contains(explain(r, env().ex(), Lang::En), "float [32]"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "array lokal"));
}

TEST_CASE("counters by hand: global bytes a block loads again, and the static shared memory it uses") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("probes/reload_counts.cu");
    REQUIRE(!r.cases.empty());
    REQUIRE(r.cases[0].kernels.launches.size() == 1);
    const emu::LaunchCounters& c = r.cases[0].kernels.launches[0].counters;
    CHECK(c.global_reloaded_bytes == 3 * 2 * 4);  // the second pass over q; k once, out written
    CHECK(c.static_shared_bytes == 128 * 8 * 4);
    CHECK(r.cases[0].kernels.launches[0].dynamic_shared_bytes == 0);
    // Dynamic shared memory only: no static bytes, and K and V copied once per block.
    const CheckResult tiles = env().check("right/float4_shared_tiles.cu");
    REQUIRE(tiles.verdict == Verdict::Pass);
    for (const CaseOutcome& k : tiles.cases)
        for (const emu::LaunchReport& L : k.kernels.launches) {
            CHECK(L.counters.static_shared_bytes == 0);
            CHECK(L.dynamic_shared_bytes > 0);
        }
}

TEST_CASE("limits of the chosen GPU: shared memory per block by architecture, registers per block from NVRTC") {
    if (!emulator_built()) return;
    const fs::path smem = env().ex().dir / "probes" / "shared_100_kib.cu";
    CheckControl hopper, ada;
    hopper.gpu_arch = "sm_90";
    ada.gpu_arch = "sm_89";
    const CheckResult on_h100 = env().runner.check(env().ex(), smem, hopper);
    REQUIRE(!on_h100.cases.empty());
    REQUIRE(on_h100.cases[0].kernels.launches.size() == 1);
    CHECK(on_h100.cases[0].kernels.launches[0].ok());  // 100 KiB <= 227 KiB: launched (its values are not attention's)
    const CheckResult on_4090 = env().runner.check(env().ex(), smem, ada);
    REQUIRE(on_4090.verdict == Verdict::KernelFault);
    const emu::Fault& f = first_fault(on_4090);
    CHECK(f.kind == emu::FaultKind::InvalidLaunch);
    CHECK(f.size == 100 * 1024);
    CHECK(f.index == 99 * 1024);

    const CheckResult regs = env().check("probes/too_many_registers.cu");
    if (!regs.resources || regs.resources->status != ResourceReport::Status::Ok) {
        MESSAGE("registers not checked: no NVRTC report here");
        return;
    }
    REQUIRE(regs.verdict == Verdict::KernelFault);
    CHECK(first_fault(regs).detail == "too_many_registers");
    CHECK(first_fault(regs).index == 65536);
    CHECK(contains(regs.stdout_text, "cudaErrorLaunchOutOfResources"));
    CHECK(contains(explain(regs, env().ex(), Lang::En), "cudaErrorLaunchOutOfResources"));
}

TEST_CASE("NVRTC finishing after the program started: a launch its register count refuses still fails, by a second run") {
    if (!emulator_built()) return;
    attnlab::testing::ExerciseEnv late{"plain-cuda-late-nvrtc", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-attention"};
    seams_of(late.runner).nvrtc_late = true;
    const CheckResult regs = late.check("probes/too_many_registers.cu");
    if (!regs.resources || regs.resources->status != ResourceReport::Status::Ok) {
        MESSAGE("registers not checked: no NVRTC report here");
        return;
    }
    REQUIRE(regs.verdict == Verdict::KernelFault);
    CHECK(first_fault(regs).detail == "too_many_registers");
    CHECK(contains(regs.stdout_text, "cudaErrorLaunchOutOfResources"));
    // A kernel within its registers is not run again, and passes.
    const CheckResult fine = late.check("solution.cu");
    CHECK(fine.verdict == Verdict::Pass);
}

TEST_CASE("the verdict does not wait for NVRTC when no launch could be refused for its registers; the report joins it later") {
    if (!emulator_built()) return;
    attnlab::testing::ExerciseEnv held{"plain-cuda-held-nvrtc", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-attention"};
    std::promise<void> release;
    seams_of(held.runner).nvrtc_gate = release.get_future().share();
    CheckResult r = held.check("solution.cu");  // blocks of 64 threads: no register count can refuse them
    CHECK(r.verdict == Verdict::Pass);
    CHECK_FALSE(r.resources);
    CHECK_FALSE(r.resources_ready());  // NVRTC has not even started
    release.set_value();
    wait_for_resources(r);
    REQUIRE(r.resources);
    CHECK(r.resources_ready());
    CHECK_FALSE(r.resources_pending.valid());
}

TEST_CASE("valid CUDA the emulator once got wrong: __syncwarp orders global memory, streams, an atomic's own line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("probes/syncwarp_atomics_streams.cu");
    REQUIRE(!r.cases.empty());
    const std::vector<emu::LaunchReport>& launches = r.cases[0].kernels.launches;
    REQUIRE(launches.size() == 3);
    CHECK(launches[0].ok());  // scratch written, __syncwarp, lane 0 reads: no global race
    CHECK(launches[1].ok());
    CHECK(launches[2].fault.kind == emu::FaultKind::UninitializedRead);
    CHECK(launches[2].fault.line == 22);  // the atomicAdd, not a line of attnlab's headers
}

TEST_CASE("a kernel reading a buffer after cudaFree: memcheck says use after free (not a crash)") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("probes/use_after_free.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    const emu::Fault& f = first_fault(r);
    CHECK(f.kind == emu::FaultKind::OutOfBounds);
    CHECK(f.detail == "freed");
    CHECK(f.line == 8);
    CHECK(f.index == 0);
    CHECK(contains(explain(r, env().ex(), Lang::En), "use after free"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "sudah dibebaskan"));
}

TEST_CASE("output set by cudaMemset instead of a kernel: the rule names the host call, not the thread count") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("probes/memset_rows.cu");
    REQUIRE(r.verdict == Verdict::KernelRule);
    CHECK(r.cause.code() == "output_not_written");
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CAPTURE(en);
    CHECK(contains(en, "cudaMemset"));
    CHECK(!contains(en, "Count the threads"));
    CHECK(contains(id, "cudaMemset"));
    // Without the cudaMemset the same elements are simply unwritten.
    const CheckResult bare = env().check_source(
        "#include <attnlab/cuda.hpp>\n"
        "__global__ void none(float* out) {}\n"
        "void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {\n"
        "    none<<<1, 32>>>(out.data());\n}\n");
    REQUIRE(bare.cause.code() == "output_not_written");
    CHECK(contains(explain(bare, env().ex(), Lang::En), "Count the threads"));
}

TEST_CASE("static __shared__ arrays above 48 KiB are refused, as ptxas refuses them") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("probes/static_shared_64k.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    const emu::Fault& f = first_fault(r);
    CHECK(f.kind == emu::FaultKind::InvalidLaunch);
    CHECK(f.detail == "shared_static_too_large");
    CHECK(f.size == 16384 * 4);
    CHECK(f.index == 48 * 1024);
    CHECK(contains(explain(r, env().ex(), Lang::En), "uses too much shared data"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "shared memory dinamis"));
}

TEST_CASE("the next tile's load overwriting a tile still read: the barrier missing at the end of the loop body") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/loop_overwrites_tile.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "shared_race");
    const emu::Fault& f = first_fault(r);
    CHECK(f.detail == "loop_wraparound");
    CHECK(f.buffer == "kt");
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(en, "end of the loop body"));
    CHECK(contains(id, "akhir badan perulangan"));
}

TEST_CASE("a race inside the last warp suggests __syncwarp, not a __syncthreads inside if (tid < 32)") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/last_warp_unsynced.cu");
    REQUIRE(r.verdict == Verdict::KernelFault);
    CHECK(r.cause.code() == "shared_race");
    CHECK(contains(explain(r, env().ex(), Lang::En), "__syncwarp()"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "__syncwarp()"));
}

TEST_CASE("misaligned float4, a leak, a refused launch and a device assert are named with CUDA's words") {
    if (!emulator_built()) return;
    const CheckResult misaligned = env().check("wrong/misaligned_float4.cu");
    CHECK(misaligned.cause.code() == "misaligned_address");
    CHECK(contains(explain(misaligned, env().ex(), Lang::En), "misaligned address"));
    CHECK(contains(explain(misaligned, env().ex(), Lang::Id), "alamat tidak selaras"));

    const CheckResult leak = env().check("wrong/leaks_scratch.cu");
    REQUIRE(leak.verdict == Verdict::KernelRule);
    CHECK(leak.cause.code() == "memory_leak");
    CHECK(contains(explain(leak, env().ex(), Lang::En), "line 30"));  // the learner's cudaMalloc
    CHECK(contains(explain(leak, env().ex(), Lang::Id), "cudaFree"));
    // Host code's own words, not a kernel's rule: the title says what was left.
    CHECK(explain(leak, env().ex(), Lang::En).rfind("Device memory not freed", 0) == 0);
    CHECK(explain(leak, env().ex(), Lang::Id).rfind("Memori device tidak dibebaskan", 0) == 0);

    const CheckResult refused = env().check("wrong/no_shared_opt_in.cu");
    CHECK(refused.cause.code() == "invalid_launch");
    CHECK(first_fault(refused).detail == "shared_needs_opt_in");
    CHECK(contains(explain(refused, env().ex(), Lang::En), "cudaFuncSetAttribute"));
    CHECK(contains(explain(refused, env().ex(), Lang::Id), "cudaFuncSetAttribute"));

    const CheckResult asserted = env().check("wrong/assert_head_dim.cu");
    CHECK(asserted.cause.code() == "device_assert");
    CHECK(first_fault(asserted).line == 6);
    CHECK(contains(explain(asserted, env().ex(), Lang::En), "hd >= 32"));
    CHECK(contains(explain(asserted, env().ex(), Lang::Id), "assert gagal"));
}

TEST_CASE("a null pointer, in a kernel (at any index) or in host code, is named on the learner's line before it crashes") {
    if (!emulator_built()) return;
    // Thread 0's first write is 4 bytes above address 0, where a check of the
    // pointer alone would see nothing wrong.
    const CheckResult kernel = env().check("wrong/stats_never_allocated.cu");
    REQUIRE(kernel.verdict == Verdict::KernelFault);
    CHECK(kernel.cause.code() == "out_of_bounds");
    CHECK(first_fault(kernel).line == 16);
    CHECK(contains(explain(kernel, env().ex(), Lang::En), "null device pointer"));
    CHECK(contains(explain(kernel, env().ex(), Lang::Id), "pointer device null"));

    const CheckResult host = env().check("wrong/host_writes_null.cu");
    REQUIRE(host.verdict == Verdict::RuntimeError);
    CHECK(contains(explain(host, env().ex(), Lang::En), "null pointer written on line 14"));
}

TEST_CASE("a cudaMalloc'd buffer read where no kernel wrote it: initcheck names the allocation's line") {
    if (!emulator_built()) return;
    const CheckResult r = env().check("wrong/uninitialised_scratch.cu");
    CHECK(r.cause.code() == "uninitialized_read");
    const emu::Fault& f = first_fault(r);
    CHECK(f.buffer == "cudaMalloc:25");
    CHECK(f.line == 18);
}

TEST_CASE("a launch attnlab cannot read is the learner's compile error on its line, in attnlab's words, never g++'s") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_source(
        "#include <attnlab/cuda.hpp>\n"
        "__global__ void fill(float* out, int n) { const int i = threadIdx.x; if (i < n) out[i] = 0.0f; }\n"
        "void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {\n"
        "    const int n = out.size(0) * out.size(1) * out.size(2) * out.size(3);\n"
        "    fill<<<dim3((n + 63) / 64, 64>>>(out.data(), n);\n"  // dim3( never closed
        "}\n");
    REQUIRE(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::SourceUnread);
    CHECK(r.unread_parts == std::vector<UnreadPart>{{UnreadConstruct::Launch, 5}});
    CHECK(r.compiler_output.empty());  // g++ never saw it
    CHECK(r.diagnostics.empty());
    const std::string en = explain(r, env().ex(), Lang::En), id = explain(r, env().ex(), Lang::Id);
    CHECK(contains(en, "Line 5: attnlab cannot read this kernel launch"));
    CHECK(contains(en, "`k<(N > 2)>`"));
    CHECK(!contains(en, "primary-expression"));
    CHECK(contains(id, "Baris kode 5"));
    CHECK(to_json(r, env().ex(), Lang::En)["unread_parts"][0]["line"] == 5);
    // The editor marks the line, in the learner's language.
    const std::vector<LineMark> marks = verdict_lines(r, "probe.cu", Lang::Id);
    REQUIRE(marks.size() == 1);
    CHECK(marks[0].line == 5);
    CHECK(marks[0].kind == LineMarkKind::Error);
    CHECK(contains(marks[0].message, "Baris kode 5: attnlab tidak bisa membaca peluncuran kernel ini"));
}

namespace {

// wrong/shared_template_race.cu with its shared declaration (and, when
// `synced`, the missing barrier) replaced.
std::string race_fixture_with(const std::string& declaration, bool synced) {
    std::string text = *read_file(env().ex().dir / "wrong" / "shared_template_race.cu");
    const std::string original = "    __shared__ Pair<float, float> part[64], total;\n";
    REQUIRE(text.find(original) != std::string::npos);
    text.replace(text.find(original), original.size(), declaration);
    if (synced) text.replace(text.find("// missing: "), 12, "");
    return text;
}

}  // namespace

TEST_CASE("a race on a __shared__ array of a template type, a struct or a macro's making is reported, not passed") {
    if (!emulator_built()) return;
    // The fixture's values are right in the emulator's thread order: before
    // its declaration was read, it passed.
    const CheckResult listed = env().check("wrong/shared_template_race.cu");
    REQUIRE(listed.verdict == Verdict::KernelFault);
    CHECK(listed.cause.code() == "shared_race");
    CHECK(first_fault(listed).buffer == "part");
    CHECK(first_fault(listed).other_line == 32);  // part[tid].sum = l; (the element is the whole Pair)
    CHECK(first_fault(listed).line == 36);        // the last thread reads it
    CHECK(contains(explain(listed, env().ex(), Lang::En), "line 32"));
    CHECK(contains(explain(listed, env().ex(), Lang::Id), "baris kode 36"));
    const char* const forms[] = {
        "    __shared__ struct { float max, sum; } part[64], total;\n",
        "#define SHARED_PAIRS(name, n) __shared__ Pair<float, float> name[n]\n    SHARED_PAIRS(part, 64); __shared__ Pair<float, float> total;\n",
    };
    for (const char* form : forms) {
        const std::string declaration = form;
        CAPTURE(declaration);
        const CheckResult r = env().check_source(race_fixture_with(declaration, false));
        REQUIRE(r.verdict == Verdict::KernelFault);
        CHECK(r.cause.code() == "shared_race");
        CHECK(first_fault(r).buffer == "part");
    }
    // With the barrier, the same forms pass (and cg::block_tile_memory is one more shared variable).
    const CheckResult fixed = env().check_source("#include <cooperative_groups.h>\n" + race_fixture_with(
        "    __shared__ Pair<float, float> part[64], total; __shared__ cooperative_groups::block_tile_memory<64> scratch;\n"
        "    (void)cooperative_groups::this_thread_block(scratch);\n",
        true));
    CHECK(fixed.verdict == Verdict::Pass);
}

TEST_CASE("a __shared__ declaration attnlab cannot read is refused on its line, in both languages") {
    if (!emulator_built()) return;
    const CheckResult r = env().check_source(race_fixture_with("    __shared__ Pair<float, float> part[64], total = {};\n", false));
    REQUIRE(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::SourceUnread);
    CHECK(r.unread_parts == std::vector<UnreadPart>{{UnreadConstruct::SharedInitialiser, 22}});
    CHECK(contains(explain(r, env().ex(), Lang::En), "Line 22: a `__shared__` variable cannot have an initialiser"));
    CHECK(contains(explain(r, env().ex(), Lang::Id), "Baris kode 22"));
}

TEST_CASE("every __shared__ form at once compiles and runs on the emulator, each variable holding what its threads wrote") {
    if (!emulator_built()) return;
    // Dependent and template types, a struct and a static pointer at file
    // scope, macros (one over continued lines), cg::block_tile_memory and
    // dynamic shared memory of a template type. Each thread writes
    // 1 + 2 + 3 + 4 - 10 + zeros: 0 wherever every variable is its own.
    const CheckResult r = env().check_source(
        "#include <cooperative_groups.h>\n"
        "#include <attnlab/cuda.hpp>\n"
        "namespace cg = cooperative_groups;\n"
        "\n"
        "template <class A, class B> struct Pair { A a; B b; };\n"
        "template <class T> struct Traits { using type = T; };\n"
        "#define SHARED_ROW(name, n) __shared__ float name[n]\n"
        "#define DECLARE_COUNTS \\\n"
        "    __shared__ int counts[4];\n"
        "\n"
        "__shared__ struct { float bias; int hits; } file_scope;\n"
        "static __shared__ float file_tile[8], *file_ptr;\n"
        "\n"
        "template <class T, int N>\n"
        "__global__ void fill(float* out, int n) {\n"
        "    __shared__ typename Traits<T>::type buf[N];\n"
        "    __shared__ Pair<float, int> pairs[N], one;\n"
        "    __shared__ static float total;\n"
        "    __shared__ cg::block_tile_memory<64> scratch;\n"
        "    extern __shared__ Pair<float, int> dyn[];\n"
        "    SHARED_ROW(row, N);\n"
        "    DECLARE_COUNTS\n"
        "    cg::thread_block block = cg::this_thread_block(scratch);\n"
        "    const int i = threadIdx.x;\n"
        "    buf[i] = 1; pairs[i].a = 2; row[i] = 3; dyn[i].b = 4;\n"
        "    if (i == 0) { one.a = 0; total = 0; counts[0] = 0; file_scope.bias = 0; file_tile[0] = 0; file_ptr = file_tile; }\n"
        "    block.sync();\n"
        "    const int g = blockIdx.x * blockDim.x + i;\n"
        "    if (g < n) out[g] = buf[i] + pairs[i].a + row[i] + dyn[i].b - 10 + one.a + total + counts[0] + file_scope.bias + file_ptr[0];\n"
        "}\n"
        "\n"
        "void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {\n"
        "    const int n = out.size(0) * out.size(1) * out.size(2) * out.size(3);\n"
        "    fill<float, 64><<<(n + 63) / 64, 64, 64 * sizeof(Pair<float, int>)>>>(out.data(), n);\n"
        "}\n");
    REQUIRE(r.verdict == Verdict::WrongAnswer);  // no compile error, no fault: only the values are not attention's
    REQUIRE(!r.cases.empty());
    for (float x : r.cases[0].actual.tensor.data) CHECK(x == 0.0f);
}
