#include "check_assembly.hpp"

#include <utility>

#include "attnlab/core/base/util.hpp"

namespace attnlab {

CompilePart compile_part(const CompileOutput& compiled, const std::string& entry_signature, bool cancelled) {
    CompilePart part;
    part.ms = compiled.ms;
    part.cached = compiled.cached;
    part.diagnostics = compiled.diagnostics;
    part.output = compiled.raw_output;
    if (compiled.cancelled || cancelled) {
        part.ends_check = Verdict::Cancelled;
        return part;
    }
    if (compiled.isolation_refused) part.protections = compiled.protections;
    if (!compiled.internal_error.empty()) {  // no verdict on the file: the toolchain or the machine failed
        part.problem.problem = compiled.isolation_refused ? Problem::IsolationUnavailable
                               : compiled.machine_problem ? Problem::MachineResources
                               : compiled.setup_problem   ? Problem::SandboxSetup
                                                          : Problem::CompilerFailed;
        part.problem.detail = compiled.internal_error;
        part.ends_check = Verdict::InternalError;
        return part;
    }
    if (compiled.ok) return part;
    // Why the file made no program, as a verdict on the file.
    if (compiled.missing_entry) {
        part.missing_entry_signature = entry_signature;
        part.ends_check = Verdict::MissingEntry;
        return part;
    }
    part.ends_check = Verdict::CompileError;
    if (compiled.compiler_limit != CompilerLimit::None) {
        part.problem.problem = compiled.compiler_limit == CompilerLimit::Time ? Problem::CompilerOutOfTime : Problem::CompilerOutOfMemory;
        part.problem.limit_value = compiled.compiler_limit_value;
    } else if (compiled.defines_main) {
        part.problem.problem = Problem::DefinesMain;
    } else if (!compiled.object_problems.empty()) {
        part.problem.problem = Problem::ObjectRefused;
        part.object_problems = compiled.object_problems;
    }
    return part;
}

CheckResult refused_check(const std::string& exercise_id, Verdict verdict, CheckProblem problem) {
    CheckResult result;
    result.exercise_id = exercise_id;
    result.verdict = verdict;
    add_problem(result, std::move(problem));
    return result;
}

void add_problem(CheckResult& result, CheckProblem problem) {
    if (problem.problem == Problem::None) return;
    result.problem = problem.problem;
    if (problem.problem_case >= 0) result.problem_case = problem.problem_case;
    if (!problem.detail.empty()) result.detail = std::move(problem.detail);
    if (problem.limit_value != 0) result.limit_value = problem.limit_value;
}

void add_compile(CheckResult& result, CompilePart compiled) {
    result.compile_ms = compiled.ms;
    result.compile_cached = compiled.cached;
    result.diagnostics = std::move(compiled.diagnostics);
    result.compiler_output = std::move(compiled.output);
    result.missing_entry_signature = std::move(compiled.missing_entry_signature);
    result.object_problems = std::move(compiled.object_problems);
    if (compiled.protections) result.protections = *compiled.protections;
    add_problem(result, std::move(compiled.problem));
}

void add_programs(CheckResult& result, ProgramsPart programs) {
    result.run_ms = programs.run_ms;
    if (programs.process) {
        const ProcessOutcome& p = *programs.process;
        result.protections = p.protections;
        result.cpu_ms = p.cpu_ms;
        result.maxrss_kb = p.maxrss_kb;
        result.stdout_text = inert_text(sanitize_utf8(p.out));  // learner output: no escape sequence reaches a terminal
        result.stderr_text = inert_text(sanitize_utf8(p.err));
        result.output_truncated = p.out_total > p.out.size() || p.err_total > p.err.size();
    }
    const ProcessVerdict& ending = programs.ending;
    result.limit = ending.limit;
    result.limit_value = ending.limit_value;
    result.signal = ending.signal;
    if (ending.signal) result.signal_name = signal_name(ending.signal);
    result.exit_code = ending.exit_code;
    result.crashed_before_entry = ending.crashed_before_entry;
    add_problem(result, std::move(programs.problem));
    result.failed_case = programs.failed_case;
    result.cause = programs.cause;
}

void add_unread_parts(CheckResult& result, std::vector<UnreadPart> unread) {
    result.problem = Problem::SourceUnread;
    result.unread_parts = std::move(unread);
}

}  // namespace attnlab
