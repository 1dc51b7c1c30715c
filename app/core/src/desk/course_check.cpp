#include "attnlab/core/desk/course_check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <regex>
#include <set>

#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/course/case_figures.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/desk/workspace.hpp"

namespace attnlab {

std::vector<std::string> below_least_traffic(const CheckResult& r, const Exercise& e) {
    std::vector<std::string> problems;
    const reference::Op* op = reference::find_op(e.reference);
    for (size_t k = 0; k < r.cases.size() && k < e.cases.size(); ++k) {
        const std::vector<emu::LaunchReport>& launches = r.cases[k].kernels.launches;
        if (launches.empty() || r.cases[k].expected.kind != ValueKind::Tensor || emu::sampled(launches)) continue;
        int64_t requested = 0, unique = 0;
        for (const emu::LaunchReport& L : launches) {
            requested += L.counters.global_load_sectors + L.counters.global_store_sectors;
            unique += L.counters.global_load_unique_sectors + L.counters.global_store_unique_sectors;
        }
        const int64_t least = minimum_sectors(op, case_inputs(e, e.cases[k]), int64_t(r.cases[k].expected.tensor.data.size()));
        if (std::min(requested, unique) < least)
            problems.push_back("case " + std::to_string(k + 1) + ": the kernel moved " + std::to_string(std::min(requested, unique)) +
                               " distinct or requested sectors, fewer than the least traffic of " + e.reference + " (" +
                               std::to_string(least) + "): that least is not a lower bound (reference::PartialRead)");
    }
    return problems;
}

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
    else  // a kernel fault or rule, named; a rule judged on right values (all but an unwritten output) names no mistake
        fc.ok = !fc.cause.empty() && fc.cause.code() == fixture.expect &&
                (fc.mistake.empty() || r.verdict != Verdict::KernelRule || fc.cause.rule == KernelRuleCause::OutputNotWritten);
    if (r.passed()) fc.traffic_problems = below_least_traffic(r, e);
    return fc;
}

// The prose of a Markdown text: fenced blocks and `code spans` blanked out,
// lower-cased, so that code (`runtime_error`, `{0,1}`) never trips a rule.
std::string prose_of(const std::string& text) {
    std::string out;
    bool fenced = false, span = false;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text.compare(i, 3, "```") == 0) {
            fenced = !fenced;
            i += 2;
            continue;
        }
        if (!fenced && text[i] == '`') {
            span = !span;
            continue;
        }
        const char ch = text[i];
        out += fenced || span ? ' ' : static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    return out;
}

// The Indonesian texts of one exercise that a learner reads, with where each is.
std::vector<std::pair<std::string, std::string>> indonesian_texts(const Exercise& e) {
    std::vector<std::pair<std::string, std::string>> texts = {
        {"title", e.title.get(Lang::Id)}, {"statement.id.md", e.statement.get(Lang::Id)}, {"explanation.id.md", e.explanation.get(Lang::Id)}};
    for (size_t i = 0; i < e.hints.size(); ++i) texts.push_back({"hint-" + std::to_string(i + 1) + ".id.md", e.hints[i].get(Lang::Id)});
    for (size_t i = 0; i < e.cases.size(); ++i) texts.push_back({"case " + std::to_string(i + 1) + " name", e.cases[i].name.get(Lang::Id)});
    for (const MistakeSpec& m : e.mistakes) {
        texts.push_back({"mistakes/" + m.id + ".json title", m.title.get(Lang::Id)});
        texts.push_back({"mistakes/" + m.id + ".json message", m.message.get(Lang::Id)});
    }
    return texts;
}

// The manifest lists every exercise that loaded and every one that broke.
bool manifest_lists(const Course& course, const std::string& id) {
    return course.find(id) != nullptr || course.broken.count(id) != 0;
}

std::vector<std::string> unlisted_exercise_folders(const Course& course) {
    std::vector<std::string> problems;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(course.dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / "exercise.json", ec) && !manifest_lists(course, name))
            problems.push_back(name + "/: an exercise folder that manifest.json does not list (add it to \"exercises\", or remove the folder)");
    }
    std::sort(problems.begin(), problems.end());  // directory order is the file system's
    return problems;
}

// Only wrong/ and right/ hold fixtures; probes/ and the like are read by tests, not by dev check.
std::vector<std::string> unlisted_fixture_files(const Exercise& e) {
    std::set<fs::path> listed;
    for (const Fixture& f : e.fixtures) listed.insert(f.file.lexically_normal());
    std::vector<std::string> problems;
    for (const char* folder : {"wrong", "right"}) {
        std::error_code ec;
        for (fs::recursive_directory_iterator it(e.dir / folder, ec), end; !ec && it != end; it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            const fs::path file = it->path().lexically_relative(e.dir).lexically_normal();
            if (!listed.count(file))
                problems.push_back(file.generic_string() +
                                   " is not one of exercise.json's \"fixtures\" (list it with what a check must say, or remove it)");
        }
    }
    std::sort(problems.begin(), problems.end());
    return problems;
}

std::string fixture_problem(const FixtureCheck& fc) {
    std::string got = fc.verdict + (fc.mistake.empty() ? "" : " (mistake " + fc.mistake + ")") +
                      (fc.cause.empty() ? "" : " (cause " + fc.cause.code() + ")");
    return "fixture " + fc.file + " should give " + fc.expect + ", got " + got;
}

}  // namespace

std::vector<std::string> glossary_problems(const std::string& indonesian_text) {
    struct Rule {
        std::regex pattern;
        const char* problem;
    };
    static const Rule rules[] = {
        {std::regex(R"(\bkalimat)"), "'kalimat': a sequence is 'barisan'"},
        {std::regex(R"(\bthread block)"), "'thread block': write 'blok thread' (then 'blok')"},
        {std::regex(R"(\blibrar(y|i)\b)"), "'library': write 'pustaka'"},
        {std::regex(R"(\berror\b)"), "'error': write 'galat'"},
        {std::regex(R"(saling (menghapus|menghilangkan|membatalkan))"), "factors that cancel: write 'saling meniadakan'"},
        {std::regex(R"((^|[^0-9.,])[0-9]+,[0-9]+\b)"), "a decimal comma: the course writes decimals with a point (stated once in qkv-projections)"},
        // Calques of English words: Indonesian readers stumble on them.
        {std::regex(R"(\bterkoalesensi)"), "'terkoalesensi': write 'coalesced' (the CUDA term)"},
        {std::regex(R"(\bsejajar [0-9]+ (byte|bit)|(alamat|pointer|buffer)( yang)?( tidak)? sejajar)"), "'sejajar' means parallel: an aligned address is 'selaras'"},
        {std::regex(R"(tanpa suara)"), "'tanpa suara' (silently): write 'diam-diam' or 'tanpa pesan apa pun'"},
        {std::regex(R"(\bterbayar)"), "'terbayar' (pays off): write 'membuahkan hasil'"},
        {std::regex(R"(\bstate berjalan)"), "'state berjalan' (running state): say what the values are"},
        {std::regex(R"(\bindeks (yang )?sah\b)"), "'indeks sah': write 'indeks yang valid'"},
        {std::regex(R"(\bbiarkan (setiap |tiap )?thread)"), "'biarkan thread' (let a thread): write 'suruh' or 'buat setiap thread'"},
        {std::regex(R"(tak berhingga \(nan atau tak hingga\))"), "NaN is not infinite: write 'nilai tak berhingga (NaN atau ∞)'"},
        {std::regex(R"(\bbaris \{[a-z_]*line\})"), "a source line is 'baris kode {line}': 'baris' alone is also a tensor row"},
    };
    const std::string prose = prose_of(indonesian_text);
    std::vector<std::string> problems;
    for (const Rule& r : rules)
        if (std::regex_search(prose, r.pattern)) problems.push_back(r.problem);
    return problems;
}

namespace {

// The largest finite |score| of one case: the reference's "scores" stage,
// or the input named "scores" for an op that takes them. nullopt when it has
// neither, or when the reference rejects the case (the loader reports that).
std::optional<double> largest_score(const Exercise& e, const reference::Op& op, const Case& c) {
    std::optional<double> largest;
    const auto take = [&largest](const TensorData& scores) {
        for (float s : scores.data)
            if (std::isfinite(s)) largest = std::max(largest.value_or(0.0), std::abs(double(s)));
    };
    const reference::Inputs inputs = case_inputs(e, c);
    if (const auto given = inputs.find("scores"); given != inputs.end() && given->second.kind == ValueKind::Tensor) {
        take(given->second.tensor);
        return largest;
    }
    try {
        for (const NamedTensor& stage : op.run(inputs).stages)
            if (stage.name == "scores") take(stage.tensor);
    } catch (const reference::ReferenceError&) {
        return std::nullopt;
    }
    return largest;
}

// "Scores in the thousands" in the texts, the tolerance's reason and the case
// names, against the scores the reference computes: a text against the
// largest over all cases, a case's name against that case's own.
std::vector<std::string> exercise_score_size_problems(const Exercise& e, const std::vector<std::pair<std::string, std::string>>& texts) {
    // With no score at all every claim fails: nothing failing means no claim.
    const auto claims = [](const std::string& text) { return !score_size_problems(text, 0.0).empty(); };
    bool any = std::any_of(texts.begin(), texts.end(), [&](const auto& t) { return claims(t.second); });
    for (const Case& c : e.cases) any = any || claims(c.name.get(Lang::En)) || claims(c.name.get(Lang::Id));
    const reference::Op* op = reference::find_op(e.reference);
    if (!any || !op) return {};  // an unknown op is the loader's problem
    std::vector<std::optional<double>> per_case;
    std::optional<double> overall;
    for (const Case& c : e.cases) {
        per_case.push_back(largest_score(e, *op, c));
        if (per_case.back()) overall = std::max(overall.value_or(0.0), *per_case.back());
    }
    std::vector<std::string> problems;
    for (const auto& [where, text] : texts)
        for (const std::string& p : score_size_problems(text, overall)) problems.push_back(where + ": " + p);
    for (size_t i = 0; i < e.cases.size(); ++i)
        for (Lang lang : {Lang::En, Lang::Id})
            for (const std::string& p : score_size_problems(e.cases[i].name.get(lang), per_case[i]))
                problems.push_back("cases.json, case " + std::to_string(i + 1) + " (" + lang_code(lang) + "): " + p);
    return problems;
}

}  // namespace

std::vector<std::string> case_figure_problems(const Exercise& e) {
    const std::vector<CaseNames> names = case_names(e);
    std::vector<std::string> problems;
    std::vector<std::pair<std::string, std::string>> texts;  // (file, as written: before its {{…}} are filled)
    std::vector<std::string> stems = {"statement", "explanation"};
    for (size_t i = 0; i < e.hints.size(); ++i) stems.push_back("hint-" + std::to_string(i + 1));
    for (const std::string& stem : stems)
        for (const char* lang : {"en", "id"}) {
            const std::string file = stem + "." + lang + ".md";
            texts.emplace_back(file, read_file(e.dir / file).value_or(""));
            for (const std::string& p : case_figure_problems(texts.back().second, names)) problems.push_back(file + ": " + p);
        }
    for (size_t i = 0; i < e.cases.size() && i < names.size(); ++i)
        for (Lang lang : {Lang::En, Lang::Id})
            for (const std::string& p : case_name_problems(e.cases[i].name.get(lang), names[i]))
                problems.push_back("cases.json, case " + std::to_string(i + 1) + " (" + lang_code(lang) + "): " + p);
    texts.emplace_back("exercise.json, tolerance.why", e.tolerance.why);
    for (std::string& p : exercise_score_size_problems(e, texts)) problems.push_back(std::move(p));
    return problems;
}

std::vector<std::string> listing_problems(const Course& course) {
    std::vector<std::string> problems = unlisted_exercise_folders(course);
    for (const Exercise& e : course.exercises)
        for (const std::string& p : unlisted_fixture_files(e)) problems.push_back(e.id + ": " + p);
    return problems;
}

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
    for (const std::string& p : below_least_traffic(solution, e)) ec.problems.push_back("solution: " + p);
    // The starter in the learner's language, where there is one, keeps the same rules.
    if (const fs::path localized = Workspace::starter_for(e, Lang::Id); localized != e.starter_path()) {
        const CheckResult r = runner.check(e, localized);
        if (r.verdict == Verdict::CompileError || r.verdict == Verdict::MissingEntry || r.verdict == Verdict::InternalError)
            ec.problems.push_back(localized.filename().string() + " does not build: " + explain(r, e, Lang::En));
        else if (r.passed())
            ec.problems.push_back(localized.filename().string() + " passes: it must leave work to do");
    }
    for (const auto& c : solution.cases) {
        if (c.expected.kind == ValueKind::Tensor && !e.returns.dims.empty() && e.returns.dims.size() != c.expected.tensor.shape.size())
            ec.problems.push_back("returns.dims has " + std::to_string(e.returns.dims.size()) + " names but case " + std::to_string(c.index + 1) +
                                  " returns rank " + std::to_string(c.expected.tensor.shape.size()));
    }
    for (const auto& [where, text] : indonesian_texts(e))
        for (const std::string& p : glossary_problems(text)) ec.problems.push_back("Indonesian " + where + ": " + p);
    for (std::string& p : case_figure_problems(e)) ec.problems.push_back(std::move(p));
    for (const Fixture& f : e.fixtures) {
        ec.fixtures.push_back(check_fixture(runner, e, f));
        if (!ec.fixtures.back().ok) ec.problems.push_back(fixture_problem(ec.fixtures.back()));
        for (const std::string& p : ec.fixtures.back().traffic_problems) ec.problems.push_back(f.file.string() + ": " + p);
    }
    for (std::string& p : unlisted_fixture_files(e)) ec.problems.push_back(std::move(p));
    return ec;
}

CourseCheck check_course(Runner& runner, const Course& course) {
    CourseCheck cc;
    cc.course_problems = course.problems;
    for (std::string& p : unlisted_exercise_folders(course)) cc.course_problems.push_back(std::move(p));
    const auto states_convention = [](const Exercise& e) {
        return e.statement.get(Lang::Id).find(kDecimalConventionMarker) != std::string::npos;
    };
    const auto statements = std::count_if(course.exercises.begin(), course.exercises.end(), states_convention);
    // A course with decimal numbers in its Indonesian texts states the
    // convention once; one without any (a small fixture course) need not.
    const auto has_decimals = [](const Exercise& e) {
        for (const auto& entry : indonesian_texts(e)) {
            const std::string& text = entry.second;
            for (size_t i = 1; i + 1 < text.size(); ++i)
                if (text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                    std::isdigit(static_cast<unsigned char>(text[i + 1])))
                    return true;
        }
        return false;
    };
    const bool needed = std::any_of(course.exercises.begin(), course.exercises.end(), has_decimals);
    if (statements > 1 || (needed && statements != 1))
        cc.course_problems.push_back("the Indonesian decimal convention ('" + std::string(kDecimalConventionMarker) +
                              "') must be stated in exactly one statement, found " + std::to_string(statements));
    cc.problems = cc.course_problems;
    for (const Exercise& e : course.exercises) {
        cc.exercises.push_back(check_exercise(runner, e));
        for (const std::string& p : cc.exercises.back().problems) cc.problems.push_back(e.id + ": " + p);
    }
    return cc;
}

}  // namespace attnlab
