#include "attnlab/core/course/runtime_profile.hpp"

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/emu/cuda_source.hpp"
#include "attnlab/core/check/learner_includes.hpp"

namespace attnlab {
namespace {

using Args = std::vector<std::string>;

// ---------------------------------------------------------------- C++
// A C++ file against the Tensor API: compiled as written, nothing added.
std::string as_written(const std::string& source) { return source; }
std::string output_as_is(const std::string& output, const std::string&, const std::string&) { return output; }
std::vector<UnreadPart> nothing_unread(const std::string&) { return {}; }
Args nothing(const Toolchain&) { return {}; }
std::string cpp_missing(const Toolchain&) { return ""; }  // the common pieces (Toolchain::problem) are all it needs
// The standard library, and the learner header itself (named by every file).
Args cpp_headers(const Toolchain&) {
    Args headers = standard_library_headers();
    headers.push_back("attnlab/tensor.hpp");
    return headers;
}

// ---------------------------------------------------------------- CUDA
// A .cu file on the emulator: every load and store instrumented (the flags
// are Toolchain::cuda_flags), CUDA's headers from attnlab's cuda_include, the
// emulator's runtime linked before the learner runtime it extends.
Args cuda_compile_flags(const Toolchain& t) {
    Args flags = t.cuda_flags;
    flags.insert(flags.end(), {"-I", t.cuda_include_dir.string(), "-I", t.emu_include_dir.string(), "-I", t.launch_report_include_dir.string()});
    return flags;
}
Args cuda_runtime_libraries(const Toolchain& t) { return {t.learner_cuda_library.string()}; }
// boost.context for the emulator's fibers; libbacktrace names the learner's lines.
Args cuda_system_libraries(const Toolchain& t) { return {t.boost_context_library.string(), "-lbacktrace"}; }

// The standard library, CUDA's headers on the emulator and the learner header.
Args cuda_headers(const Toolchain& t) {
    Args headers = standard_library_headers();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(t.cuda_include_dir, ec))
        if (e.path().extension() == ".h") headers.push_back(e.path().filename().string());
    headers.push_back("attnlab/cuda.hpp");
    return headers;
}

std::string cuda_missing(const Toolchain& t) {
    if (t.learner_cuda_library.empty())
        return "this attnlab was built without its CUDA emulator (boost.context was missing: install libboost-context-dev and rebuild)";
    if (!fs::exists(t.learner_cuda_library)) return "the CUDA runtime " + t.learner_cuda_library.string() + " is missing (build attnlab first)";
    if (!fs::exists(t.emu_include_dir / "attnlab" / "emu_device.hpp")) return "the emulator header is missing under " + t.emu_include_dir.string();
    if (!fs::exists(t.cuda_include_dir / "cuda_runtime.h")) return "the CUDA headers are missing under " + t.cuda_include_dir.string();
    if (!fs::exists(t.boost_context_library))
        return "boost.context (" + t.boost_context_library.string() + ") is missing: install libboost-context1.74.0";
    return "";
}

const RuntimeProfile kCpp{
    Runtime::Cpp,
    "cpp",
    ".cpp",
    "entry.hpp",
    "attnlab_pch.hpp",
    EntryShape::ReturnsValue,
    "EntryRegistration",
    "",
    /*registration_names_parameters=*/false,
    /*names_learner_file=*/false,
    as_written,
    output_as_is,
    nothing_unread,
    nothing,
    nothing,
    nothing,
    cpp_missing,
    cpp_headers,
    /*reports_kernel_launches=*/false,
    /*resource_report=*/false,
    /*runs_on_gpu=*/false,
    /*learner_writes_kernels=*/false,
    /*splits_cases=*/false,  // a C++ case takes microseconds: one program, one start
    /*every_function_instrumented=*/false,
    "",
};

const RuntimeProfile kCuda{
    Runtime::Cuda,
    "cuda",
    ".cu",
    "cuda.hpp",
    "attnlab_cuda_pch.hpp",
    EntryShape::FillsDeviceOutput,
    "CudaEntryRegistration",
    // Only the registration's object includes it (compiled once per exercise):
    // the learner's file gets cuda.hpp alone, without its standard headers.
    "cuda_entry.hpp",
    /*registration_names_parameters=*/true,
    /*names_learner_file=*/true,
    cuda_source::for_emulator,  // launches and shared arrays rewritten line for line (cuda_source.hpp)
    cuda_source::restore_learner_lines,
    cuda_source::unread_parts,  // a launch or __shared__ declaration it cannot read: refused on its line
    cuda_compile_flags,
    cuda_runtime_libraries,
    cuda_system_libraries,
    cuda_missing,
    cuda_headers,
    /*reports_kernel_launches=*/true,
    /*resource_report=*/true,
    /*runs_on_gpu=*/true,
    /*learner_writes_kernels=*/true,
    /*splits_cases=*/true,
    /*every_function_instrumented=*/true,
    // A CUDA program's kernels run on the emulator's fibers: a segfault there
    // is most often a thread's small stack overflowing (its own crash hints).
    "cuda.",
};

}  // namespace

const std::vector<const RuntimeProfile*>& all_runtime_profiles() {
    static const std::vector<const RuntimeProfile*> profiles = {&kCpp, &kCuda};
    return profiles;
}

const RuntimeProfile& profile_of(Runtime runtime) { return *all_runtime_profiles().at(static_cast<size_t>(runtime)); }

const RuntimeProfile* profile_by_code(const std::string& code) {
    for (const RuntimeProfile* p : all_runtime_profiles())
        if (code == p->code) return p;
    return nullptr;
}

const char* runtime_code(Runtime r) { return profile_of(r).code; }

}  // namespace attnlab
