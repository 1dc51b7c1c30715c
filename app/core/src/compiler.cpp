#include "attnlab/core/compiler.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

#include "attnlab/core/build_config.hpp"
#include "attnlab/core/cuda_source.hpp"
#include "attnlab/core/install_layout.hpp"
#include "attnlab/core/process.hpp"
#include "attnlab/core/util.hpp"

namespace attnlab {
namespace {

std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return (v && *v) ? std::string(v) : fallback;
}

std::string file_stamp(const fs::path& p) {
    std::error_code ec;
    auto size = fs::file_size(p, ec);
    auto time = fs::last_write_time(p, ec);
    return p.string() + ":" + std::to_string(ec ? 0 : size) + ":" +
           std::to_string(ec ? 0 : time.time_since_epoch().count());
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
    std::vector<std::string> hidden;
    for (const fs::path& p : {course, InstallLayout::current().course_dir}) {
        std::error_code canon_ec;
        const fs::path abs = p.empty() ? p : fs::weakly_canonical(fs::absolute(p), canon_ec);
        if (!abs.empty()) hidden.push_back(abs.string());
    }
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
    // Plain CUDA on the emulator: -fsanitize=thread makes every load and store
    // call attnlab's hooks (libtsan is never linked), -fsanitize=bounds checks
    // arrays of known size and pointers a GPU would fault on (a float4*
    // that is not 16-byte aligned, a null pointer), -fnon-call-exceptions lets a fault unwind out of
    // a hook, -g1 gives the lines faults name; no vectorising, so a thread's
    // loads stay the size it wrote them (as a GPU's do).
    // The driver then asks for libtsan at link time: link_stubs answers it with nothing.
    t.link_stubs_dir = t.cuda_include_dir.parent_path() / "link_stubs";
    t.cuda_flags = {"-fsanitize=thread", "--param=tsan-instrument-func-entry-exit=0", "-fsanitize=bounds,alignment,null",
                    "-fno-sanitize-recover=bounds,alignment,null", "-fnon-call-exceptions", "-g1", "-fno-tree-vectorize", "-O2",
                    // -pthread defines _REENTRANT: the precompiled header must be built with it too, or g++
                    // silently ignores the PCH and parses every header again (0.5 s per check).
                    "-pthread", "-B" + t.link_stubs_dir.string() + "/"};  // -B also puts the folder first on the library path
    t.boost_context_library = ATTNLAB_BOOST_CONTEXT_LIBRARY;
    t.nvcc = env_or("ATTNLAB_NVCC", ATTNLAB_NVCC);
    t.learner_gpu_library = InstallLayout::current().learner_gpu_library;
    t.gpu_include_dir = InstallLayout::current().gpu_include_dir;
    // -O1: learner loops over T×T scores run in well under a millisecond,
    // while -O2 costs compile time on every check (see bench/ for figures).
    std::string flags = env_or("ATTNLAB_CXXFLAGS", "-std=c++17 -O1 -g0 -pipe -Wall -fmax-errors=10 -fno-diagnostics-color");
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
    if (!fs::exists(gpu_include_dir / "attnlab" / "cuda.hpp")) return "the GPU header is missing under " + gpu_include_dir.string();
    return "";
}

std::string Toolchain::problem(Runtime runtime) const {
    if (std::string p = problem(); !p.empty() || runtime != Runtime::Cuda) return p;
    if (learner_cuda_library.empty())
        return "this attnlab was built without its CUDA emulator (boost.context was missing: install libboost-context-dev and rebuild)";
    if (!fs::exists(learner_cuda_library)) return "the CUDA runtime " + learner_cuda_library.string() + " is missing (build attnlab first)";
    if (!fs::exists(emu_include_dir / "attnlab" / "emu_device.hpp")) return "the emulator header is missing under " + emu_include_dir.string();
    if (!fs::exists(cuda_include_dir / "cuda_runtime.h")) return "the CUDA headers are missing under " + cuda_include_dir.string();
    if (!fs::exists(boost_context_library)) return "boost.context (" + boost_context_library.string() + ") is missing: install libboost-context1.74.0";
    return "";
}

Compiler::Compiler(Toolchain toolchain, fs::path cache_dir)
    : toolchain_(std::move(toolchain)), cache_dir_(std::move(cache_dir)), fingerprint_(toolchain_.fingerprint()) {
    std::error_code ec;
    fs::create_directories(cache_dir_ / "bin", ec);
    fs::create_directories(cache_dir_ / "entry", ec);
    fs::create_directories(cache_dir_ / "tmp", ec);
    sweep_dead_work_dirs(cache_dir_ / "tmp");
}

// The generated files around a learner's file. The learner's translation unit
// gets the declaration alone (plus, for CUDA, the line that names its file for
// fault lines); the registration, which instantiates the harness's templates
// and costs most of a compile, goes to an object built once per exercise
// signature (entry_object). nvcc's GPU build takes everything in one header.
fs::path Compiler::entry_file(const Exercise& exercise, EntryFile kind) {
    const bool cuda = exercise.runtime == Runtime::Cuda;
    std::string text = "// Generated by attnlab from " + (exercise.dir / "exercise.json").string() + ".\n#include <attnlab/" +
                       (cuda ? "cuda.hpp" : "entry.hpp") + ">\n" + exercise.qualified_declaration() + ";\n";
    if (cuda && kind != EntryFile::Registration)
        // __BASE_FILE__ here, in the learner's translation unit: inside a header it
        // would expand when the precompiled header was built, naming that header.
        text += "static const attnlab::detail::LearnerFileRegistration attnlab_learner_file_{__BASE_FILE__};\n";
    if (kind != EntryFile::Declaration) {
        if (cuda) {
            std::string names = "\"" + exercise.output.name + "\"";
            for (const ParamSpec& p : exercise.params) names += ", \"" + p.name + "\"";
            text += "static const attnlab::detail::CudaEntryRegistration attnlab_entry_registration_{&" + exercise.function + ", \"" +
                    exercise.function + "\", {" + names + "}};\n";
        } else {
            text += "static const attnlab::detail::EntryRegistration attnlab_entry_registration_{&" + exercise.function + ", \"" +
                    exercise.function + "\"};\n";
        }
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
    if (runtime == Runtime::Cuda) {
        argv.insert(argv.end(), toolchain_.cuda_flags.begin(), toolchain_.cuda_flags.end());
        argv.insert(argv.end(), {"-I", toolchain_.cuda_include_dir.string(), "-I", toolchain_.emu_include_dir.string(),
                                 "-I", toolchain_.launch_report_include_dir.string()});
    }
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

fs::path Compiler::precompiled_header(Runtime runtime, const std::atomic<bool>* cancel) {
    std::lock_guard<std::mutex> lock(pch_mu_);
    const bool cuda = runtime == Runtime::Cuda;
    if (!toolchain_.use_pch || pch_failed_[cuda]) return {};
    const fs::path dir = cache_dir_ / "pch" / fingerprint_;
    const fs::path header = dir / (cuda ? "attnlab_cuda_pch.hpp" : "attnlab_pch.hpp");
    fs::path gch = header;
    gch += ".gch";
    if (fs::exists(gch)) return header;
    remove_stale(cache_dir_ / "pch");
    std::error_code ec;
    fs::create_directories(dir, ec);
    write_file_atomic(header, std::string("// Precompiled by attnlab: the learner headers, parsed once.\n#include <attnlab/") +
                                  (cuda ? "cuda.hpp" : "entry.hpp") + ">\n");
    const fs::path tmp = dir / ("build-" + std::to_string(::getpid()) + (cuda ? "-cuda" : "") + ".gch");
    std::vector<std::string> argv = compiler_prefix(runtime);
    argv.insert(argv.end(), {"-x", "c++-header", header.string(), "-o", tmp.string()});
    bool refused = false;
    if (build_beside(std::move(argv), dir, tmp, gch, cancel, refused)) return header;
    if (refused) pch_failed_[cuda] = true;  // the compiler refused: stop trying
    return {};
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
    if (const fs::path pch = precompiled_header(exercise.runtime, cancel); !pch.empty()) argv.insert(argv.end(), {"-include", pch.string()});
    argv.insert(argv.end(), {"-c", registration.string(), "-o", tmp.string()});
    bool refused = false;
    if (build_beside(std::move(argv), dir, tmp, object, cancel, refused)) return object;
    if (refused) entry_object_failed_ = true;
    return {};
}

// The compiler's command line for one learner file of `exercise`'s runtime.
std::vector<std::string> Compiler::compile_command(const Exercise& exercise, const fs::path& src, const fs::path& bin,
                                                   const std::atomic<bool>* cancel) {
    const bool cuda = exercise.runtime == Runtime::Cuda;
    std::vector<std::string> argv = compiler_prefix(exercise.runtime);
    if (const fs::path pch = precompiled_header(exercise.runtime, cancel); !pch.empty()) argv.insert(argv.end(), {"-include", pch.string()});
    argv.insert(argv.end(), {"-include", entry_file(exercise, EntryFile::Declaration).string(), src.string()});
    const fs::path registration = entry_file(exercise, EntryFile::Registration);
    const fs::path object = entry_object(exercise, registration, cancel);
    argv.push_back((object.empty() ? registration : object).string());
    if (cuda) argv.push_back(toolchain_.learner_cuda_library.string());
    argv.push_back(toolchain_.learner_library.string());
    if (cuda) argv.insert(argv.end(), {toolchain_.boost_context_library.string(), "-lbacktrace"});
    argv.insert(argv.end(), {"-o", bin.string()});
    argv.insert(argv.end(), toolchain_.link_flags.begin(), toolchain_.link_flags.end());
    return argv;
}

CompileOutput Compiler::compile(const Exercise& exercise, const std::string& source, const std::string& display_name,
                                const std::atomic<bool>* cancel) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    CompileOutput out;
    const fs::path header = entry_file(exercise, EntryFile::Declaration);
    const fs::path registration = entry_file(exercise, EntryFile::Registration);
    // A CUDA file is rewritten line for line for the emulator (launches and
    // shared arrays, see cuda_source.hpp); diagnostics keep the learner's
    // lines. The key hashes what is compiled, so a changed rewrite rebuilds.
    const std::string compiled = exercise.runtime == Runtime::Cuda ? cuda_source::for_emulator(source) : source;
    const std::string key = hex64(hash64(compiled, hash64(fingerprint_ + "|" + header.filename().string() + "|" + registration.filename().string())));
    out.binary = cache_dir_ / "bin" / key;
    if (fs::exists(out.binary)) {
        out.ok = out.cached = true;
        std::error_code ec;
        fs::last_write_time(out.binary, fs::file_time_type::clock::now(), ec);  // LRU touch
        out.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
        return out;
    }

    // Compile a private copy: exactly the bytes that were hashed, whatever the
    // learner's editor does to the file meanwhile.
    const fs::path work = cache_dir_ / "tmp" / (key + "-" + std::to_string(::getpid()) + "-" + hex64(hash64(std::to_string(clock::now().time_since_epoch().count()))));
    std::error_code ec;
    fs::create_directories(work, ec);
    const RemoveOnExit cleanup{work};
    const fs::path src = work / "solution.cpp";
    const fs::path bin = work / "program";
    write_file_atomic(src, compiled);

    ProcessSpec spec;
    spec.sandbox = toolchain_.sandbox.string();
    spec.argv = compile_command(exercise, src, bin, cancel);
    spec.policy = compile_policy(spec.argv, cache_dir_, work, exercise.dir.parent_path());
    spec.limits.wall_seconds = 60;
    spec.limits.memory_mb = 4096;
    spec.limits.file_size_mb = 512;
    spec.capture_bytes = 256 * 1024;
    ProcessOutcome p = run_in_sandbox(spec, nullptr, cancel);

    std::string raw = p.out + p.err;
    replace_all(raw, src.string(), display_name);
    replace_all(raw, header.string(), "<attnlab entry declaration>");
    replace_all(raw, registration.string(), "<attnlab entry registration>");
    replace_all(raw, (cache_dir_ / "entry" / fingerprint_).string() + "/", "<attnlab entry registration> ");
    if (exercise.runtime == Runtime::Cuda) raw = cuda_source::restore_learner_lines(raw, source, compiled);
    out.raw_output = inert_text(sanitize_utf8(raw));  // quotes learner code: no escape sequence gets through
    if (p.err_total + p.out_total > spec.capture_bytes) out.raw_output += "\n[… compiler output truncated …]\n";
    out.diagnostics = parse_diagnostics(out.raw_output);
    out.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();

    if (p.status == ProcessOutcome::Status::Cancelled) {
        out.cancelled = true;
    } else if (p.status == ProcessOutcome::Status::IsolationRefused) {
        out.isolation_refused = true;
        out.protections = p.protections;
        out.internal_error = "the compiler's sandbox is incomplete";
    } else if (machine_problem(p)) {
        out.machine_problem = true;
        out.internal_error = p.status == ProcessOutcome::Status::Signaled ? "the compiler hit the file-size limit (SIGXFSZ)"
                                                                          : first_line_with(out.raw_output, {std::strerror(ENOSPC), std::strerror(EDQUOT)});
    } else if (p.status == ProcessOutcome::Status::SpawnFailed || p.status == ProcessOutcome::Status::ExecFailed ||
               p.status == ProcessOutcome::Status::SandboxKilled) {
        out.internal_error = "cannot run the compiler " + toolchain_.compiler + ": " + p.error;
    } else if (p.status == ProcessOutcome::Status::WallTimeout) {
        out.internal_error = "the compiler did not finish within 60 s";
    } else if (p.status == ProcessOutcome::Status::Exited && p.exit_code == 0 && fs::exists(bin)) {
        fs::rename(bin, out.binary, ec);
        if (ec) out.internal_error = "cannot store the compiled program: " + ec.message();
        else out.ok = true;
        prune_cache(cache_dir_ / "bin", 256);
    } else {
        // A link error that names the entry point: the function is missing or
        // its signature differs from the exercise's.
        const std::string& r = out.raw_output;
        if (r.find("undefined reference to `" + exercise.function + "(") != std::string::npos ||
            r.find("undefined reference to '" + exercise.function + "(") != std::string::npos)
            out.missing_entry = true;
        if (r.find("multiple definition of `main'") != std::string::npos || r.find("multiple definition of 'main'") != std::string::npos)
            out.defines_main = true;
    }
    return out;  // `cleanup` removes the work folder
}

CompileOutput Compiler::compile_gpu(const Exercise& exercise, const std::string& source, const std::string& display_name,
                                    const std::string& arch, const std::atomic<bool>* cancel) {
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    CompileOutput out;
    const fs::path header = entry_file(exercise, EntryFile::Complete);
    const std::string key = "gpu-" + hex64(hash64(source, hash64(fingerprint_ + "|" + header.filename().string() + "|" + arch + "|" +
                                                               file_stamp(toolchain_.nvcc) + "|" + file_stamp(toolchain_.learner_gpu_library))));
    out.binary = cache_dir_ / "bin" / key;
    auto done = [&] {
        out.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
        return out;
    };
    if (fs::exists(out.binary)) {
        out.ok = out.cached = true;
        return done();
    }
    const fs::path work = cache_dir_ / "tmp" / (key + "-" + std::to_string(::getpid()) + "-" + hex64(hash64(std::to_string(clock::now().time_since_epoch().count()))));
    std::error_code ec;
    fs::create_directories(work, ec);
    const RemoveOnExit cleanup{work};
    const fs::path src = work / "solution.cu";  // nvcc's own CUDA: no rewrite
    const fs::path bin = work / "program";
    write_file_atomic(src, source);
    ProcessSpec spec;
    spec.sandbox = toolchain_.sandbox.string();
    spec.argv = {toolchain_.nvcc, "-std=c++17", "-O2", "-arch=" + arch, "-I", toolchain_.gpu_include_dir.string(),
                 "-I", toolchain_.include_dir.string(), "--pre-include", header.string(), src.string(),
                 toolchain_.learner_gpu_library.string(), toolchain_.learner_library.string(), "-o", bin.string()};
    spec.policy = compile_policy(spec.argv, cache_dir_, work, exercise.dir.parent_path());
    spec.policy.extra_devices = sandbox_policy_for("cuda").extra_devices;  // -arch=native asks the GPU
    spec.policy.extra_readonly = sandbox_policy_for("cuda").extra_readonly;
    spec.limits.wall_seconds = 120;
    spec.limits.memory_mb = 8192;
    spec.limits.file_size_mb = 512;
    spec.capture_bytes = 256 * 1024;
    const ProcessOutcome p = run_in_sandbox(spec, nullptr, cancel);
    std::string raw = p.out + p.err;
    replace_all(raw, src.string(), display_name);
    replace_all(raw, header.string(), "<attnlab entry declaration>");
    out.raw_output = inert_text(sanitize_utf8(raw));  // quotes learner code: no escape sequence gets through
    if (p.status == ProcessOutcome::Status::Cancelled) {
        out.cancelled = true;
    } else if (p.status == ProcessOutcome::Status::Exited && p.exit_code == 0 && fs::exists(bin)) {
        fs::rename(bin, out.binary, ec);
        if (ec) out.internal_error = "cannot store the compiled program: " + ec.message();
        else out.ok = true;
    } else if (p.status == ProcessOutcome::Status::IsolationRefused) {
        out.isolation_refused = true;
        out.protections = p.protections;
        out.internal_error = "nvcc's sandbox is incomplete";
    } else if (p.status != ProcessOutcome::Status::Exited) {
        out.internal_error = "cannot run nvcc " + toolchain_.nvcc + ": " + p.error;
    }
    return done();
}

std::vector<Diagnostic> parse_diagnostics(const std::string& output) {
    static const std::regex line_re(R"(^(.+?):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
    std::vector<Diagnostic> out;
    std::istringstream in(output);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, line_re)) {
            Diagnostic d;
            d.file = m[1];
            d.line = std::stoi(m[2]);
            d.column = std::stoi(m[3]);
            d.severity = m[4];
            d.message = m[5];
            out.push_back(std::move(d));
        } else if (!out.empty() && (line.rfind(" ", 0) == 0 || line.find(" | ") != std::string::npos)) {
            // gcc's source excerpt and caret lines belong to the diagnostic above.
            if (out.back().context.size() < 2000) out.back().context += line + "\n";
        }
    }
    return out;
}

}  // namespace attnlab
