#include "attnlab/core/course_check.hpp"

#include <algorithm>

#include "attnlab/core/report.hpp"

namespace attnlab {

namespace {

FixtureCheck check_fixture(Runner& runner, const Exercise& e, const Fixture& fixture) {
    FixtureCheck fc;
    fc.file = fixture.file.string();
    fc.expect = fixture.expect;
    const CheckResult r = runner.check(e, e.dir / fixture.file);
    fc.verdict = verdict_code(r.verdict);
    fc.mistake = r.mistake ? r.mistake->id : "";
    fc.cause = r.cause;
    const bool expects_mistake = fixture.expect != verdict_code(r.verdict) &&
                                 std::any_of(e.mistakes.begin(), e.mistakes.end(), [&](const MistakeSpec& m) { return m.id == fixture.expect; });
    if (expects_mistake) fc.ok = !r.passed() && fc.mistake == fixture.expect;
    else if (fixture.expect == "pass") fc.ok = r.passed() && fc.mistake.empty();
    else if (fc.verdict == fixture.expect) fc.ok = true;
    else fc.ok = !fc.cause.empty() && fc.cause == fixture.expect;  // a kernel fault or rule, named
    return fc;
}

std::string fixture_problem(const FixtureCheck& fc) {
    std::string got = fc.verdict + (fc.mistake.empty() ? "" : " (mistake " + fc.mistake + ")") +
                      (fc.cause.empty() ? "" : " (cause " + fc.cause + ")");
    return "fixture " + fc.file + " should give " + fc.expect + ", got " + got;
}

}  // namespace

ExerciseCheck check_exercise(Runner& runner, const Exercise& e) {
    ExerciseCheck ec;
    ec.id = e.id;
    const CheckResult starter = runner.check(e, e.starter_path());
    const CheckResult solution = runner.check(e, e.solution_path());
    ec.starter_verdict = verdict_code(starter.verdict);
    ec.solution_verdict = verdict_code(solution.verdict);
    if (starter.verdict == Verdict::CompileError || starter.verdict == Verdict::MissingEntry || starter.verdict == Verdict::InternalError)
        ec.problems.push_back("starter does not build: " + explain(starter, e, Lang::En));
    else if (starter.passed())
        ec.problems.push_back("starter passes: it must leave work to do");
    if (!solution.passed()) ec.problems.push_back("solution does not pass: " + explain(solution, e, Lang::En));
    for (const auto& c : solution.cases) {
        if (c.expected.kind == ValueKind::Tensor && !e.returns.dims.empty() && e.returns.dims.size() != c.expected.tensor.shape.size())
            ec.problems.push_back("returns.dims has " + std::to_string(e.returns.dims.size()) + " names but case " + std::to_string(c.index + 1) +
                                  " returns rank " + std::to_string(c.expected.tensor.shape.size()));
    }
    for (const Fixture& f : e.fixtures) {
        ec.fixtures.push_back(check_fixture(runner, e, f));
        if (!ec.fixtures.back().ok) ec.problems.push_back(fixture_problem(ec.fixtures.back()));
    }
    return ec;
}

CourseCheck check_course(Runner& runner, const Course& course) {
    CourseCheck cc;
    cc.problems = course.problems;
    for (const Exercise& e : course.exercises) {
        cc.exercises.push_back(check_exercise(runner, e));
        for (const std::string& p : cc.exercises.back().problems) cc.problems.push_back(e.id + ": " + p);
    }
    return cc;
}

}  // namespace attnlab
