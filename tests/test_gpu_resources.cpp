// The GPU resource panel: ptxas's figures parsed from NVRTC's log, NVRTC's
// diagnostics on the learner's lines, the occupancy calculator's rules per
// architecture, the words and the JSON — all pure — and, where libnvrtc is
// installed, a real compile through attnlab-nvrtc and the sandbox.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <future>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/nvrtc/library.hpp"
#include "resource_report_jobs.hpp"  // internal to the runner (app/core/src/check)
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;

namespace {

// Sets an environment variable for one scope, restoring the old value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

// ptxas -v as NVRTC 13.0 printed it for two kernels on sm_90 (split_heads_kernel
// has a 16x17 float __shared__ tile), in ptxas's order, not the source's.
const char* kTwoKernelsLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z6secondPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z6secondPf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 9.438 ms\n"
    "ptxas info    : Compiling entry function '_Z18split_heads_kernelPfPKfiiii' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z18split_heads_kernelPfPKfiiii\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 12 registers, used 1 barriers, 1088 bytes smem\n"
    "ptxas info    : Compile time = 3.244 ms\n";

// --maxrregcount=16 on sm_90: the entry spills, and a __noinline__ helper's
// properties come after the entry's report (they must not overwrite it).
const char* kSpillLog =
    "ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24\n"
    "ptxas info    : Overriding maximum register limit 256 for '_Z1kPfi' with  24 of maxrregcount option\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kPfi\n"
    "ptxas         .     1344 bytes stack frame, 1212 bytes spill stores, 3872 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 1 barriers, 1344 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 128.287 ms\n"
    "ptxas info    : Function properties for _Z6helperfi\n"
    "ptxas         .     0 bytes stack frame, 16 bytes spill stores, 16 bytes spill loads\n";

// sm_75 with -rdc: "cmem[0]" on the Used line, and a non-entry function
// between two entries.
const char* kCmemLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1mPf' for 'sm_75'\n"
    "ptxas info    : Function properties for _Z1mPf\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 4 registers, used 0 barriers, 360 bytes cmem[0]\n"
    "ptxas info    : Compile time = 2.040 ms\n"
    "ptxas info    : Function properties for _Z6helperfi\n"
    "ptxas         .     136 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Compile time = 5.272 ms\n"
    "ptxas info    : Compiling entry function '_Z1kPfi' for 'sm_75'\n"
    "ptxas info    : Function properties for _Z1kPfi\n"
    "ptxas         .     96 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 67 registers, used 1 barriers, 364 bytes cmem[0]\n"
    "ptxas info    : Compile time = 59.238 ms\n";

// NVRTC 13.0's diagnostics for a file it was told is "learner.cu".
const char* kErrorLog =
    "learner.cu(5): error: identifier \"undefined_thing\" is undefined\n"
    "      out[threadIdx.x] = undefined_thing;\n"
    "                         ^\n"
    "\n"
    "learner.cu(4): warning #177-D: variable \"unused\" was declared but never referenced\n"
    "      int unused = 3;\n"
    "          ^\n"
    "\n"
    "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
    "\n"
    "learner.cu(7): catastrophic error: could not open source file \"missing.h\" (no directories in search list)\n"
    "  #include <missing.h>\n"
    "                      ^\n"
    "\n"
    " and 1 catastrophic error detected in the compilation of \"learner.cu\".\n"
    "Compilation terminated.\n";

bool first_line_is(const std::string& text, const std::string& line) { return text.substr(0, text.find('\n')) == line; }

ArchLimits limits_of(const std::string& arch) {
    const std::optional<ArchLimits> l = arch_limits(arch);
    REQUIRE(l.has_value());
    return *l;
}

}  // namespace

// ---- ptxas ------------------------------------------------------------------

TEST_CASE("parse_ptxas_log: the documented single-kernel report") {
    const auto kernels = parse_ptxas_log(
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function '_Z1kPfPKfi' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z1kPfPKfi\n"
        "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 10 registers, used 1 barriers, 1024 bytes smem\n"
        "ptxas info    : Compile time = 4.577 ms\n");
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0].kernel == "k");
    CHECK(kernels[0].mangled == "_Z1kPfPKfi");
    CHECK(kernels[0].registers == 10);
    CHECK(kernels[0].barriers == 1);
    CHECK(kernels[0].shared_bytes == 1024);
    CHECK(kernels[0].spill_bytes() == 0);
    CHECK(kernels[0].stack_frame_bytes == 0);
}

TEST_CASE("parse_ptxas_log: several kernels, spills, cmem and functions that are not entries") {
    struct Row {
        const char* log;
        size_t index;
        const char* kernel;
        int registers, barriers;
        int64_t shared, stack, spill_stores, spill_loads;
    };
    const Row rows[] = {
        {kTwoKernelsLog, 0, "second", 8, 0, 0, 0, 0, 0},
        {kTwoKernelsLog, 1, "split_heads_kernel", 12, 1, 1088, 0, 0, 0},
        {kSpillLog, 0, "k", 24, 1, 0, 1344, 1212, 3872},  // not the helper's 16/16
        {kCmemLog, 0, "m", 4, 0, 0, 0, 0, 0},               // cmem is not shared memory
        {kCmemLog, 1, "k", 67, 1, 0, 96, 0, 0},             // not the helper's 136-byte frame
    };
    for (const Row& r : rows) {
        CAPTURE(r.kernel);
        const auto kernels = parse_ptxas_log(r.log);
        REQUIRE(kernels.size() > r.index);
        const KernelResources& k = kernels[r.index];
        CHECK(k.kernel == r.kernel);
        CHECK(k.registers == r.registers);
        CHECK(k.barriers == r.barriers);
        CHECK(k.shared_bytes == r.shared);
        CHECK(k.stack_frame_bytes == r.stack);
        CHECK(k.spill_store_bytes == r.spill_stores);
        CHECK(k.spill_load_bytes == r.spill_loads);
    }
    CHECK(parse_ptxas_log(kTwoKernelsLog).size() == 2);
    CHECK(parse_ptxas_log(kSpillLog).size() == 1);  // the helper is no kernel
    CHECK(parse_ptxas_log(kCmemLog).size() == 2);
    CHECK(parse_ptxas_log("").empty());
    CHECK(parse_ptxas_log(kErrorLog).empty());
    // Older ptxas: "static+reserved bytes smem".
    const auto old = parse_ptxas_log(
        "ptxas info    : Compiling entry function 'plain_c_kernel' for 'sm_75'\n"
        "ptxas info    : Used 16 registers, 2048+0 bytes smem, 352 bytes cmem[0]\n");
    REQUIRE(old.size() == 1);
    CHECK(old[0].kernel == "plain_c_kernel");  // extern "C": not mangled
    CHECK(old[0].registers == 16);
    CHECK(old[0].shared_bytes == 2048);
}

TEST_CASE("kernel_display_name: the name as written, without parameters or return type") {
    const std::pair<const char*, const char*> rows[] = {
        {"_Z18split_heads_kernelPfPKfiiii", "split_heads_kernel"},
        {"_Z11tile_kernelILi16EEvPf", "tile_kernel<16>"},
        {"_ZN2ns6kernelEPf", "ns::kernel"},
        {"_Z6secondPf", "second"},
        {"plain_c_kernel", "plain_c_kernel"},
    };
    for (const auto& [mangled, name] : rows) {
        CAPTURE(mangled);
        CHECK(kernel_display_name(mangled) == name);
    }
}

// ---- NVRTC diagnostics --------------------------------------------------------

TEST_CASE("parse_nvrtc_diagnostics: file, line, column, severity in gcc's words, context") {
    const auto d = parse_nvrtc_diagnostics(kErrorLog, "learner.cu");  // NVRTC printed lines 5, 4, 7: read in line order
    REQUIRE(d.size() == 3);
    CHECK(d[0].line == 4);
    CHECK(d[0].severity == "warning");  // "#177-D" is not part of it
    CHECK(d[0].message == "variable \"unused\" was declared but never referenced");
    CHECK(d[0].column == 9);
    CHECK(d[1].file == "learner.cu");
    CHECK(d[1].line == 5);
    CHECK(d[1].column == 24);  // under `undefined_thing` in "    out[threadIdx.x] = undefined_thing;"
    CHECK(d[1].severity == "error");
    CHECK(d[1].message == "identifier \"undefined_thing\" is undefined");
    CHECK(contains(d[1].context, "out[threadIdx.x] = undefined_thing;"));
    CHECK(d[2].line == 7);
    CHECK(d[2].severity == "fatal error");
    CHECK_FALSE(contains(d[2].context, "Compilation terminated"));
}

TEST_CASE("parse_nvrtc_diagnostics: any file name, tabs, the prelude's own name, option errors") {
    // A display name with parentheses and spaces is matched literally.
    const std::string name = "/home/ana/attn lab (copy)/starter.cu";
    auto d = parse_nvrtc_diagnostics(name + "(12): error: identifier \"y\" is undefined\n  \tx = y;\n  \t    ^\n", name);
    REQUIRE(d.size() == 1);
    CHECK(d[0].file == name);
    CHECK(d[0].line == 12);
    CHECK(d[0].column == 6);  // `y` in "\tx = y;": NVRTC keeps the tab, which counts as one byte
    // A diagnostic in the in-memory prelude keeps that name.
    d = parse_nvrtc_diagnostics("attnlab/cuda.hpp(3): error: expected a type specifier\n", "learner.cu");
    REQUIRE(d.size() == 1);
    CHECK(d[0].file == "attnlab/cuda.hpp");
    CHECK(d[0].line == 3);
    CHECK(d[0].column == 0);  // no caret line
    // NVRTC's own complaints name no file.
    CHECK(parse_nvrtc_diagnostics("nvrtc: error: invalid value for --gpu-architecture (-arch)\n", "learner.cu").empty());
    CHECK(parse_nvrtc_diagnostics(kTwoKernelsLog, "learner.cu").empty());
}

TEST_CASE("NVRTC's log with lines as long as the learner makes them: a bounded answer, no crash") {
    // A kernel named with 100 000 characters, and an error quoting a 200 KB line.
    const std::string name(100000, 'k');
    const std::string ptxas = "ptxas info    : Compiling entry function '" + name + "' for 'sm_90'\n"
                              "ptxas info    : Function properties for " + name + "\n"
                              "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
                              "ptxas info    : Used 40 registers, used 1 barriers, 1024+0 bytes smem\n";
    const auto kernels = parse_ptxas_log(ptxas);
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0].registers == 40);
    CHECK(kernels[0].barriers == 1);
    CHECK(kernels[0].shared_bytes == 1024);
    CHECK(kernels[0].spill_store_bytes == 4);
    const std::string quote(200000, '(');
    const auto d = parse_nvrtc_diagnostics("learner.cu(3): error: expected a \")\"\n  " + quote + "\n" + quote + "(1): error: x\n", "learner.cu");
    REQUIRE(d.size() == 1);
    CHECK(d[0].line == 3);
    CHECK(parse_nvrtc_diagnostics(std::string(300000, ':') + "(1): error: x\n", "learner.cu").size() == 1);
}

// ---- architectures and occupancy ----------------------------------------------

TEST_CASE("arch_limits: the five architectures and nothing made up") {
    struct Row {
        const char* arch;
        int threads, blocks;
        int64_t smem_kb, optin_kb, reserved;
        int smem_unit;
    };
    const Row rows[] = {
        {"sm_75", 1024, 16, 64, 64, 0, 256},
        {"sm_80", 2048, 32, 164, 163, 1024, 128},
        {"sm_86", 1536, 16, 100, 99, 1024, 128},
        {"sm_89", 1536, 24, 100, 99, 1024, 128},
        {"sm_90", 2048, 32, 228, 227, 1024, 128},
        {"sm_90a", 2048, 32, 228, 227, 1024, 128},
    };
    for (const Row& r : rows) {
        CAPTURE(r.arch);
        const ArchLimits l = limits_of(r.arch);
        CHECK(l.arch == r.arch);
        CHECK(l.max_threads_per_sm == r.threads);
        CHECK(l.max_blocks_per_sm == r.blocks);
        CHECK(l.shared_memory_per_sm == r.smem_kb * 1024);
        CHECK(l.max_shared_per_block_optin == r.optin_kb * 1024);
        CHECK(l.reserved_shared_per_block == r.reserved);
        CHECK(l.shared_allocation_unit == r.smem_unit);
        CHECK(l.registers_per_sm == 65536);
        CHECK(l.max_registers_per_thread == 255);
        CHECK(l.register_allocation_unit == 256);
        CHECK(l.max_threads_per_block == 1024);
    }
    for (const char* unknown : {"sm_70", "sm_100", "compute_90", "", "90"}) CHECK_FALSE(arch_limits(unknown).has_value());
    for (const std::string& arch : known_gpu_archs()) CHECK(arch_limits(arch).has_value());
    // The selector's labels name the GPUs, from the same table.
    CHECK(gpu_arch_label("sm_80") == "sm_80 \xE2\x80\x94 A100");
    CHECK(gpu_arch_label("sm_89") == "sm_89 \xE2\x80\x94 RTX 4090 / L4");
    CHECK(gpu_arch_label("sm_90") == "sm_90 \xE2\x80\x94 H100 / H200");
    CHECK(gpu_arch_label("sm_70") == "sm_70");
    for (const std::string& arch : known_gpu_archs()) CHECK(gpu_arch_label(arch).size() > arch.size() + 4);
}

TEST_CASE("occupancy: the calculator's figures, worked by hand") {
    struct Row {
        const char* what;
        const char* arch;
        int registers;
        int64_t shared;
        int threads;
        int blocks, warps, max_warps;
        double fraction;
        OccupancyLimit limited_by;
    };
    const Row rows[] = {
        // 8 warps a block: 64 warp slots / 8 = 8 blocks; 32 regs x 32 = 1024 per warp, 16 warps per
        // quarter of the register file -> 64 warps -> 8 blocks too: a tie goes to threads.
        {"sm_90 full", "sm_90", 32, 0, 256, 8, 64, 64, 1.0, OccupancyLimit::Threads},
        // 2048 registers a warp: 8 warps per quarter, 32 warps, 4 blocks.
        {"sm_90 64 registers", "sm_90", 64, 0, 256, 4, 32, 64, 0.5, OccupancyLimit::Registers},
        // 33 x 32 = 1056 rounds up to 1280: 12 warps per quarter, 48 warps, 12 blocks of 4 warps.
        {"register rounding", "sm_90", 33, 0, 128, 12, 48, 64, 0.75, OccupancyLimit::Registers},
        // 48 KB + 1 KB reserved = 50176 B a block; 233472 / 50176 = 4 blocks.
        {"48 KB of shared memory", "sm_90", 32, 48 * 1024, 256, 4, 32, 64, 0.5, OccupancyLimit::SharedMemory},
        // 10000 + 1024 rounds up to 11136; 167936 / 11136 = 15 blocks of 2 warps (16 without the reserve).
        {"shared rounding and reserve", "sm_80", 16, 10000, 64, 15, 30, 64, 30.0 / 64, OccupancyLimit::SharedMemory},
        // One warp a block: 32 blocks fill half of the 64 warp slots.
        {"block slots", "sm_90", 16, 0, 32, 32, 32, 64, 0.5, OccupancyLimit::Blocks},
        {"sm_86 warp slots", "sm_86", 32, 0, 128, 12, 48, 48, 1.0, OccupancyLimit::Threads},
        {"sm_89 block slots", "sm_89", 16, 0, 32, 24, 24, 48, 0.5, OccupancyLimit::Blocks},
        {"sm_75 one big block", "sm_75", 32, 0, 1024, 1, 32, 32, 1.0, OccupancyLimit::Threads},
        // sm_75: no reserve, 256-byte units: 16384 B -> 4 blocks in 64 KB (a tie with the 4 that
        // the warp slots allow); one byte more rounds up to 16640 B -> 3 blocks.
        {"sm_75 shared", "sm_75", 32, 16384, 256, 4, 32, 32, 1.0, OccupancyLimit::Threads},
        {"sm_75 shared limit", "sm_75", 32, 16385, 256, 3, 24, 32, 0.75, OccupancyLimit::SharedMemory},
        // A partial warp still takes a whole warp slot: 33 threads = 2 warps.
        {"partial warp", "sm_90", 16, 0, 33, 32, 64, 64, 1.0, OccupancyLimit::Threads},
        {"registers unknown", "sm_90", 0, 0, 1024, 2, 64, 64, 1.0, OccupancyLimit::Threads},
        // Nothing fits.
        {"1025 threads", "sm_90", 32, 0, 1025, 0, 0, 64, 0.0, OccupancyLimit::BlockTooLarge},
        {"no threads", "sm_90", 32, 0, 0, 0, 0, 64, 0.0, OccupancyLimit::BlockTooLarge},
        {"256 registers", "sm_90", 256, 0, 32, 0, 0, 64, 0.0, OccupancyLimit::Registers},
        // 65 x 32 = 2080 -> 2304 a warp, x 32 warps = 73728 > 65536 registers a block.
        {"1024 threads x 65 registers", "sm_90", 65, 0, 1024, 0, 0, 64, 0.0, OccupancyLimit::Registers},
        {"1024 threads x 64 registers", "sm_90", 64, 0, 1024, 1, 32, 64, 0.5, OccupancyLimit::Registers},
        {"227 KB fits once", "sm_90", 32, 227 * 1024, 128, 1, 4, 64, 4.0 / 64, OccupancyLimit::SharedMemory},
        {"228 KB does not fit", "sm_90", 32, 228 * 1024, 128, 0, 0, 64, 0.0, OccupancyLimit::SharedMemory},
    };
    for (const Row& r : rows) {
        CAPTURE(r.what);
        const Occupancy o = occupancy(limits_of(r.arch), r.registers, r.shared, r.threads);
        CHECK(o.active_blocks_per_sm == r.blocks);
        CHECK(o.active_warps_per_sm == r.warps);
        CHECK(o.max_warps_per_sm == r.max_warps);
        CHECK(o.fraction == doctest::Approx(r.fraction));
        CHECK(o.limited_by == r.limited_by);
    }
}

TEST_CASE("kernel_occupancy: static plus dynamic shared memory, on the report's architecture") {
    KernelResources k;
    k.kernel = "tile_kernel";
    k.registers = 32;
    k.shared_bytes = 24 * 1024;
    const auto o = kernel_occupancy("sm_90", k, {256, 24 * 1024});  // 48 KB in all
    REQUIRE(o.has_value());
    CHECK(o->active_blocks_per_sm == 4);
    CHECK(o->limited_by == OccupancyLimit::SharedMemory);
    CHECK_FALSE(kernel_occupancy("sm_120", k, {256, 0}).has_value());  // no limits known
    CHECK_FALSE(kernel_occupancy("sm_90", k, {0, 0}).has_value());     // no launch seen
}

// ---- words and JSON -----------------------------------------------------------

namespace {

ResourceReport ok_report() {
    ResourceReport r;
    r.status = ResourceReport::Status::Ok;
    r.arch = "sm_90";
    r.nvrtc_version = "13.0";
    r.kernels = parse_ptxas_log(kTwoKernelsLog);
    KernelResources spilling = parse_ptxas_log(kSpillLog).at(0);
    r.kernels.push_back(spilling);
    return r;
}

}  // namespace

TEST_CASE("describe_resources: every status, in English and Indonesian") {
    const ResourceReport ok = ok_report();
    const std::string en = describe_resources(ok, Lang::En);
    CHECK(contains(en, "sm_90"));
    CHECK(contains(en, "NVRTC 13.0"));
    CHECK(contains(en, "split_heads_kernel: 12 registers per thread, 1,088 bytes of static shared memory. No spills."));
    CHECK(contains(en, "Spills: 1,212 bytes stored to local memory and 3,872 bytes loaded back."));
    const std::string id = describe_resources(ok, Lang::Id);
    CHECK(contains(id, "split_heads_kernel: 12 register per thread, shared memory statis 1.088 byte. Tidak ada spill."));
    CHECK(contains(id, "Ada spill: 1.212 byte disimpan ke local memory"));

    ResourceReport missing;
    missing.log = "libnvrtc was not found\nlibnvrtc.so: cannot open shared object file";
    CHECK(contains(describe_resources(missing, Lang::En), "not shown: libnvrtc was not found."));
    CHECK_FALSE(contains(describe_resources(missing, Lang::En), "cannot open"));
    CHECK(contains(describe_resources(missing, Lang::Id), "tidak ditampilkan"));

    ResourceReport failed;
    failed.status = ResourceReport::Status::CompileError;
    failed.diagnostics = parse_nvrtc_diagnostics(kErrorLog, "learner.cu");
    const std::string failed_en = describe_resources(failed, Lang::En);
    CHECK(contains(failed_en, "could not compile this file for sm_90"));
    CHECK(contains(failed_en, "learner.cu:5: identifier \"undefined_thing\" is undefined"));
    CHECK_FALSE(contains(failed_en, "unused"));  // warnings stay in the editor
    CHECK(contains(describe_resources(failed, Lang::Id), "NVRTC tidak bisa mengompilasi"));

    ResourceReport empty = ok;
    empty.kernels.clear();
    CHECK(contains(describe_resources(empty, Lang::En), "no __global__ kernel"));
}

TEST_CASE("describe_occupancy: the figures and what limits them, in both languages") {
    const Occupancy full = occupancy(limits_of("sm_90"), 32, 0, 256);
    CHECK(describe_occupancy(full, Lang::En) ==
          "Occupancy 100%: 64 of the 64 warps an SM can hold (blocks resident at once: 8); the limit is the number of threads an SM can hold.");
    const Occupancy partial = occupancy(limits_of("sm_80"), 16, 10000, 64);
    CHECK(contains(describe_occupancy(partial, Lang::En), "Occupancy 46.9%"));
    CHECK(contains(describe_occupancy(partial, Lang::Id), "Okupansi 46,9%: 30 dari 64 warp"));
    const Occupancy none = occupancy(limits_of("sm_90"), 32, 0, 2048);
    CHECK(contains(describe_occupancy(none, Lang::En), "not even one block fits"));
    CHECK(contains(describe_occupancy(none, Lang::Id), "paling banyak berisi 1.024 thread"));
    // The sentence quotes the limit the rule was checked against, not a number of its own.
    ArchLimits small = limits_of("sm_90");
    small.max_threads_per_block = 512;
    CHECK(contains(describe_occupancy(occupancy(small, 32, 0, 600), Lang::En), "at most 512 threads"));
    // Every limit has its words, in the core and in the window.
    for (OccupancyLimit limit : {OccupancyLimit::Threads, OccupancyLimit::Blocks, OccupancyLimit::Registers, OccupancyLimit::SharedMemory,
                                 OccupancyLimit::BlockTooLarge}) {
        CAPTURE(occupancy_limit_code(limit));
        CHECK(has_message(Lang::En, std::string("gpu.limit.") + occupancy_limit_code(limit)));
        CHECK(has_message(Lang::Id, std::string("gpu.limit.") + occupancy_limit_code(limit)));
        CHECK(has_message(Lang::En, std::string("gui.kview.limit.") + occupancy_limit_code(limit)));
        CHECK(has_message(Lang::Id, std::string("gui.kview.limit.") + occupancy_limit_code(limit)));
    }
}

TEST_CASE("resources_to_json: maxima over the kernels, status codes, occupancy for launched kernels") {
    const ResourceReport ok = ok_report();
    const nlohmann::json j = resources_to_json(ok, {{"split_heads_kernel", {128, 0}}});
    CHECK(j["status"] == "ok");
    CHECK(j["arch"] == "sm_90");
    CHECK(j["nvrtc_version"] == "13.0");
    CHECK(j["registers"] == 24);
    CHECK(j["shared_bytes"] == 1088);
    CHECK(j["spill_bytes"] == 1212 + 3872);
    REQUIRE(j["kernels"].size() == 3);
    CHECK(j["kernels"][1]["kernel"] == "split_heads_kernel");
    CHECK(j["kernels"][1]["registers"] == 12);
    CHECK(j["kernels"][1]["shared_bytes"] == 1088);
    CHECK(j["kernels"][1]["spill_bytes"] == 0);
    CHECK(j["kernels"][1]["barriers"] == 1);
    REQUIRE(j["kernels"][1].contains("occupancy"));
    CHECK(j["kernels"][1]["occupancy"]["active_blocks_per_sm"] == 16);
    CHECK(j["kernels"][1]["occupancy"]["limited_by"] == "threads");
    CHECK(j["kernels"][1]["occupancy"]["threads_per_block"] == 128);
    CHECK_FALSE(j["kernels"][0].contains("occupancy"));  // never launched
    CHECK(j["kernels"][2]["spill_bytes"] == 1212 + 3872);

    ResourceReport missing;
    CHECK(resources_to_json(missing)["status"] == "unavailable");
    CHECK(resources_to_json(missing)["registers"] == 0);
    ResourceReport failed;
    failed.status = ResourceReport::Status::CompileError;
    failed.diagnostics = parse_nvrtc_diagnostics(kErrorLog, "learner.cu");
    const nlohmann::json f = resources_to_json(failed);
    CHECK(f["status"] == "compile_error");
    REQUIRE(f["diagnostics"].size() == 3);
    CHECK(f["diagnostics"][0]["line"] == 4);  // in line order: the warning on line 4 first
}

// ---- the compile --------------------------------------------------------------

namespace {

// The dialect's prelude as the panel's NVRTC compile sees it (for this test).
const char* kPrelude =
    "#pragma once\n"
    "template <class T> using dev_ptr = T*;\n"
    "struct DeviceTensor {\n"
    "    long long size(int axis) const;\n"
    "    long long numel() const;\n"
    "    float* data();\n"
    "    const float* data() const;\n"
    "};\n"
    "inline int ceil_div(long long a, long long b) { return b <= 0 ? 0 : int((a + b - 1) / b); }\n";

// A learner's file after the launch rewrite (the launch is gone, lines kept).
const char* kLearnerKernel =
    "#include <attnlab/cuda.hpp>\n"
    "\n"
    "// out: (B, H, T, hd)   x: (B, T, D)\n"
    "__global__ void split_heads_kernel(dev_ptr<float> out, dev_ptr<const float> x, int B, int T, int H, int hd) {\n"
    "    __shared__ float tile[16][17];\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= B * H * T * hd) return;\n"
    "    const int d = i % hd, t = (i / hd) % T, h = (i / (hd * T)) % H, b = i / (hd * T * H);\n"
    "    tile[threadIdx.x % 16][threadIdx.x % 17] = x[(b * T + t) * (H * hd) + h * hd + d];\n"
    "    __syncthreads();\n"
    "    out[i] = tile[threadIdx.x % 16][threadIdx.x % 17];\n"
    "}\n"
    "\n"
    "__global__ void scale_kernel(dev_ptr<float> out, float s, int n) {\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) out[i] *= s;\n"
    "}\n"
    "\n"
    "void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {\n"
    "    const int threads = 128;\n"
    "    (void)ceil_div(out.numel(), threads); (void)x; (void)n_heads;\n"
    "}\n";

ResourceReport compile(const std::string& source, const std::string& arch, const fs::path& work) {
    return compile_resources(source, "starter.cu", {{"attnlab/cuda.hpp", kPrelude}}, arch, work, nullptr);
}

}  // namespace

TEST_CASE("compile_resources: a real NVRTC compile where libnvrtc is installed, Unavailable where not") {
    TempDir work("gpu-resources");
    // Decided apart from the tool: does the shared search find a library here?
    const nvrtc::Library lib = nvrtc::Library::open();
    const ResourceReport r = compile(kLearnerKernel, "sm_90", work.path());
    if (!lib.loaded()) {
        MESSAGE("no libnvrtc here (" << lib.problem() << "): the real compile is not tested");
        CHECK(r.status == ResourceReport::Status::Unavailable);
        CHECK(contains(r.log, "libnvrtc was not found"));
        return;
    }
    INFO(r.log);
    REQUIRE(r.status == ResourceReport::Status::Ok);
    CHECK(r.nvrtc_version == lib.version());
    CHECK(r.arch == "sm_90");
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].kernel == "split_heads_kernel");  // the source's order, not ptxas's
    CHECK(r.kernels[0].registers > 0);
    CHECK(r.kernels[0].shared_bytes == 16 * 17 * 4);
    CHECK(r.kernels[0].barriers >= 1);
    CHECK(r.kernels[1].kernel == "scale_kernel");
    CHECK(r.kernels[1].registers > 0);
    CHECK(r.kernels[1].shared_bytes == 0);
    CHECK(r.ms > 0);
    CHECK(fs::is_empty(work.path()));  // the files for NVRTC are gone

    // Another architecture, chosen by the caller.
    const ResourceReport turing = compile(kLearnerKernel, "sm_75", work.path());
    CHECK(turing.status == ResourceReport::Status::Ok);
    CHECK(turing.arch == "sm_75");
    CHECK(turing.kernels.size() == 2);
}

TEST_CASE("compile_resources: <mma.h>, <cuda_fp16.h> and <cooperative_groups.h> come from the toolkit beside libnvrtc") {
    const nvrtc::Library lib = nvrtc::Library::open();
    std::error_code ec;
    const fs::path include = fs::canonical(lib.loaded() ? lib.path() : "/", ec).parent_path().parent_path() / "include";
    if (!lib.loaded() || !fs::is_regular_file(include / "mma.h", ec)) {
        MESSAGE("no libnvrtc with the toolkit's headers beside it: WMMA under NVRTC is not tested");
        return;
    }
    TempDir work("gpu-resources");
    const std::string source =
        "#include <attnlab/cuda.hpp>\n"
        "#include <cuda_fp16.h>\n"
        "#include <mma.h>\n"
        "#include <cooperative_groups.h>\n"
        "using namespace nvcuda;\n"
        "__global__ void tile_kernel(float* c, const __half* a, const __half* b) {\n"
        "    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;\n"
        "    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;\n"
        "    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;\n"
        "    wmma::fill_fragment(acc, 0.0f);\n"
        "    wmma::load_matrix_sync(fa, a, 16);\n"
        "    wmma::load_matrix_sync(fb, b, 16);\n"
        "    wmma::mma_sync(acc, fa, fb, acc);\n"
        "    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);\n"
        "    cooperative_groups::this_thread_block().sync();\n"
        "}\n";
    const ResourceReport r = compile(source, "sm_90", work.path());
    INFO(r.log);
    REQUIRE(r.status == ResourceReport::Status::Ok);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].kernel == "tile_kernel");
    CHECK(r.kernels[0].registers > 0);
}

TEST_CASE("compile_resources: a compile error lands on the learner's file and line") {
    if (!nvrtc::Library::open().loaded()) {
        MESSAGE("no libnvrtc here: compile errors are not tested");
        return;
    }
    TempDir work("gpu-resources");
    std::string source = kLearnerKernel;
    source.replace(source.find("out[i] *= s;"), 12, "out[i] *= scale;");  // line 16
    const ResourceReport r = compile(source, "sm_90", work.path());
    INFO(r.log);
    REQUIRE(r.status == ResourceReport::Status::CompileError);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].file == "starter.cu");
    CHECK(r.diagnostics[0].line == 16);
    CHECK(r.diagnostics[0].severity == "error");
    CHECK(contains(r.diagnostics[0].message, "\"scale\" is undefined"));
    CHECK(r.diagnostics[0].column == 26);  // `scale` in "    if (i < n) out[i] *= scale;"
    CHECK(contains(r.log, "starter.cu(16)"));
    CHECK_FALSE(contains(r.log, "attnlab-learner-source.cu"));
    CHECK(r.kernels.empty());
}

TEST_CASE("compile_resources: Unavailable without NVRTC or the tool; a bad architecture is refused") {
    TempDir work("gpu-resources");
    {
        ScopedEnv no_nvrtc("ATTNLAB_NVRTC_LIB", "/nonexistent/libnvrtc.so");
        const ResourceReport r = compile(kLearnerKernel, "sm_90", work.path());
        CHECK(r.status == ResourceReport::Status::Unavailable);
        CHECK(first_line_is(r.log, "libnvrtc was not found"));
        CHECK(contains(r.log, "/nonexistent/libnvrtc.so"));
        CHECK(contains(describe_resources(r, Lang::En), "libnvrtc was not found"));
        CHECK(resources_to_json(r)["status"] == "unavailable");
    }
    {
        ScopedEnv no_tool("ATTNLAB_NVRTC_TOOL", "/nonexistent/attnlab-nvrtc");
        CHECK(resolve_nvrtc_tool() == "/nonexistent/attnlab-nvrtc");
        const ResourceReport r = compile(kLearnerKernel, "sm_90", work.path());
        CHECK(r.status == ResourceReport::Status::Unavailable);
        CHECK(contains(r.log, "attnlab-nvrtc is missing"));
    }
    for (const char* arch : {"compute_90", "sm_90 --dopt=on", ""}) {
        CAPTURE(arch);
        const ResourceReport r = compile(kLearnerKernel, arch, work.path());
        CHECK(r.status == ResourceReport::Status::CompileError);
        CHECK(contains(r.log, "is not a GPU architecture"));
    }
    const std::atomic<bool> cancelled{true};
    const ResourceReport r = compile_resources(kLearnerKernel, "starter.cu", {}, "sm_90", work.path(), &cancelled);
    CHECK(r.status == ResourceReport::Status::Unavailable);
    CHECK(r.cancelled);
    CHECK(describe_resources(r, Lang::En) == tr(Lang::En, msg::gpu_cancelled));
    CHECK(fs::is_empty(work.path()));
}

TEST_CASE("ResourceReportJobs: at most max_running NVRTC compiles at once, a stopped one never starts, an unchanged file is remembered") {
    TempDir work("report-jobs");
    const auto kernel = [](int n) {  // plain CUDA, through attnlab's own header as a learner's file is
        return "__global__ void fill(float* out) { out[threadIdx.x] = " + std::to_string(n) + ".0f; }\n";
    };
    std::promise<void> release;
    const std::shared_future<void> gate = release.get_future().share();
    std::vector<PendingResources> reports;
    std::optional<PendingResources> stopped_report;
    {
        ResourceReportJobs jobs(work.path(), 1, false);
        for (int n = 0; n < 3; ++n)  // held back, then released at once: without the bound all three would compile together
            reports.push_back(jobs.start(kernel(n), "k" + std::to_string(n) + ".cu", "sm_90", std::make_shared<std::atomic<bool>>(false), gate));
        auto stop = std::make_shared<std::atomic<bool>>(false);
        stopped_report = jobs.start(kernel(9), "stopped.cu", "sm_90", stop, gate);
        stop->store(true);  // its check moved on before it had a turn
        release.set_value();
        for (PendingResources& r : reports) r.wait();
        stopped_report->wait();
        CHECK(jobs.peak_running() == 1);
        const std::shared_ptr<const ResourceReport> first = reports[0].get();
        INFO(first->log);
        if (first->status == ResourceReport::Status::Ok) {
            // The same file again for the same architecture: its report at once, no compile.
            const PendingResources again = jobs.start(kernel(0), "k0.cu", "sm_90", std::make_shared<std::atomic<bool>>(false));
            REQUIRE(again.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
            CHECK(again.get() == first);
            CHECK(first->kernels.size() == 1);
        } else {
            MESSAGE("no NVRTC report here: the remembered report is not tested");
        }
    }
    CHECK(stopped_report->get()->cancelled);
    for (PendingResources& r : reports) CHECK_FALSE(r.get()->cancelled);

    // Two at a time where two may run.
    ResourceReportJobs pair(work.path(), 2, false);
    std::promise<void> go;
    const std::shared_future<void> both = go.get_future().share();
    std::vector<PendingResources> three;
    for (int n = 10; n < 13; ++n) three.push_back(pair.start(kernel(n), "p.cu", "sm_80", std::make_shared<std::atomic<bool>>(false), both));
    go.set_value();
    for (PendingResources& r : three) r.wait();
    CHECK(pair.peak_running() <= 2);
    CHECK(pair.peak_running() >= 1);
}
