// What the isolation of learner programs (private root, network namespace,
// seccomp) costs per check. A benchmark, not a test: it prints figures.
//
//   build/bench/attnlab-bench-sandbox [--course DIR] [--rounds N] [--exercise ID]...
//
// The same check is timed with the layers off (ATTNLAB_NO_MOUNTNS, _NETNS and
// _SECCOMP set: the sandbox as it was before them) and on, alternating within
// each round, so a machine whose load drifts affects both alike. Per exercise:
// p50 of a warm edit (compile + run + compare) and of an unchanged file (run +
// compare only) in each mode, and the median of the per-round differences.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"

using namespace attnlab;

namespace {

const char* const kSwitches[] = {"ATTNLAB_NO_MOUNTNS", "ATTNLAB_NO_NETNS", "ATTNLAB_NO_SECCOMP"};

void set_isolation(bool on) {
    for (const char* s : kSwitches) {
        if (on) unsetenv(s);
        else setenv(s, "1", 1);
    }
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double timed_check(Runner& runner, const Exercise& ex, const std::string& source, bool& passed) {
    const auto t0 = std::chrono::steady_clock::now();
    const CheckResult r = runner.check_source(ex, source, "edited.cpp");
    passed &= r.passed();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Figures {
    std::vector<double> edit[2], unchanged[2];  // [0] layers off, [1] on
    std::vector<double> edit_diff, unchanged_diff;
};

Figures measure(Runner& runner, const Exercise& ex, int rounds, bool& passed) {
    const std::string solution = read_file(ex.solution_path()).value_or("");
    Figures f;
    for (int round = 0; round < rounds; ++round) {
        double edit[2], unchanged[2];
        for (int k = 0; k < 2; ++k) {
            const bool on = (round + k) % 2 == 1;  // alternate which mode goes first
            set_isolation(on);
            const std::string edited = solution + "\n// round " + std::to_string(round) + (on ? " on " : " off ") +
                                       hex64(hash64(std::to_string(getpid()))) + "\n";
            edit[on] = timed_check(runner, ex, edited, passed);
            unchanged[on] = timed_check(runner, ex, edited, passed);
        }
        for (int m = 0; m < 2; ++m) {
            f.edit[m].push_back(edit[m]);
            f.unchanged[m].push_back(unchanged[m]);
        }
        f.edit_diff.push_back(edit[1] - edit[0]);
        f.unchanged_diff.push_back(unchanged[1] - unchanged[0]);
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    fs::path course_dir;
    int rounds = 15;
    std::vector<std::string> ids;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--course") course_dir = argv[i + 1];
        else if (a == "--rounds") rounds = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--exercise") ids.push_back(argv[i + 1]);
    }
    const Course course = load_course(resolve_course_dir(course_dir));
    if (ids.empty()) ids = {"split-heads", "causal-mhsa"};
    const std::string cache = (fs::temp_directory_path() / ("attnlab-bench-sandbox-" + std::to_string(getpid()))).string();
    Compiler compiler(Toolchain::detect(), cache);
    Runner runner(compiler);
    std::printf("%-14s | %-23s | %-23s\n", "", "warm edit p50 (ms)", "unchanged p50 (ms)");
    std::printf("%-14s | %6s %6s %9s | %6s %6s %9s\n", "exercise", "off", "on", "on-off", "off", "on", "on-off");
    bool passed = true;
    for (const std::string& id : ids) {
        const Exercise* ex = course.find(id);
        if (!ex) {
            std::fprintf(stderr, "no exercise %s\n", id.c_str());
            continue;
        }
        runner.check_source(*ex, read_file(ex->solution_path()).value_or(""), "warm-up");  // the PCH, once
        const Figures f = measure(runner, *ex, rounds, passed);
        std::printf("%-14s | %6.1f %6.1f %+9.1f | %6.1f %6.1f %+9.1f\n", id.c_str(), median(f.edit[0]), median(f.edit[1]),
                    median(f.edit_diff), median(f.unchanged[0]), median(f.unchanged[1]), median(f.unchanged_diff));
        std::fflush(stdout);
    }
    set_isolation(true);
    fs::remove_all(cache);
    if (!passed) std::printf("warning: some checks did not pass; figures may not be representative\n");
    return 0;
}
