#pragma once
// Compiling a learner's file: the toolchain, the binary cache and the
// translation of compiler output into diagnostics on the learner's own file.
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/diagnostics.hpp"
#include "attnlab/core/check/learner_object.hpp"
#include "attnlab/core/check/precompiled_headers.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

namespace fs = std::filesystem;

struct Toolchain {
    std::string compiler;        // g++ by default (ATTNLAB_CXX overrides), resolved on PATH to an absolute path
    fs::path include_dir;        // holds attnlab/tensor.hpp and attnlab/entry.hpp
    fs::path learner_library;    // libattnlab_learner.a
    fs::path sandbox;            // attnlab-sandbox
    // CUDA exercises: the runtime with the emulator, its headers, boost.context
    fs::path learner_cuda_library;   // libattnlab_learner_cuda.a ("" when built without the emulator)
    fs::path emu_include_dir;        // holds attnlab/emu_device.hpp and attnlab/emu/raw_memory.hpp
    fs::path launch_report_include_dir;  // holds attnlab/common/launch_report.hpp (the emulator's headers include it)
    fs::path cuda_include_dir;       // CUDA's headers on the emulator: <cuda_runtime.h>, <cuda_fp16.h>...
    fs::path link_stubs_dir;         // empty stand-ins for libtsan (app/learner/link_stubs)
    // A learner's .cu: every load and store instrumented (attnlab/emu/raw_memory.hpp)
    std::vector<std::string> cuda_flags;
    // Those of cuda_flags that a sampled exercise's unchecked copy leaves out,
    // and the objcopy that renames that copy's functions (unchecked_copy.hpp).
    std::vector<std::string> cuda_check_only_flags;
    std::vector<std::string> cuda_unchecked_flags;  // and what it adds, for speed alone
    std::string objcopy;
    fs::path boost_context_library;  // the shared library the emulator's fibers need
    // CUDA exercises on a real GPU (beside the emulator, where a GPU exists)
    std::string nvcc;                // nvcc ("" when attnlab was built without it; ATTNLAB_NVCC overrides)
    fs::path learner_gpu_library;    // libattnlab_learner_gpu.a (nvcc reads include_dir's attnlab/cuda.hpp, as the emulator does)
    std::vector<std::string> flags;  // language, optimisation and diagnostic flags
    std::vector<std::string> link_flags;  // e.g. -fuse-ld=gold when available
    bool use_pch = true;             // precompile the learner headers and the library headers a file includes (gcc only)
    // The user's opt-in to a weaker sandbox (desk/workspace: weak_sandbox_opt_in)
    // as whoever made this toolchain read it: every isolated run on its behalf
    // (compiler, program, NVRTC) carries it in its SandboxPolicy. detect() leaves it off.
    bool weak_sandbox_allowed = false;
    // How long the compiler may work on one learner file (each step: the
    // object, the link) before the check says it ran out of time on that
    // code (ATTNLAB_COMPILE_SECONDS, 1..600; 60 by default).
    double compile_seconds = 60;

    // The runtime and sandbox of this attnlab's InstallLayout (installed or
    // build tree); overridable with ATTNLAB_CXX, ATTNLAB_CXXFLAGS,
    // ATTNLAB_LEARNER_INCLUDE, ATTNLAB_LEARNER_LIB and ATTNLAB_SANDBOX.
    static Toolchain detect();
    // Changes whenever the compiler, the flags, the learner runtime or the
    // header change: part of every cache key, so a stale binary is never reused.
    std::string fingerprint() const;
    // "" when usable, else what is missing (for C++ exercises; for CUDA ones
    // the emulator's runtime too).
    std::string problem() const;
    std::string problem(Runtime runtime) const;
    // "" when a learner's .cu file can be compiled for a GPU here (nvcc and the
    // GPU runtime exist; whether a GPU does is the runner's question).
    std::string gpu_problem() const;
};


// How long one compiler run over learner code may work: ATTNLAB_COMPILE_SECONDS
// (1..600) when set, else `fallback`. Read here only, for g++ and NVRTC alike,
// so a slow or loaded machine (a test machine) can allow more everywhere at once.
double compile_seconds_limit(double fallback);

// A limit the compiler ran into while compiling the learner's code.
enum class CompilerLimit { None, Time, Memory };

struct CompileOutput {
    bool ok = false;
    bool cached = false;
    fs::path binary;
    std::vector<Diagnostic> diagnostics;
    std::string raw_output;                // paths mapped to the learner's file
    bool missing_entry = false;            // the entry point is not defined (link error)
    bool defines_main = false;             // the learner wrote main(): the harness owns it
    // The learner's object defines what no exercise file may (learner_object.hpp): not linked.
    std::vector<ObjectProblem> object_problems;
    // The compiler ran out of time or memory on the learner's code: a verdict on that code.
    CompilerLimit compiler_limit = CompilerLimit::None;
    double compiler_limit_value = 0;       // seconds or MB
    std::string internal_error;            // the compiler could not run at all
    bool machine_problem = false;          // with internal_error: a full disk, a quota or the file-size limit, not the learner's code
    bool isolation_refused = false;        // with internal_error: the sandbox could not isolate the compiler (see protections)
    bool setup_problem = false;            // with internal_error: the sandbox could not prepare the compiler's run (attnlab's set-up)
    sandbox_status::Protections protections;
    bool cancelled = false;
    double ms = 0;
};

struct BuildRecipe;  // compiler.cpp: what one cached build differs in

// Learner sources above this size are refused before compiling.
inline constexpr size_t kMaxSourceBytes = 1u << 20;

class Compiler {
public:
    Compiler(Toolchain toolchain, fs::path cache_dir);
    // `display_name` is how diagnostics name the file (the learner's path).
    CompileOutput compile(const Exercise& exercise, const std::string& source, const std::string& display_name,
                          const std::atomic<bool>* cancel);
    // A CUDA exercise's file compiled by nvcc for a real GPU (`arch`: an nvcc
    // -arch value, "native" where a GPU is present), cached like compile().
    // Diagnostics are nvcc's, on the learner's lines.
    CompileOutput compile_gpu(const Exercise& exercise, const std::string& source, const std::string& display_name,
                              const std::string& arch, const std::atomic<bool>* cancel);
    const Toolchain& toolchain() const { return toolchain_; }
    const fs::path& cache_dir() const { return cache_dir_; }

private:
    // Declaration: what the learner's file is compiled with; UncheckedDeclaration:
    // the same for its unchecked copy, which registers nothing.
    enum class EntryFile { Declaration, UncheckedDeclaration, Registration, Complete };
    // The one path from a recipe to a cached binary, for every runtime and device.
    CompileOutput build_cached(const BuildRecipe& recipe, const Exercise& exercise, const std::string& display_name,
                               const std::atomic<bool>* cancel);
    fs::path entry_file(const Exercise& exercise, EntryFile kind);
    fs::path entry_object(const Exercise& exercise, const fs::path& registration, const std::atomic<bool>* cancel);
    // The learner header of a runtime and the library headers `source`
    // includes first, precompiled once per toolchain fingerprint
    // (precompiled_headers.hpp); "" when unavailable (clang, or the build
    // failed), in which case we compile without.
    // `unchecked`: for a sampled exercise's unchecked copy, whose flags differ.
    fs::path precompiled_header(Runtime runtime, const std::string& source, const std::atomic<bool>* cancel, bool unchecked = false);
    std::vector<std::string> compiler_prefix(Runtime runtime) const;
    // The same for the unchecked copy: the checked build's flags less those
    // that serve the checks, plus those for speed (cmake/AttnlabEmulatedCuda.cmake).
    std::vector<std::string> unchecked_prefix(Runtime runtime) const;
    bool build_beside(std::vector<std::string> argv, const fs::path& dir, const fs::path& tmp, const fs::path& target,
                      const std::atomic<bool>* cancel, bool& refused);
    void remove_stale(const fs::path& parent) const;
    std::vector<std::string> object_command(const Exercise& exercise, const std::string& text, const fs::path& src, const fs::path& object,
                                            const fs::path& work, const std::atomic<bool>* cancel);
    static std::vector<fs::path> instrumentation_dumps(const fs::path& work);
    std::vector<std::string> unchecked_object_command(const Exercise& exercise, const std::string& text, const fs::path& src,
                                                      const fs::path& object, const std::atomic<bool>* cancel);
    // The link's extra inputs for the unchecked copy (its renamed object, the
    // table of pairs), or none when it cannot be linked.
    std::vector<std::string> link_unchecked_copy(const BuildRecipe& recipe, const fs::path& checked, const fs::path& unchecked,
                                                 const fs::path& work, const Exercise& exercise, const std::atomic<bool>* cancel);
    bool build_object_and_link(const BuildRecipe& recipe, const fs::path& src, const fs::path& work, const fs::path& bin,
                               const Exercise& exercise, const std::string& display_name, const std::atomic<bool>* cancel,
                               CompileOutput& out);
    std::vector<std::string> link_libraries(const Exercise& exercise) const;
    std::vector<std::string> link_command(const Exercise& exercise, const fs::path& object, const std::vector<std::string>& extra_inputs,
                                          const fs::path& bin, const std::atomic<bool>* cancel);
    bool run_build_step(const BuildRecipe& recipe, std::vector<std::string> argv, const fs::path& work, const fs::path& target,
                        const Exercise& exercise, const std::string& display_name, const std::atomic<bool>* cancel, CompileOutput& out);
    Toolchain toolchain_;
    fs::path cache_dir_;
    std::string fingerprint_;
    std::unique_ptr<PrecompiledHeaders> precompiled_[kRuntimeCount];  // per runtime
    std::unique_ptr<PrecompiledHeaders> unchecked_precompiled_[kRuntimeCount];  // per runtime, for unchecked copies
    std::mutex entry_mu_;
    bool entry_object_failed_ = false;
};

}  // namespace attnlab
