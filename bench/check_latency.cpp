// Edit -> verdict latency for every exercise of a course, and what the same
// solution would cost to compile against Eigen. A benchmark, not a test:
// it prints figures and asserts nothing.
//
//   build/bench/attnlab-bench-latency [--course DIR] [--runs N] [--cold-runs N] [--eigen-runs N] [--exercise ID]...
//
// --cold-runs 0 and --eigen-runs 0 leave those columns out; --exercise (repeatable) times
// those exercises alone. The machine's load average is printed first: on a
// shared machine the figures are only comparable within one run.
//
// hello     : a bare hello-world build beside each exercise's warm edits, one
//             before each edit (so load drift hits both alike): `g++ -O1` of a
//             main() with <vector> and <cmath>, compiled, linked and run, no
//             sandbox; "/hello" is warm p50 over its p50 (issue 35: <= 0.6)
// cold      : empty cache (the precompiled header is built as part of it)
// warm edit : cache warm, source changed (a new comment) -> compile + run + compare
//             (compile, run: the p50 of those two parts of it; the rest is
//             preparing the cases, judging and naming the mistake). A CUDA
//             file's NVRTC report runs beside it and is waited for after the
//             verdict, before the next edit, as a learner reads the verdict first.
// unchanged : the same source again -> no compile at all
// eigen     : g++ -c of bench/eigen/<id>.cpp with the same flags, and its ratio to warm edit
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attnlab/core/build_config.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"

using namespace attnlab;

namespace {

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = p * static_cast<double>(v.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

fs::path temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "attnlab-bench-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) std::exit(2);
    return tmpl;
}

// Runs argv (no shell) and waits; false when it did not exit 0.
bool run_quietly(const std::vector<std::string>& argv) {
    const pid_t pid = ::fork();
    if (pid < 0) return false;
    if (pid == 0) {
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        const int null_fd = ::open("/dev/null", O_WRONLY);  // not freopen: it would flush our own buffered output
        if (null_fd < 0 || ::dup2(null_fd, STDOUT_FILENO) < 0) ::_exit(127);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The yardstick: a hello world with <vector> and <cmath>, built by plain
// `g++ -O1` (compile and link) and run, outside any sandbox. Its source is
// written once; every build rewrites the program.
struct HelloWorld {
    fs::path source, program;
    explicit HelloWorld(const fs::path& dir) : source(dir / "hello.cpp"), program(dir / "hello") {
        write_file_atomic(source,
                          "#include <cmath>\n#include <cstdio>\n#include <vector>\n\nint main() {\n"
                          "    std::vector<double> v{1.0, 2.0, 3.0};\n    double s = 0;\n"
                          "    for (double x : v) s += std::sqrt(x);\n    std::printf(\"hello %f\\n\", s);\n    return 0;\n}\n");
    }
    // Milliseconds from starting g++ to the program's exit; -1 when it failed.
    double build_and_run_ms() const {
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = run_quietly({"g++", "-O1", source.string(), "-o", program.string()}) && run_quietly({program.string()});
        return ok ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() : -1;
    }
};

double time_ms(const std::string& command) {
    const auto t0 = std::chrono::steady_clock::now();
    int rc = std::system(command.c_str());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return rc == 0 ? ms : -1;
}

// A check of the solution in a fresh cache each time: the first check after
// install (the precompiled header built, nothing cached).
std::vector<double> cold_checks(const Toolchain& toolchain, const Exercise& ex, const std::string& solution, int runs, bool& all_passed) {
    std::vector<double> cold;
    for (int r = 0; r < runs; ++r) {
        const fs::path cache = temp_dir();
        Compiler compiler(toolchain, cache);
        Runner runner(compiler);
        const auto t0 = std::chrono::steady_clock::now();
        CheckResult res = runner.check_source(ex, solution, ex.solution_path().string());
        cold.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        all_passed &= res.passed();
        fs::remove_all(cache);
    }
    return cold;
}

struct WarmFigures {
    std::vector<double> warm, compile, run, unchanged, hello;  // ms per edit
};

// An edit, then its check, on a warm runner; the same file again unchanged;
// a hello-world build beside each, on the same machine at the same moment.
WarmFigures warm_checks(Runner& warm_runner, const HelloWorld& hello, const Exercise& ex, const std::string& solution, int runs, bool& all_passed) {
    WarmFigures w;
    warm_runner.check_source(ex, solution, "warm-up");  // builds the PCH once
    hello.build_and_run_ms();                           // and g++'s files into the page cache
    for (int r = 0; r < runs; ++r) {
        const std::string edited = solution + "\n// edit " + std::to_string(r) + " " + hex64(hash64(std::to_string(getpid()))) + "\n";
        if (const double ms = hello.build_and_run_ms(); ms > 0) w.hello.push_back(ms);
        const auto t0 = std::chrono::steady_clock::now();
        CheckResult res = warm_runner.check_source(ex, edited, "edited.cpp");
        w.warm.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        w.compile.push_back(res.compile_ms);
        w.run.push_back(res.run_ms);
        all_passed &= res.passed();
        // NVRTC's report may still be compiling after the verdict; a learner
        // reads the verdict before the next edit, by which time it is done.
        wait_for_resources(res);
        const auto t1 = std::chrono::steady_clock::now();
        res = warm_runner.check_source(ex, edited, "edited.cpp");
        w.unchanged.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count());
        all_passed &= res.passed() && res.compile_cached;
    }
    return w;
}

// The same computation written with Eigen (bench/eigen/ID.cpp), compiled:
// what the course would cost if learners wrote Eigen. -1: no such file.
double eigen_compile_ms(const std::string& compiler_and_flags, const Exercise& ex, const fs::path& work, int runs) {
    const fs::path source = fs::path(ATTNLAB_SOURCE_DIR) / "bench" / "eigen" / (ex.id + ".cpp");
    if (!fs::exists(source)) return -1;
    std::vector<double> times;
    for (int r = 0; r < runs; ++r)
        times.push_back(time_ms(compiler_and_flags + " -I/usr/include/eigen3 -c " + source.string() + " -o " + (work / "eigen.o").string()));
    return percentile(times, 0.5);
}

}  // namespace

int main(int argc, char** argv) {
    fs::path course_dir;  // empty: $ATTNLAB_COURSE or the built-in course
    int runs = 10, cold_runs = 3, eigen_runs = 3;
    std::vector<std::string> only;  // --exercise: these alone
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--course") course_dir = argv[i + 1];
        else if (a == "--exercise") only.push_back(argv[i + 1]);
        else if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--eigen-runs") eigen_runs = std::max(0, std::atoi(argv[i + 1]));
        else if (a == "--cold-runs") cold_runs = std::max(0, std::atoi(argv[i + 1]));
    }
    Course course = load_course(resolve_course_dir(course_dir));
    const Toolchain toolchain = Toolchain::detect();
    double load[3] = {0, 0, 0};
    if (::getloadavg(load, 3) == 3) std::printf("load average: %.2f %.2f %.2f on %ld cores\n", load[0], load[1], load[2], ::sysconf(_SC_NPROCESSORS_ONLN));
    std::string flags;
    for (const auto& f : toolchain.flags) flags += " " + f;
    std::printf("compiler: %s%s%s  pch: %s\n", toolchain.compiler.c_str(), flags.c_str(),
                toolchain.link_flags.empty() ? "" : (" link:" + toolchain.link_flags[0]).c_str(), toolchain.use_pch ? "yes" : "no");
    std::printf("%-16s %9s %9s | %9s %9s %9s %9s | %9s %6s | %9s | %9s %7s\n", "exercise", "cold p50", "cold p90", "warm p50", "warm p90",
                "compile", "run", "hello p50", "/hello", "unchanged", "eigen", "ratio");

    const fs::path warm_cache = temp_dir();
    const HelloWorld hello(warm_cache);
    Compiler warm_compiler(toolchain, warm_cache);
    Runner warm_runner(warm_compiler);
    bool all_passed = true;
    double worst_cpp_ratio = 0;  // the bar: every C++ exercise's warm p50 <= 0.6x hello
    std::string worst_cpp;
    for (const Exercise& ex : course.exercises) {
        if (!only.empty() && std::find(only.begin(), only.end(), ex.id) == only.end()) continue;
        const std::string solution = read_file(ex.solution_path()).value_or("");
        const std::vector<double> cold = cold_checks(toolchain, ex, solution, cold_runs, all_passed);
        const WarmFigures w = warm_checks(warm_runner, hello, ex, solution, runs, all_passed);
        const std::vector<double>& warm = w.warm;
        const std::vector<double>& hello_ms = w.hello;
        const double eigen = eigen_runs > 0 ? eigen_compile_ms(toolchain.compiler + flags, ex, warm_cache, eigen_runs) : -1;
        const double warm50 = percentile(warm, 0.5);
        const double hello50 = percentile(hello_ms, 0.5);
        if (ex.runtime == Runtime::Cpp && hello50 > 0 && warm50 / hello50 > worst_cpp_ratio) {
            worst_cpp_ratio = warm50 / hello50;
            worst_cpp = ex.id;
        }
        std::printf("%-16s %7.0fms %7.0fms | %7.0fms %7.0fms %7.0fms %7.0fms | %7.0fms %6.2f | %7.1fms | %7.0fms %6.1fx\n", ex.id.c_str(),
                    percentile(cold, 0.5), percentile(cold, 0.9), warm50, percentile(warm, 0.9), percentile(w.compile, 0.5),
                    percentile(w.run, 0.5), hello50, hello50 > 0 ? warm50 / hello50 : 0.0, percentile(w.unchanged, 0.5), eigen,
                    eigen > 0 ? eigen / warm50 : 0.0);
        std::fflush(stdout);
    }
    fs::remove_all(warm_cache);
    if (!worst_cpp.empty()) std::printf("C++ exercises: warm p50 / hello p50 at most %.2f (%s); the bar is 0.6\n", worst_cpp_ratio, worst_cpp.c_str());
    if (!all_passed) std::printf("warning: some checks did not pass; figures may not be representative\n");
    return 0;
}
