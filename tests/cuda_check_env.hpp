#pragma once
// One exercise of a course, checked through a real Compiler and Runner with a
// private cache: shared by the tests that compile learner CUDA files
// (test_plain_cuda, test_wmma).
#include <filesystem>
#include <string>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/runner.hpp"
#include "test_support.hpp"

namespace attnlab::testing {

struct ExerciseEnv {
    ExerciseEnv(const std::string& cache_name, const std::filesystem::path& course_dir, std::string exercise_id)
        : cache(cache_name), course(load_course(course_dir)), id(std::move(exercise_id)) {}
    TempDir cache;
    Course course;
    std::string id;
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
    const Exercise& ex() const { return *course.find(id); }
    CheckResult check(const std::string& file) { return runner.check(ex(), ex().dir / file); }
    CheckResult check_source(const std::string& source) { return runner.check_source(ex(), source, "probe.cu"); }
    bool emulator_built() const { return compiler.toolchain().problem(Runtime::Cuda).empty(); }
};

// The fault of the failed case's first faulting launch (kind None when none).
inline const emu::Fault& first_fault(const CheckResult& r) {
    static const emu::Fault none;
    if (r.failed_case < 0) return none;
    for (const emu::LaunchReport& L : r.cases[static_cast<size_t>(r.failed_case)].kernels.launches)
        if (!L.ok()) return L.fault;
    return none;
}

}  // namespace attnlab::testing
