#pragma once
// What differs between the runtimes a learner's file is written for, in one
// table. The struct is here, with the course (an exercise names its runtime);
// the table's rows are in check/runtime_profiles.cpp, beside the compiler
// whose pieces they name, so the course includes nothing of the check.
// The compiler, the runner, the course loader,
// the report and the views ask the profile a question ("does the program
// report kernel launches?"), never which runtime an exercise has, so a third
// runtime is a new row in that table, not an `if` in every file.
#include <cstddef>
#include <string>
#include <vector>

#include "attnlab/emu/cuda_source.hpp"

namespace attnlab {

// What compiles and runs a learner's file: C++ against the Tensor API, or a
// CUDA .cu file whose kernels run on attnlab's CPU emulator of the CUDA model
// (and on a GPU too, where one exists).
enum class Runtime { Cpp, Cuda };
inline constexpr size_t kRuntimeCount = 2;
const char* runtime_code(Runtime r);  // "cpp", "cuda": exercise.json's "runtime"

// How the learner's entry point meets the harness.
enum class EntryShape {
    ReturnsValue,       // Tensor f(const Tensor& x, int n): the harness compares what it returns
    FillsDeviceOutput,  // void f(DeviceTensor& out, const DeviceTensor& x, int n): a host launcher whose kernels fill `out`
};

struct Toolchain;

// UnreadConstruct, UnreadPart: what the rewrite of a learner's file cannot
// read (attnlab/emu/cuda_source.hpp).

struct RuntimeProfile {
    Runtime runtime;
    const char* code;              // exercise.json "runtime"
    const char* source_extension;  // starter, solution and workspace files
    const char* entry_header;      // the learner header of the generated declaration (and of the precompiled header)
    const char* pch_name;          // the precompiled header's file name in the cache
    EntryShape entry_shape;
    const char* registration_type;       // the harness's registration of the entry point (attnlab::detail::...)
    const char* registration_header;     // the header declaring it, when the entry header does not ("" then)
    bool registration_names_parameters;  // it is also told the output's and parameters' names (launch records)
    // The learner's translation unit registers its own file name: the
    // emulator names the learner's lines in faults from it.
    bool names_learner_file;
    // The file as compiled, from the file as written (the emulator's launch
    // rewrite), and compiler output mapped back to the lines as written.
    std::string (*compiled_text)(const std::string& source);
    std::string (*learner_lines)(const std::string& output, const std::string& source, const std::string& compiled);
    // What in the file that rewrite cannot read (none: it compiles as written).
    std::vector<UnreadPart> (*unread_parts)(const std::string& source);
    // The compiler flags and include folders it adds to the common ones, and
    // the libraries around libattnlab_learner.a, from the toolchain.
    std::vector<std::string> (*compile_flags)(const Toolchain& toolchain);
    std::vector<std::string> (*runtime_libraries)(const Toolchain& toolchain);  // before libattnlab_learner.a
    std::vector<std::string> (*system_libraries)(const Toolchain& toolchain);   // after it
    std::string (*missing)(const Toolchain& toolchain);                         // "" when usable here, else what is missing
    // The headers a learner's file may include that a precompiled header may
    // hold for it (learner_includes.hpp), beside the entry header.
    std::vector<std::string> (*precompilable_headers)(const Toolchain& toolchain);
    // The evidence its programs collect beside their values.
    bool reports_kernel_launches;  // launches, faults and counters: kernel causes and rules, traces, the performance report
    bool resource_report;          // NVRTC's registers and shared memory per kernel
    bool runs_on_gpu;              // also built by nvcc and run on a GPU, where one exists
    // The learner's own kernels are the CUDA side of a check: attnlab's
    // reference kernel is then not what the Kernel view and the report show.
    bool learner_writes_kernels;
    // Its cases may be split between programs run side by side, one per core
    // (case_groups.hpp): worth a second sandboxed start only where a case is
    // long, i.e. emulated.
    bool splits_cases;
    // Every function of the learner's object must be one the sanitizer's
    // instrumentation ran on (the emulator sees each load and store); one
    // that is not (no_sanitize_thread, say) is refused before linking.
    bool every_function_instrumented;
    const char* message_prefix;  // its own message keys ("explain.crash.<prefix>SIGSEGV"), "" for none
};

const RuntimeProfile& profile_of(Runtime runtime);
// The profile whose code is `code` ("cpp", "cuda"); nullptr when none is.
const RuntimeProfile* profile_by_code(const std::string& code);
// Every runtime, in enum order (the codes a course may name).
const std::vector<const RuntimeProfile*>& all_runtime_profiles();

}  // namespace attnlab
