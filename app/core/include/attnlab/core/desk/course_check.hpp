#pragma once
// `attnlab dev check`: the rules a course must keep, as data the CLI prints.
//  - every starter compiles and fails (it leaves work to do);
//  - every solution passes;
//  - every fixture gives what it declares: a verdict, or a named mistake
//    (a wrong fixture must fail AND be diagnosed as that mistake; a "pass"
//    fixture, a correct alternative, must pass with nothing flagged);
//  - returns.dims names every axis of the reference's output;
//  - every Indonesian text keeps the glossary (glossary_problems), and the
//    decimal convention is stated exactly once in the course;
//  - a text's hand-written figures about the cases are the cases'
//    (case_figure_problems);
//  - nothing lies in the course unlisted (listing_problems): every exercise
//    folder is in the manifest, every file of an exercise's wrong/ and right/
//    is one of its "fixtures" (a fixture no check runs silently rots);
//  - no passing CUDA kernel moves less than its operation's least traffic.
#include <string>
#include <vector>

#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/runner.hpp"

namespace attnlab {

struct FixtureCheck {
    std::string file;     // relative to the exercise folder
    std::string expect;   // verdict code, mistake id, or (CUDA) kernel fault / rule cause
    std::string verdict;  // what the check said
    std::string mistake;  // the mistake it named ("" when none)
    KernelCause cause;    // CUDA: the kernel fault or rule the verdict named (none when none)
    bool ok = false;
    std::vector<std::string> traffic_problems;  // a passing kernel below the least traffic (below_least_traffic)
};

struct ExerciseCheck {
    std::string id;
    std::string starter_verdict;
    std::string solution_verdict;
    std::vector<FixtureCheck> fixtures;
    std::vector<std::string> problems;  // English: the course author's language
    bool ok() const { return problems.empty(); }
};

struct CourseCheck {
    std::vector<ExerciseCheck> exercises;
    std::vector<std::string> course_problems;  // the loader's and the course-wide rules' (unlisted folders, …)
    std::vector<std::string> problems;         // course_problems, then every exercise's, prefixed with its id
    bool ok() const { return problems.empty(); }
};

// The course's Indonesian glossary, on one text (code spans and blocks
// excluded): "barisan" for a sequence (never "kalimat"), "blok thread" (then
// "blok") for a thread block, "pustaka" for a library, "galat" for an error,
// "saling meniadakan" for factors that cancel, and decimals with a point (the
// convention qkv-projections states once); no calque of an English word
// ("terkoalesensi", "sejajar" for aligned, "tanpa suara", "terbayar", "indeks
// sah", "biarkan thread"…), and a source line is "baris kode {line}" (the
// catalogue of attnlab's own sentences keeps the same rules, test_course_glossary).
// One English problem per rule broken.
std::vector<std::string> glossary_problems(const std::string& indonesian_text);
// The marker of the one place that states the decimal convention.
inline constexpr const char* kDecimalConventionMarker = "titik desimal";

// Exercise folders (those with an exercise.json) that manifest.json does not
// list, and files in a loaded exercise's wrong/ and right/ that its
// exercise.json "fixtures" do not list. Other folders (mistakes/) and other
// files (probes/) are not fixtures. English problems, as for check_course.
std::vector<std::string> listing_problems(const Course& course);

// Facts about the cases its texts write by hand that disagree with
// cases.json, or that only a placeholder may give (case_figures.hpp): in
// statement, hints and explanation as written (before their {{…}} are
// filled), and in every case's name ("T = 13" must be that case's T). A text
// that says how large the scores get ("scores in the thousands") is compared
// with the reference's scores over the cases (score_size_problems).
std::vector<std::string> case_figure_problems(const Exercise& exercise);

ExerciseCheck check_exercise(Runner& runner, const Exercise& exercise);
// A passing CUDA check's cases whose kernels requested, or touched as distinct
// sectors, less than the least traffic the operation needs: that least would
// not be a lower bound (the performance report's ratios must be >= 1x).
std::vector<std::string> below_least_traffic(const CheckResult& result, const Exercise& exercise);
CourseCheck check_course(Runner& runner, const Course& course);

}  // namespace attnlab
