#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/learner_object_check.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <sstream>

#include "attnlab/core/build_config.hpp"
#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/check/learner_includes.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/check/unchecked_copy.hpp"
#include "attnlab/core/base/util.hpp"

namespace attnlab {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return (v && *v) ? std::string(v) : fallback;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

// Keeps the binary cache bounded: oldest binaries go first.
void prune_cache(const fs::path& dir, size_t keep) {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> entries;
    for (const auto& e : fs::directory_iterator(dir, ec)) entries.emplace_back(e.last_write_time(ec), e.path());
    if (entries.size() <= keep) return;
    std::sort(entries.begin(), entries.end());
    for (size_t i = 0; i + keep < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

}  // namespace

namespace {

// A program name as the sandbox can exec it (execv does no PATH lookup):
// searched on PATH once, here, so nothing else has to prefix a folder.
std::string resolve_program(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (dir.empty()) continue;
        const fs::path candidate = fs::path(dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return (fs::path("/usr/bin") / name).string();
}

// The compiler reads learner code: it runs in the sandbox like a learner
// program (no home, no course, no network, never root), seeing the system's
// toolchain and only these of attnlab's files at their own paths: every
// absolute path its command line names (the learner headers and libraries,
// the generated headers, "-I/x", "-B/x/"), and `work` (the source and the
// output), the one folder it may write.
SandboxPolicy compile_policy(const std::vector<std::string>& argv, const fs::path& cache, const fs::path& work, const fs::path& course) {
    std::vector<std::string> readable = {(cache / "entry").string(), (cache / "pch").string()};
    for (const std::string& arg : argv) {
        const size_t slash = arg.find('/');
        if (slash == std::string::npos || (slash > 0 && arg[0] != '-')) continue;
        readable.push_back(arg.substr(slash));  // "/x", or the path in "-I/x", "-B/x/", "-Wl,-rpath,/x"
    }
    std::vector<std::string> shown;
    std::error_code ec;
    for (const std::string& path : readable) {
        fs::path p = fs::path(path).lexically_normal();
        if (!p.has_filename()) p = p.parent_path();  // "-B/x/" names the folder /x
        const std::string rel = p.lexically_relative(work).string();
        const bool in_work = !rel.empty() && rel.rfind("..", 0) != 0;
        if (!in_work && fs::exists(p, ec)) shown.push_back(p.string());
    }
    std::vector<std::string> hidden = course_folders(course);
    // A folder named twice (the learner headers are also the emulator's in an
    // installed prefix; the course is the exercise's parent) is placed once:
    // the sandbox cannot mount one path twice.
    for (std::vector<std::string>* list : {&shown, &hidden}) {
        std::sort(list->begin(), list->end());
        list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    return compiler_policy(std::move(shown), work.string(), std::move(hidden));
}

// What says the machine, not the learner's code, stopped a compile: a full
// disk or quota, or the file-size limit.
std::string first_line_with(const std::string& text, std::initializer_list<std::string> needles) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        for (const std::string& n : needles)
            if (line.find(n) != std::string::npos) return line;
    return "the disk is full";
}

bool machine_problem(const ProcessOutcome& p) {
    const std::string text = p.out + p.err;
    return (p.status == ProcessOutcome::Status::Signaled && p.signal == SIGXFSZ) || text.find(std::strerror(ENOSPC)) != std::string::npos ||
           text.find(std::strerror(EDQUOT)) != std::string::npos || text.find("File size limit exceeded") != std::string::npos;
}

// Work folders of attnlab processes that are gone (killed mid-check): named
// "<anything>-<pid>-<hex>" or "<name>-<pid>", removed when that pid is dead.
void sweep_dead_work_dirs(const fs::path& tmp) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(tmp, ec)) {
        const std::string name = e.path().filename().string();
        std::vector<std::string> parts;
        for (size_t at = 0, dash; at <= name.size(); at = dash + 1) {
            dash = name.find('-', at);
            if (dash == std::string::npos) dash = name.size();
            parts.push_back(name.substr(at, dash - at));
        }
        for (size_t i = 1; i < parts.size(); ++i) {
            const std::string& part = parts[i];
            if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) continue;
            const long pid = std::stol(part);
            if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
            break;  // the first number is the pid
        }
    }
}

// Removes a folder when the scope ends, however it ends (an atomic write that
// throws must not leave a compile's work folder behind).
struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

}  // namespace

double compile_seconds_limit(double fallback) {
    if (const char* s = std::getenv("ATTNLAB_COMPILE_SECONDS"); s && *s) {
        const double v = std::strtod(s, nullptr);
        if (v >= 1 && v <= 600) return v;
    }
    return fallback;
}

Toolchain Toolchain::detect() {
    Toolchain t;
    t.compiler = resolve_program(env_or("ATTNLAB_CXX", ATTNLAB_CXX_COMPILER));
    t.include_dir = resolve_learner_include_dir();
    t.learner_library = resolve_learner_library();
    t.sandbox = resolve_sandbox();
    t.learner_cuda_library = InstallLayout::current().learner_cuda_library;
    t.emu_include_dir = InstallLayout::current().emu_include_dir;
    t.launch_report_include_dir = InstallLayout::current().launch_report_include_dir;
    t.cuda_include_dir = InstallLayout::current().cuda_include_dir;
    // Plain CUDA on the emulator: the flags attnlab's own kernels are built
    // with too (cmake/AttnlabEmulatedCuda.cmake says why each one). The driver
    // then asks for libtsan at link time: link_stubs answers it with nothing.
    t.link_stubs_dir = t.cuda_include_dir.parent_path() / "link_stubs";
    std::istringstream emulated_cuda(ATTNLAB_EMU_CUDA_FLAGS);
    for (std::string f; emulated_cuda >> f;) t.cuda_flags.push_back(f);
    std::istringstream check_only(ATTNLAB_EMU_CUDA_CHECK_ONLY_FLAGS);
    for (std::string f; check_only >> f;) t.cuda_check_only_flags.push_back(f);
    std::istringstream unchecked(ATTNLAB_EMU_CUDA_UNCHECKED_FLAGS);
    for (std::string f; unchecked >> f;) t.cuda_unchecked_flags.push_back(f);
    t.objcopy = resolve_program(env_or("ATTNLAB_OBJCOPY", "objcopy"));
    // -pthread defines _REENTRANT: the precompiled header must be built with it too, or g++
    // silently ignores the PCH and parses every header again (0.5 s per check).
    t.cuda_flags.push_back("-pthread");
    t.cuda_flags.push_back("-B" + t.link_stubs_dir.string() + "/");  // -B also puts the folder first on the library path
    t.boost_context_library = ATTNLAB_BOOST_CONTEXT_LIBRARY;
    t.nvcc = env_or("ATTNLAB_NVCC", ATTNLAB_NVCC);
    t.learner_gpu_library = InstallLayout::current().learner_gpu_library;
    // -Og: the learner's object compiles fastest at -Og (why-many-heads'
    // solution, with its precompiled header: -Og 0.24 s, -O0 0.28 s, -O1
    // 0.33 s), since it inlines the Tensor accessors -O0 would emit and call,
    // and its loops over T×T scores still run in well under a millisecond.
    std::string flags = env_or("ATTNLAB_CXXFLAGS", "-std=c++17 -Og -g0 -pipe -Wall -fmax-errors=10 -fno-diagnostics-color");
    std::istringstream in(flags);
    for (std::string f; in >> f;) t.flags.push_back(f);
    // gold links a learner program in ~25 ms where ld.bfd takes ~60 ms.
    if (fs::exists("/usr/bin/ld.gold") && !std::getenv("ATTNLAB_CXXFLAGS")) t.link_flags.push_back("-fuse-ld=gold");
    // A PCH of tensor.hpp + entry.hpp saves ~0.13 s per compile with g++;
    // clang's PCH works differently, so it is only used with gcc.
    std::error_code ec;
    const fs::path resolved = fs::canonical(t.compiler, ec);
    const std::string base = (ec ? fs::path(t.compiler) : resolved).filename().string();
    t.use_pch = base.find("g++") != std::string::npos && !std::getenv("ATTNLAB_NO_PCH");
    t.compile_seconds = compile_seconds_limit(t.compile_seconds);
    if (base.find("clang") != std::string::npos)  // clang spells gcc's -fmax-errors differently
        for (auto& f : t.flags)
            if (f.rfind("-fmax-errors=", 0) == 0) f = "-ferror-limit=" + f.substr(13);
    return t;
}

std::string Toolchain::fingerprint() const {
    std::string s = std::string(ATTNLAB_VERSION) + "|" + file_stamp(compiler.find('/') == std::string::npos ? fs::path("/usr/bin") / compiler : fs::path(compiler)) +
                    "|" + file_stamp(learner_library) + "|" + file_stamp(include_dir / "attnlab" / "tensor.hpp") + "|" +
                    file_stamp(include_dir / "attnlab" / "entry.hpp") + "|" + file_stamp(learner_cuda_library) + "|" +
                    file_stamp(include_dir / "attnlab" / "cuda.hpp") + "|" + file_stamp(include_dir / "attnlab" / "cuda_entry.hpp") +
                    "|" + file_stamp(include_dir / "attnlab" / "cuda_std.hpp") +
                    "|" + file_stamp(emu_include_dir / "attnlab" / "emu_device.hpp") + "|" +
                    file_stamp(emu_include_dir / "attnlab" / "emu" / "raw_memory.hpp") + "|" +
                    file_stamp(launch_report_include_dir / "attnlab" / "common" / "launch_report.hpp") + "|" +
                    file_stamp(cuda_include_dir / "attnlab" / "cuda_device.hpp");
    // Every CUDA header a learner's file may include (<mma.h>, <cuda_fp16.h>,
    // ...): a change to any of them rebuilds the cached programs.
    std::error_code ec;
    std::vector<fs::path> cuda_headers;
    for (fs::recursive_directory_iterator it(cuda_include_dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec)) cuda_headers.push_back(it->path());
    std::sort(cuda_headers.begin(), cuda_headers.end());
    for (const fs::path& h : cuda_headers) s += "|" + file_stamp(h);
    for (const auto& f : cuda_flags) s += "|" + f;
    for (const auto& f : flags) s += "|" + f;
    for (const auto& f : link_flags) s += "|" + f;
    for (const auto& f : cuda_check_only_flags) s += "|" + f;
    for (const auto& f : cuda_unchecked_flags) s += "|unchecked " + f;
    s += "|" + file_stamp(objcopy);
    s += use_pch ? "|pch" : "|nopch";
    return hex64(hash64(s));
}

std::string Toolchain::problem() const {
    if (!fs::exists(learner_library)) return "the learner runtime " + learner_library.string() + " is missing (build attnlab first)";
    if (!fs::exists(include_dir / "attnlab" / "tensor.hpp")) return "the learner headers are missing under " + include_dir.string();
    if (::access(sandbox.c_str(), X_OK) != 0) return "the sandbox " + sandbox.string() + " is missing or not executable";
    return "";
}

std::string Toolchain::gpu_problem() const {
    if (nvcc.empty() || ::access(nvcc.c_str(), X_OK) != 0) return "nvcc was not found when attnlab was built (or ATTNLAB_NVCC is not executable)";
    if (learner_gpu_library.empty() || !fs::exists(learner_gpu_library)) return "the GPU runtime libattnlab_learner_gpu.a is missing";
    if (!fs::exists(include_dir / "attnlab" / "cuda.hpp")) return "the CUDA header is missing under " + include_dir.string();
    return "";
}

std::string Toolchain::problem(Runtime runtime) const {
    if (std::string p = problem(); !p.empty()) return p;
    return profile_of(runtime).missing(*this);
}

Compiler::Compiler(Toolchain toolchain, fs::path cache_dir)
    : toolchain_(std::move(toolchain)), cache_dir_(std::move(cache_dir)), fingerprint_(toolchain_.fingerprint()) {
    std::error_code ec;
    fs::create_directories(cache_dir_ / "bin", ec);
    fs::create_directories(cache_dir_ / "entry", ec);
    fs::create_directories(cache_dir_ / "tmp", ec);
    sweep_dead_work_dirs(cache_dir_ / "tmp");
    fs::create_directories(cache_dir_ / "pch", ec);
    remove_stale(cache_dir_ / "pch");
    for (const RuntimeProfile* profile : all_runtime_profiles()) {
        const fs::path dir = cache_dir_ / "pch" / fingerprint_ / profile->code;
        precompiled_[static_cast<size_t>(profile->runtime)] = std::make_unique<PrecompiledHeaders>(dir);
        unchecked_precompiled_[static_cast<size_t>(profile->runtime)] = std::make_unique<PrecompiledHeaders>(dir.string() + "-unchecked");
    }
}

// The generated files around a learner's file. The learner's translation unit
// gets the declaration alone (plus, for CUDA, the line that names its file for
// fault lines); the registration, which instantiates the harness's templates
// and costs most of a compile, goes to an object built once per exercise
// signature (entry_object). nvcc's GPU build takes everything in one header.
fs::path Compiler::entry_file(const Exercise& exercise, EntryFile kind) {
    const RuntimeProfile& runtime = exercise.profile();
    std::string text = "// Generated by attnlab from " + (exercise.dir / "exercise.json").string() + ".\n#include <attnlab/" +
                       runtime.entry_header + ">\n" + exercise.qualified_declaration() + ";\n";
    if (runtime.names_learner_file && kind != EntryFile::Registration && kind != EntryFile::UncheckedDeclaration)
        // __BASE_FILE__ here, in the learner's translation unit: inside a header it
        // would expand when the precompiled header was built, naming that header.
        text += "static const attnlab::detail::LearnerFileRegistration attnlab_learner_file_{__BASE_FILE__};\n";
    if (kind == EntryFile::Registration || kind == EntryFile::Complete) {
        if (*runtime.registration_header) text += std::string("#include <attnlab/") + runtime.registration_header + ">\n";
        std::string names;
        if (runtime.registration_names_parameters) {
            names = ", {\"" + exercise.output.name + "\"";
            for (const ParamSpec& p : exercise.params) names += ", \"" + p.name + "\"";
            names += "}";
        }
        text += std::string("static const attnlab::detail::") + runtime.registration_type + " attnlab_entry_registration_{&" +
                exercise.function + ", \"" + exercise.function + "\"" + names + "};\n";
    }
    fs::path p = cache_dir_ / "entry" / (hex64(hash64(text)) + (kind == EntryFile::Registration ? ".cpp" : ".hpp"));
    if (!fs::exists(p)) write_file_atomic(p, text);
    return p;
}

// The compiler with a runtime's flags and include folders, up to the inputs.
std::vector<std::string> Compiler::compiler_prefix(Runtime runtime) const {
    std::vector<std::string> argv{toolchain_.compiler};
    argv.insert(argv.end(), toolchain_.flags.begin(), toolchain_.flags.end());
    argv.insert(argv.end(), {"-I", toolchain_.include_dir.string()});
    const std::vector<std::string> own = profile_of(runtime).compile_flags(toolchain_);
    argv.insert(argv.end(), own.begin(), own.end());
    return argv;
}

// Runs `argv` (which writes `tmp`) in the sandbox, writing in `dir` only, and
// renames `tmp` to `target`: concurrent checks never see a half-written file.
// Returns whether `target` exists; `refused` is set when the compiler itself
// said no (a retry would say no again).
bool Compiler::build_beside(std::vector<std::string> argv, const fs::path& dir, const fs::path& tmp, const fs::path& target,
                            const std::atomic<bool>* cancel, bool& refused) {
    ProcessSpec spec;
    spec.sandbox = toolchain_.sandbox.string();
    spec.argv = std::move(argv);
    spec.policy = compile_policy(spec.argv, cache_dir_, dir, {});
    spec.policy.allow_missing_layers = toolchain_.weak_sandbox_allowed;
    spec.limits.wall_seconds = 120;
    spec.limits.memory_mb = 4096;
    spec.limits.file_size_mb = 512;
    const ProcessOutcome p = run_in_sandbox(spec, nullptr, cancel);
    std::error_code ec;
    if (p.status == ProcessOutcome::Status::Exited && p.exit_code == 0 && fs::exists(tmp)) {
        fs::rename(tmp, target, ec);
        if (!ec) return true;
    }
    fs::remove(tmp, ec);
    if (fs::exists(target)) return true;  // another attnlab process built it meanwhile
    refused = p.status == ProcessOutcome::Status::Exited && p.exit_code != 0;
    return false;
}

// Removes the folders under `parent` that belong to other (stale) toolchains.
void Compiler::remove_stale(const fs::path& parent) const {
    std::error_code ec;
    for (const auto& old : fs::directory_iterator(parent, ec))
        if (old.is_directory(ec) && old.path().filename() != fingerprint_) fs::remove_all(old.path(), ec);
}

fs::path Compiler::precompiled_header(Runtime runtime, const std::string& source, const std::atomic<bool>* cancel, bool unchecked) {
    if (!toolchain_.use_pch) return {};
    const RuntimeProfile& profile = profile_of(runtime);
    const std::vector<std::string> headers = leading_library_includes(source, profile.precompilable_headers(toolchain_));
    // Built by the compile's own command line up to its inputs, so the
    // precompiled header matches every flag the compile uses (-Winvalid-pch in
    // the tests says so); -MD lists what it was built from.
    auto build = [&](const fs::path& header, const fs::path& output, const fs::path& deps, bool& refused) {
        std::vector<std::string> argv = unchecked ? unchecked_prefix(runtime) : compiler_prefix(runtime);
        argv.insert(argv.end(), {"-x", "c++-header", header.string(), "-o", output.string(), "-MD", "-MF", deps.string()});
        return build_beside(std::move(argv), header.parent_path(), output, output, cancel, refused);
    };
    const std::string stem = fs::path(profile.pch_name).stem().string();
    PrecompiledHeaders& cache = *(unchecked ? unchecked_precompiled_ : precompiled_)[static_cast<size_t>(runtime)];
    return cache.header_for(stem, precompiled_header_prelude(source), std::string("attnlab/") + profile.entry_header,
                                                                  headers, build);
}

// The exercise's registration compiled once per toolchain (~0.4 s of a CUDA
// check's 0.6 s compile is the harness templates it instantiates); "" when it
// could not be built, and the registration is then compiled with the learner's
// file.
fs::path Compiler::entry_object(const Exercise& exercise, const fs::path& registration, const std::atomic<bool>* cancel) {
    std::lock_guard<std::mutex> lock(entry_mu_);
    const fs::path dir = cache_dir_ / "entry" / fingerprint_;
    const fs::path object = dir / (registration.stem().string() + ".o");
    if (fs::exists(object)) return object;
    if (entry_object_failed_) return {};
    remove_stale(cache_dir_ / "entry");
    std::error_code ec;
    fs::create_directories(dir, ec);
    const fs::path tmp = dir / ("build-" + std::to_string(::getpid()) + ".o");
    std::vector<std::string> argv = compiler_prefix(exercise.runtime);
    if (const fs::path pch = precompiled_header(exercise.runtime, "", cancel); !pch.empty()) argv.insert(argv.end(), {"-include", pch.string()});
    argv.insert(argv.end(), {"-c", registration.string(), "-o", tmp.string()});
    bool refused = false;
    if (build_beside(std::move(argv), dir, tmp, object, cancel, refused)) return object;
    if (refused) entry_object_failed_ = true;
    return {};
}

// The compiler's command line for the learner's file alone, to an object. A
// runtime that must see every access also has g++ list the functions its
// sanitizer pass ran on (-fdump-tree-tsan, the -O0 pipeline's pass too).
std::vector<std::string> Compiler::object_command(const Exercise& exercise, const std::string& text, const fs::path& src,
                                                  const fs::path& object, const fs::path& work, const std::atomic<bool>* cancel) {
    std::vector<std::string> argv = compiler_prefix(exercise.runtime);
    if (const fs::path pch = precompiled_header(exercise.runtime, text, cancel); !pch.empty()) argv.insert(argv.end(), {"-include", pch.string()});
    argv.insert(argv.end(), {"-include", entry_file(exercise, EntryFile::Declaration).string(), "-c", src.string(), "-o", object.string()});
    if (exercise.profile().every_function_instrumented)
        for (const fs::path& dump : instrumentation_dumps(work)) argv.push_back("-fdump-tree-" + dump.extension().string().substr(1) + "=" + dump.string());
    return argv;
}

std::vector<fs::path> Compiler::instrumentation_dumps(const fs::path& work) { return {work / "functions.tsan", work / "functions.tsan0"}; }

std::vector<std::string> Compiler::unchecked_prefix(Runtime runtime) const {
    std::vector<std::string> argv;
    for (std::string& f : compiler_prefix(runtime))
        if (std::find(toolchain_.cuda_check_only_flags.begin(), toolchain_.cuda_check_only_flags.end(), f) == toolchain_.cuda_check_only_flags.end())
            argv.push_back(std::move(f));
    argv.insert(argv.end(), toolchain_.cuda_unchecked_flags.begin(), toolchain_.cuda_unchecked_flags.end());
    argv.insert(argv.end(), {"-g0", "-D__SANITIZE_THREAD__=1"});
    return argv;
}

// The same file built as the unchecked copy: the checked build's command
// without the flags that serve the checks, with those for speed, its own
// precompiled header, and nothing registered.
std::vector<std::string> Compiler::unchecked_object_command(const Exercise& exercise, const std::string& text, const fs::path& src,
                                                            const fs::path& object, const std::atomic<bool>* cancel) {
    std::vector<std::string> argv = unchecked_prefix(exercise.runtime);
    if (const fs::path pch = precompiled_header(exercise.runtime, text, cancel, true); !pch.empty())
        argv.insert(argv.end(), {"-include", pch.string()});
    argv.insert(argv.end(), {"-include", entry_file(exercise, EntryFile::UncheckedDeclaration).string(), "-c", src.string(), "-o", object.string()});
    return argv;
}

// What the program links besides the learner's object, in link order.
std::vector<std::string> Compiler::link_libraries(const Exercise& exercise) const {
    std::vector<std::string> libraries = exercise.profile().runtime_libraries(toolchain_);
    libraries.push_back(toolchain_.learner_library.string());
    const std::vector<std::string> system_libraries = exercise.profile().system_libraries(toolchain_);
    libraries.insert(libraries.end(), system_libraries.begin(), system_libraries.end());
    return libraries;
}

// The link: the learner's object, the exercise's registration (its object,
// built once, or its source when that could not be built), the runtimes.
std::vector<std::string> Compiler::link_command(const Exercise& exercise, const fs::path& object, const std::vector<std::string>& extra_inputs,
                                                const fs::path& bin, const std::atomic<bool>* cancel) {
    std::vector<std::string> argv = compiler_prefix(exercise.runtime);
    argv.push_back(object.string());
    argv.insert(argv.end(), extra_inputs.begin(), extra_inputs.end());
    const fs::path registration = entry_file(exercise, EntryFile::Registration);
    const fs::path registration_object = entry_object(exercise, registration, cancel);
    argv.push_back((registration_object.empty() ? registration : registration_object).string());
    const std::vector<std::string> libraries = link_libraries(exercise);
    argv.insert(argv.end(), libraries.begin(), libraries.end());
    argv.insert(argv.end(), {"-o", bin.string()});
    argv.insert(argv.end(), toolchain_.link_flags.begin(), toolchain_.link_flags.end());
    return argv;
}

// One program to build into the binary cache: what a learner file's build by
// the host compiler (for the emulator or the CPU) and by nvcc (for a GPU)
// differ in. build_cached() does everything else the same way for both.
struct BuildRecipe {
    std::string key;        // the binary's name in the cache: a hash of everything that goes into it
    std::string text;       // the bytes compiled
    std::string file_name;  // the private copy's name ("solution.cpp", "solution.cu")
    std::string tool;       // how messages name the compiler ("the compiler", "nvcc")
    std::string program;    // its path, for "cannot run ..."
    // One step from the source to the program (nvcc)...
    std::function<std::vector<std::string>(const fs::path& src, const fs::path& bin)> command;
    // ...or two, with the learner's object checked between them before it is
    // linked with attnlab's harness (learner_object.hpp).
    std::function<std::vector<std::string>(const fs::path& src, const fs::path& object, const fs::path& work)> compile_object;
    std::function<LearnerObjectCheck(const fs::path& object, const fs::path& work)> inspect;
    std::function<std::vector<std::string>(const fs::path& object, const std::vector<std::string>& extra_inputs, const fs::path& bin)> link;
    // An exercise with sampled cases: the same source built as the unchecked
    // copy (unchecked_copy.hpp), meanwhile; empty otherwise.
    std::function<std::vector<std::string>(const fs::path& src, const fs::path& object)> compile_unchecked;
    std::vector<std::pair<std::string, std::string>> renames;  // paths in its output -> what the learner reads
    std::function<std::string(const std::string&)> to_learner_lines;  // after the renames (the emulator's rewrite undone)
    double wall_seconds = 60;
    long memory_mb = 4096;
    std::vector<std::string> extra_devices;   // nvcc -arch=native asks the GPU
    std::vector<std::string> extra_readonly;
};

namespace {

// The compiler's output as the learner reads it: their file's name, no
// generated path, their own lines, no escape sequence (it quotes their code).
std::string learner_output(const ProcessOutcome& p, const BuildRecipe& recipe, const fs::path& work, const std::string& display_name,
                           size_t capture_bytes) {
    std::string raw = p.out + p.err;
    replace_all(raw, (work / recipe.file_name).string(), display_name);
    replace_all(raw, (work / "solution.o").string(), display_name);
    for (const auto& [from, to] : recipe.renames) replace_all(raw, from, to);
    if (recipe.to_learner_lines) raw = recipe.to_learner_lines(raw);
    std::string text = inert_text(sanitize_utf8(raw));
    if (p.err_total + p.out_total > capture_bytes) text += "\n[… compiler output truncated …]\n";
    return text;
}

// How one step of the build ended, into `out` (ok only when it made `target`).
void judge_build(const ProcessOutcome& p, const BuildRecipe& recipe, const fs::path& target, const std::string& function, CompileOutput& out) {
    using S = ProcessOutcome::Status;
    out.ok = false;
    if (p.status == S::Cancelled) {
        out.cancelled = true;
    } else if (p.status == S::IsolationRefused) {
        out.isolation_refused = true;
        out.protections = p.protections;
        out.internal_error = recipe.tool + "'s sandbox is incomplete";
    } else if (machine_problem(p)) {
        out.machine_problem = true;
        out.internal_error = p.status == S::Signaled ? recipe.tool + " hit the file-size limit (SIGXFSZ)"
                                                     : first_line_with(out.raw_output, {std::strerror(ENOSPC), std::strerror(EDQUOT)});
    } else if (p.status == S::SetupFailed) {
        out.setup_problem = true;
        out.internal_error = p.error;
    } else if (p.status == S::SpawnFailed || p.status == S::ExecFailed || p.status == S::SandboxKilled) {
        out.internal_error = "cannot run " + recipe.tool + " " + recipe.program + ": " + p.error;
    } else if (p.status == S::WallTimeout || p.status == S::MemoryLimit) {
        // The learner's code is what the compiler was working on (a template
        // that instantiates itself without end): a verdict on that code.
        out.compiler_limit = p.status == S::WallTimeout ? CompilerLimit::Time : CompilerLimit::Memory;
        out.compiler_limit_value = p.status == S::WallTimeout ? recipe.wall_seconds : static_cast<double>(recipe.memory_mb);
    } else if (p.status == S::Exited && p.exit_code == 0 && fs::exists(target)) {
        out.ok = true;
    } else {
        // A link error that names the entry point: the function is missing or
        // its signature differs from the exercise's.
        const std::string& r = out.raw_output;
        out.missing_entry = r.find("undefined reference to `" + function + "(") != std::string::npos ||
                            r.find("undefined reference to '" + function + "(") != std::string::npos;
        out.defines_main = r.find("multiple definition of `main'") != std::string::npos || r.find("multiple definition of 'main'") != std::string::npos;
    }
}

}  // namespace

// Runs one step of a build in the sandbox (writing in `work` only) and judges
// it; true when it made `target`.
bool Compiler::run_build_step(const BuildRecipe& recipe, std::vector<std::string> argv, const fs::path& work, const fs::path& target,
                              const Exercise& exercise, const std::string& display_name, const std::atomic<bool>* cancel,
                              CompileOutput& out) {
    ProcessSpec spec;
    spec.sandbox = toolchain_.sandbox.string();
    spec.argv = std::move(argv);
    spec.policy = compile_policy(spec.argv, cache_dir_, work, exercise.dir.parent_path());
    spec.policy.allow_missing_layers = toolchain_.weak_sandbox_allowed;
    spec.policy.extra_devices = recipe.extra_devices;
    spec.policy.extra_readonly = recipe.extra_readonly;
    spec.limits.wall_seconds = recipe.wall_seconds;
    spec.limits.memory_mb = recipe.memory_mb;
    spec.limits.file_size_mb = 512;
    spec.capture_bytes = 256 * 1024;
    const ProcessOutcome p = run_in_sandbox(spec, nullptr, cancel);
    const std::string text = learner_output(p, recipe, work, display_name, spec.capture_bytes);
    out.raw_output += text;
    for (Diagnostic& d : parse_diagnostics(text)) out.diagnostics.push_back(std::move(d));
    judge_build(p, recipe, target, exercise.function, out);
    return out.ok;
}

namespace {

// The learner's object refused before linking: what it defines, by name.
void refuse_object(const LearnerObjectCheck& check, CompileOutput& out) {
    out.ok = false;
    if (!check.error.empty()) {
        out.internal_error = check.error;
        return;
    }
    out.object_problems = check.problems;
    for (const ObjectProblem& problem : check.problems)
        if (problem.kind == ObjectProblemKind::LibraryName && problem.symbol == "main") out.defines_main = true;
}

}  // namespace

// The learner's object (and, meanwhile on the other core, its unchecked
// copy), inspected, then linked with the harness. The copy is built in a
// folder of its own: the sandbox lends a run its writable folder and takes
// it back when the run ends, so two runs at once never share one.
bool Compiler::build_object_and_link(const BuildRecipe& recipe, const fs::path& src, const fs::path& work, const fs::path& bin,
                                     const Exercise& exercise, const std::string& display_name, const std::atomic<bool>* cancel,
                                     CompileOutput& out) {
    const fs::path object = work / "solution.o", copy_work = work.string() + "-unchecked", unchecked = copy_work / "unchecked.o";
    const RemoveOnExit copy_cleanup{copy_work};
    std::future<bool> copy;
    if (recipe.compile_unchecked) {
        std::error_code ec;
        fs::create_directories(copy_work, ec);
        const fs::path copy_src = copy_work / recipe.file_name;
        write_file_atomic(copy_src, recipe.text);
        copy = std::async(std::launch::async, [&, argv = recipe.compile_unchecked(copy_src, unchecked)]() mutable {
            CompileOutput ignored;  // the checked build speaks for the file
            return run_build_step(recipe, std::move(argv), copy_work, unchecked, exercise, display_name, cancel, ignored);
        });
    }
    const bool compiled = run_build_step(recipe, recipe.compile_object(src, object, work), work, object, exercise, display_name, cancel, out);
    const bool copy_compiled = copy.valid() && copy.get();
    if (!compiled) return false;
    const LearnerObjectCheck check = recipe.inspect(object, work);
    if (!check.error.empty() || !check.problems.empty()) {
        refuse_object(check, out);
        return false;
    }
    const std::vector<std::string> extra =
        copy_compiled ? link_unchecked_copy(recipe, object, unchecked, copy_work, exercise, cancel) : std::vector<std::string>{};
    return run_build_step(recipe, recipe.link(object, extra, bin), work, bin, exercise, display_name, cancel, out);
}

// The unchecked copy's functions renamed apart (objcopy) and the table that
// pairs them with the checked ones; none when the plan refuses the copy (its
// sampled cases then check every block, slower) or a step fails.
std::vector<std::string> Compiler::link_unchecked_copy(const BuildRecipe& recipe, const fs::path& checked, const fs::path& unchecked,
                                                       const fs::path& work, const Exercise& exercise, const std::atomic<bool>* cancel) {
    const std::optional<std::string> checked_bytes = read_file(checked), unchecked_bytes = read_file(unchecked);
    if (!checked_bytes || !unchecked_bytes) return {};
    std::string error;
    const std::optional<elf::ObjectFile> a = elf::read_object(*checked_bytes, error), b = elf::read_object(*unchecked_bytes, error);
    if (!a || !b) return {};
    const UncheckedCopyPlan plan = plan_unchecked_copy(*a, *b);
    if (!plan.refused.empty() || plan.pairs.empty()) return {};
    const fs::path renames = work / "unchecked.renames", renamed = work / "unchecked-renamed.o", table = work / "unchecked-copies.s";
    write_file_atomic(renames, redefine_symbols_text(plan));
    write_file_atomic(table, copies_table_assembly(plan));
    CompileOutput ignored;
    const std::vector<std::string> argv{toolchain_.objcopy, "--redefine-syms=" + renames.string(), unchecked.string(), renamed.string()};
    if (!run_build_step(recipe, argv, work, renamed, exercise, "", cancel, ignored)) return {};
    return {renamed.string(), table.string()};
}

CompileOutput Compiler::build_cached(const BuildRecipe& recipe, const Exercise& exercise, const std::string& display_name,
                                     const std::atomic<bool>* cancel) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    CompileOutput out;
    out.binary = cache_dir_ / "bin" / recipe.key;
    std::error_code ec;
    auto done = [&]() -> CompileOutput {
        out.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
        return out;
    };
    if (fs::exists(out.binary)) {
        out.ok = out.cached = true;
        fs::last_write_time(out.binary, fs::file_time_type::clock::now(), ec);  // LRU touch
        return done();
    }
    // Compile a private copy: exactly the bytes that were hashed, whatever the
    // learner's editor does to the file meanwhile.
    const fs::path work = cache_dir_ / "tmp" / (recipe.key + "-" + std::to_string(::getpid()) + "-" + hex64(hash64(std::to_string(clock::now().time_since_epoch().count()))));
    fs::create_directories(work, ec);
    const RemoveOnExit cleanup{work};
    const fs::path src = work / recipe.file_name;
    const fs::path bin = work / "program";
    write_file_atomic(src, recipe.text);
    if (!recipe.compile_object) run_build_step(recipe, recipe.command(src, bin), work, bin, exercise, display_name, cancel, out);
    else build_object_and_link(recipe, src, work, bin, exercise, display_name, cancel, out);
    if (out.ok) {
        fs::rename(bin, out.binary, ec);
        if (ec) {
            out.ok = false;
            out.internal_error = "cannot store the compiled program: " + ec.message();
        }
        prune_cache(cache_dir_ / "bin", 256);
    }
    return done();  // `cleanup` removes the work folder
}

CompileOutput Compiler::compile(const Exercise& exercise, const std::string& source, const std::string& display_name,
                                const std::atomic<bool>* cancel) {
    const fs::path header = entry_file(exercise, EntryFile::Declaration);
    const fs::path registration = entry_file(exercise, EntryFile::Registration);
    const RuntimeProfile& runtime = exercise.profile();
    BuildRecipe recipe;
    // The profile's rewrite (a CUDA file's launches, for the emulator) keeps
    // the learner's lines; the key hashes what is compiled, so a changed
    // rewrite rebuilds.
    recipe.text = runtime.compiled_text(source);
    const bool sampled = std::any_of(exercise.cases.begin(), exercise.cases.end(), [](const Case& c) { return c.sampled; });
    recipe.key = hex64(hash64(recipe.text, hash64(fingerprint_ + "|" + header.filename().string() + "|" + registration.filename().string() +
                                                  (sampled ? "|unchecked-copy" : ""))));
    recipe.file_name = "solution.cpp";
    recipe.tool = "the compiler";
    recipe.program = toolchain_.compiler;
    recipe.wall_seconds = toolchain_.compile_seconds;
    recipe.compile_object = [&](const fs::path& src, const fs::path& object, const fs::path& work) {
        return object_command(exercise, recipe.text, src, object, work, cancel);
    };
    recipe.inspect = [&](const fs::path& object, const fs::path& work) {
        return check_learner_object(object, link_libraries(exercise), runtime.every_function_instrumented, instrumentation_dumps(work));
    };
    recipe.link = [&](const fs::path& object, const std::vector<std::string>& extra, const fs::path& bin) {
        return link_command(exercise, object, extra, bin, cancel);
    };
    if (sampled)
        recipe.compile_unchecked = [&](const fs::path& src, const fs::path& object) {
            return unchecked_object_command(exercise, recipe.text, src, object, cancel);
        };
    recipe.renames = {{header.string(), "<attnlab entry declaration>"},
                      {registration.string(), "<attnlab entry registration>"},
                      {(cache_dir_ / "entry" / fingerprint_).string() + "/", "<attnlab entry registration> "}};
    recipe.to_learner_lines = [&](const std::string& raw) { return runtime.learner_lines(raw, source, recipe.text); };
    return build_cached(recipe, exercise, display_name, cancel);
}

CompileOutput Compiler::compile_gpu(const Exercise& exercise, const std::string& source, const std::string& display_name,
                                    const std::string& arch, const std::atomic<bool>* cancel) {
    const fs::path header = entry_file(exercise, EntryFile::Complete);
    BuildRecipe recipe;
    recipe.text = source;  // nvcc's own CUDA: no rewrite
    recipe.key = "gpu-" + hex64(hash64(source, hash64(fingerprint_ + "|" + header.filename().string() + "|" + arch + "|" +
                                                      file_stamp(toolchain_.nvcc) + "|" + file_stamp(toolchain_.learner_gpu_library))));
    recipe.file_name = "solution.cu";
    recipe.tool = "nvcc";
    recipe.program = toolchain_.nvcc;
    recipe.command = [&](const fs::path& src, const fs::path& bin) {
        return std::vector<std::string>{toolchain_.nvcc, "-std=c++17", "-O2", "-arch=" + arch, "-I", toolchain_.include_dir.string(),
                                        "--pre-include", header.string(), src.string(), toolchain_.learner_gpu_library.string(),
                                        toolchain_.learner_library.string(), "-o", bin.string()};
    };
    recipe.renames = {{header.string(), "<attnlab entry declaration>"}};
    recipe.wall_seconds = 120;
    recipe.memory_mb = 8192;
    const SandboxPolicy gpu = learner_policy(ExecutionTarget::Gpu);
    recipe.extra_devices = gpu.extra_devices;  // -arch=native asks the GPU
    recipe.extra_readonly = gpu.extra_readonly;
    return build_cached(recipe, exercise, display_name, cancel);
}

}  // namespace attnlab
