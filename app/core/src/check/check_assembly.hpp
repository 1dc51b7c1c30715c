#pragma once
// A CheckResult is assembled here from the parts the runner's steps return:
// a problem before anything ran, the compile, the programs' run. Each step
// says what it found as a part of its own, and only this file spreads a part
// over the result's fields, so what a field means is decided once. Parts that
// are whole fields the pipeline (runner.cpp) places as they are: the cases
// (CaseOutcome, judged in case_runs.cpp), the GPU run, NVRTC's report, the
// mistake and the difference. Internal to the check.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/check/verdict.hpp"

namespace attnlab {

// Something attnlab or the course says about the check as a whole, not about
// one case's values: a problem, the case it is about, its technical data.
struct CheckProblem {
    Problem problem = Problem::None;
    int problem_case = -1;
    std::string detail;
    double limit_value = 0;  // SourceTooLarge: bytes; CompilerOutOfTime: seconds; CompilerOutOfMemory: MB
};

// What the compile says about the learner's file.
struct CompilePart {
    double ms = 0;
    bool cached = false;
    std::vector<Diagnostic> diagnostics;
    std::string output;                      // the compiler's, paths mapped
    std::optional<Verdict> ends_check;       // set: the check ends here, with this verdict (no program)
    CheckProblem problem;
    std::string missing_entry_signature;     // MissingEntry: what to define
    std::vector<ObjectProblem> object_problems;
    std::optional<sandbox_status::Protections> protections;  // the sandbox refused to isolate the compiler
};
// The verdict the compile gives the file, as a pure function of what it
// output (table tests: test_check_assembly). `cancelled`: the learner moved on.
CompilePart compile_part(const CompileOutput& compiled, const std::string& entry_signature, bool cancelled);

// What the learner's programs did on the cases, together (case_runs.cpp).
struct ProgramsPart {
    Verdict verdict = Verdict::InternalError;
    double run_ms = 0;                     // side by side: the longer program
    std::optional<ProcessOutcome> process; // their output and resources joined (none: nothing ran)
    ProcessVerdict ending;                 // how the program that speaks for the check ended
    CheckProblem problem;
    int failed_case = -1;
    KernelCause cause;                     // CUDA: the failed case's
};

// The result of a check refused before anything ran.
CheckResult refused_check(const std::string& exercise_id, Verdict verdict, CheckProblem problem);
void add_problem(CheckResult& result, CheckProblem problem);
void add_compile(CheckResult& result, CompilePart compiled);
void add_programs(CheckResult& result, ProgramsPart programs);
// What the runtime's rewrite cannot read: the file is not compiled.
void add_unread_parts(CheckResult& result, std::vector<UnreadPart> unread);

}  // namespace attnlab
