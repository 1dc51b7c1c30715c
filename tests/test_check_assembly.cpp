// A check's result assembled from its parts (check/check_assembly.hpp): the
// verdict the compile gives a file, as a table, and the parts spread over
// the result's fields.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "check_assembly.hpp"  // internal to the check (app/core/src/check)

using namespace attnlab;

TEST_CASE("compile_part: the verdict a compile gives the file, or none when a program was made") {
    struct Row {
        const char* what;
        CompileOutput compiled;
        bool cancelled;
        std::optional<Verdict> ends_check;
        Problem problem;
    };
    const auto out = [](auto change) {
        CompileOutput c;
        change(c);
        return c;
    };
    const Row rows[] = {
        {"a program", out([](CompileOutput& c) { c.ok = true; }), false, std::nullopt, Problem::None},
        {"the learner moved on", out([](CompileOutput& c) { c.ok = true; }), true, Verdict::Cancelled, Problem::None},
        {"the compiler was stopped", out([](CompileOutput& c) { c.cancelled = true; }), false, Verdict::Cancelled, Problem::None},
        {"errors in the file", out([](CompileOutput&) {}), false, Verdict::CompileError, Problem::None},
        {"no entry point", out([](CompileOutput& c) { c.missing_entry = true; }), false, Verdict::MissingEntry, Problem::None},
        {"main() defined", out([](CompileOutput& c) { c.defines_main = true; }), false, Verdict::CompileError, Problem::DefinesMain},
        {"compiler out of time", out([](CompileOutput& c) { c.compiler_limit = CompilerLimit::Time, c.compiler_limit_value = 30; }), false,
         Verdict::CompileError, Problem::CompilerOutOfTime},
        {"compiler out of memory", out([](CompileOutput& c) { c.compiler_limit = CompilerLimit::Memory, c.compiler_limit_value = 2048; }), false,
         Verdict::CompileError, Problem::CompilerOutOfMemory},
        {"an object that defines what it may not", out([](CompileOutput& c) { c.object_problems.push_back({}); }), false, Verdict::CompileError,
         Problem::ObjectRefused},
        {"no compiler could start", out([](CompileOutput& c) { c.internal_error = "g++: not found"; }), false, Verdict::InternalError,
         Problem::CompilerFailed},
        {"a full disk", out([](CompileOutput& c) { c.internal_error = "No space left", c.machine_problem = true; }), false,
         Verdict::InternalError, Problem::MachineResources},
        {"no isolation", out([](CompileOutput& c) { c.internal_error = "no user namespace", c.isolation_refused = true; }), false,
         Verdict::InternalError, Problem::IsolationUnavailable},
        {"the sandbox's own set-up", out([](CompileOutput& c) { c.internal_error = "cannot mount", c.setup_problem = true; }), false,
         Verdict::InternalError, Problem::SandboxSetup},
    };
    for (const Row& r : rows) {
        CAPTURE(std::string(r.what));
        const CompilePart part = compile_part(r.compiled, "Tensor f(const Tensor& x)", r.cancelled);
        CHECK(part.ends_check == r.ends_check);
        CHECK(part.problem.problem == r.problem);
        CHECK(part.missing_entry_signature.empty() == (r.ends_check != Verdict::MissingEntry));
        CHECK(part.object_problems.size() == (r.problem == Problem::ObjectRefused ? 1u : 0u));
        CHECK(part.problem.detail == r.compiled.internal_error);
        CHECK(part.problem.limit_value == (r.compiled.compiler_limit != CompilerLimit::None ? r.compiled.compiler_limit_value : 0.0));
        CHECK(part.protections.has_value() == (r.compiled.isolation_refused && !r.cancelled));
    }
}

TEST_CASE("the parts spread over the result: the compile's, the programs', a problem that keeps what it does not say") {
    CompileOutput compiled;
    compiled.ms = 312.5;
    compiled.cached = true;
    compiled.diagnostics.push_back({"solution.cpp", 3, 5, "warning", "unused variable 'x'", ""});
    compiled.raw_output = "solution.cpp:3:5: warning: unused variable 'x'";
    compiled.ok = true;
    CheckResult result;
    add_compile(result, compile_part(compiled, "", false));
    CHECK(result.compile_ms == 312.5);
    CHECK(result.compile_cached);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.compiler_output == compiled.raw_output);
    CHECK(result.problem == Problem::None);

    ProgramsPart programs;
    programs.verdict = Verdict::Crash;
    programs.run_ms = 40;
    ProcessOutcome process;
    process.out = "row 0\x1b[2J";  // learner output: made inert
    process.out_total = 100;       // more than was kept
    process.cpu_ms = 35;
    programs.process = process;
    programs.ending.signal = 11;
    programs.ending.verdict = Verdict::Crash;
    programs.failed_case = 2;
    add_programs(result, programs);
    CHECK(result.run_ms == 40);
    CHECK(result.stdout_text == "row 0\\x1b[2J");
    CHECK(result.output_truncated);
    CHECK(result.cpu_ms == 35);
    CHECK(result.signal == 11);
    CHECK(result.signal_name == "SIGSEGV");
    CHECK(result.failed_case == 2);
    CHECK(result.problem == Problem::None);

    // A later problem names its case and keeps the detail an earlier one gave.
    add_problem(result, {Problem::ChannelCorrupt, -1, "bad_magic"});
    add_problem(result, {Problem::CaseNeverReported, 3, ""});
    CHECK(result.problem == Problem::CaseNeverReported);
    CHECK(result.problem_case == 3);
    CHECK(result.detail == "bad_magic");

    const CheckResult refused = refused_check("causal-mhsa", Verdict::CompileError, {Problem::SourceTooLarge, -1, "", 2e6});
    CHECK(refused.exercise_id == "causal-mhsa");
    CHECK(refused.verdict == Verdict::CompileError);
    CHECK(refused.problem == Problem::SourceTooLarge);
    CHECK(refused.limit_value == 2e6);
    CHECK(refused.cases.empty());
}
