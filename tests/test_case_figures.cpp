// Figures about the cases in an exercise's texts (case_figures.hpp): the
// placeholders filled from cases.json, the dev-check rule on hand-written
// figures, and the whole course keeping both.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/course/case_figures.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "course_support.hpp"

using namespace attnlab;
using namespace attnlab::testing;

namespace {

Value tensor_of_shape(Shape shape) { return Value::of_tensor(TensorData::zeros(std::move(shape))); }

// Four cases of a (B, H, T, hd) input and an int "chunk".
std::vector<CaseNames> four_cases() {
    const std::vector<ParamSpec> params = {{"q", ValueKind::Tensor, "(B, H, T, hd)"}, {"k", ValueKind::Tensor, "(B, H, T, hd)"},
                                           {"chunk", ValueKind::Int, ""}};
    const std::vector<std::vector<int64_t>> shapes = {{1, 1, 3, 2}, {2, 3, 33, 16}, {1, 2, 65, 64}, {3, 1, 33, 4}};
    std::vector<Case> cases;
    for (size_t i = 0; i < shapes.size(); ++i) {
        Case c;
        c.args = {tensor_of_shape(shapes[i]), tensor_of_shape(shapes[i]), Value::of_int(static_cast<int64_t>(i + 1))};
        cases.push_back(std::move(c));
    }
    return case_names(params, cases);
}

// A course of one exercise of the course alone, in a fresh temporary folder
// the caller removes.
fs::path one_exercise_course(const std::string& prefix, const std::string& id) {
    const fs::path dir = fs::temp_directory_path() / (prefix + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    fs::copy(kCourse / id, dir / id, fs::copy_options::recursive);
    fs::copy(kCourse / "mistakes", dir / "mistakes", fs::copy_options::recursive);
    nlohmann::json manifest = read_json(kCourse / "manifest.json");  // its topics
    manifest["exercises"] = {id};
    std::ofstream(dir / "manifest.json") << manifest.dump();
    return dir;
}

fs::path split_heads_course(const std::string& prefix) { return one_exercise_course(prefix, "split-heads"); }

}  // namespace

TEST_CASE("case_names: a shape's axes and the int parameters; a name two tensors disagree on is left out") {
    const std::vector<CaseNames> names = four_cases();
    REQUIRE(names.size() == 4);
    CHECK(names[1] == CaseNames{{"B", 2}, {"H", 3}, {"T", 33}, {"hd", 16}, {"chunk", 2}});

    const std::vector<ParamSpec> params = {{"x", ValueKind::Tensor, "(T, D)"}, {"w", ValueKind::Tensor, "(D, 3D)"}, {"y", ValueKind::Tensor, "(T, D)"}};
    Case c;
    c.args = {tensor_of_shape({5, 4}), tensor_of_shape({4, 12}), tensor_of_shape({6, 4})};
    const CaseNames bound = case_names(params, {c})[0];
    CHECK(bound == CaseNames{{"D", 4}});  // "3D" binds nothing; T is 5 in x and 6 in y
}

TEST_CASE("case_names: an exercise's derived names are expressions over what its parameters bind") {
    const std::vector<ParamSpec> params = {{"x", ValueKind::Tensor, "(B, T, D)"}, {"n_heads", ValueKind::Int, ""}};
    const std::map<std::string, std::string> derived = {{"H", "n_heads"}, {"hd", "D / n_heads"}};
    std::vector<Case> cases(2);
    cases[0].args = {tensor_of_shape({2, 5, 12}), Value::of_int(3)};
    cases[1].args = {tensor_of_shape({1, 4, 8}), Value::of_int(0)};  // hd cannot be evaluated: left out
    const std::vector<CaseNames> names = case_names(params, cases, derived);
    REQUIRE(names.size() == 2);
    CHECK(names[0] == CaseNames{{"B", 2}, {"T", 5}, {"D", 12}, {"n_heads", 3}, {"H", 3}, {"hd", 4}});
    CHECK(names[1] == CaseNames{{"B", 1}, {"T", 4}, {"D", 8}, {"n_heads", 0}, {"H", 0}});
    CHECK(case_name_problems("B = 2, H = 3, hd = 4", names[0]).empty());
    CHECK(case_name_problems("a single head (H = 1), B = 2", names[0]).size() == 1);
}

TEST_CASE("expand_case_figures: every placeholder, filled from the cases") {
    const std::vector<CaseNames> cases = four_cases();
    struct Row {
        const char* text;
        const char* expanded;
    };
    const Row rows[] = {
        {"no placeholder at all", "no placeholder at all"},
        {"{{cases}} cases", "4 cases"},
        {"in {{count T > 32}} cases T > 32", "in 3 cases T > 32"},
        {"{{count T == 33 && hd == 4}}", "1"},
        {"{{count T == 3 || hd >= 64}}", "2"},
        {"{{count T % 32 != 0}}", "4"},
        {"case {{first hd == 4}} has hd = 4", "case 4 has hd = 4"},
        {"T = {{values T}}", "T = 3, 33, 65"},
        {"{{min hd}} to {{max hd}}", "2 to 64"},
        {"{{max 2 * T * hd * 4}} bytes", "33 280 bytes"},
        {"{{ max (T + 1) / 2 }}", "33"},
        {"{{case 2 B*H}} and {{case last chunk}}", "6 and 4"},
        {"{{max -T}}", "-3"},
        {"{{max T*T*T*hd}}", "17 576 000"},
        {"`{x}` and {single} braces stay", "`{x}` and {single} braces stay"},
    };
    for (const Row& r : rows) {
        CAPTURE(std::string(r.text));
        CHECK(expand_case_figures(r.text, cases) == r.expanded);
    }
}

TEST_CASE("expand_case_figures: a placeholder it cannot fill is an error naming it") {
    const std::vector<CaseNames> cases = four_cases();
    struct Row {
        const char* text;
        const char* mentions;
    };
    const Row rows[] = {
        {"{{count D > 2}}", "'D' is not a name of the cases"},
        {"{{first T > 100}}", "no case satisfies T > 100"},
        {"{{mean T}}", "'mean' is not a placeholder"},
        {"{{cases T}}", "'cases' takes no expression"},
        {"{{count}}", "'count' needs an expression"},
        {"{{case 9 T}}", "case 9 does not exist"},
        {"{{case x T}}", "not a case number"},
        {"{{max T / (hd - hd)}}", "division by zero"},
        {"{{max (T + 1}}", "without its ')'"},
        {"{{max T +}}", "ends too early"},
        {"{{max T T}}", "unexpected 'T'"},
        {"an open {{count T > 1", "without its '}}'"},
    };
    for (const Row& r : rows) {
        CAPTURE(std::string(r.text));
        std::string what;
        try {
            expand_case_figures(r.text, cases);
        } catch (const CaseFigureError& e) {
            what = e.what();
        }
        CHECK(what.find(r.mentions) != std::string::npos);
    }
    CHECK_THROWS_AS(expand_case_figures("{{count T > 1}}", {}), CaseFigureError);
}

TEST_CASE("case_figure_problems: hand-written counts, and figures that are not the named case's") {
    const std::vector<CaseNames> cases = four_cases();
    struct Row {
        const char* text;
        size_t problems;
    };
    const Row rows[] = {
        {"In two cases T is larger than 32.", 1},
        {"In {{count T > 32}} cases T is larger than 32.", 0},
        {"Dalam dua kasus, T lebih besar dari 32.", 1},
        {"dijumlahkan atas semua peluncuran dalam satu kasus", 0},
        {"4 cases", 1},
        {"In both cases the output is its value.", 0},
        {"Case 2 (`T = 33`, `hd = 16`) is the first over the limit.", 0},
        {"Case 2 (`T = 13`, `hd = 16`) is the first over the limit.", 1},
        {"Kasus ke-2 (`T = 13`) melewati batas.", 1},
        {"The last case has narrow heads, `hd = 4`.", 0},
        {"The last case has narrow heads, `hd = 8`.", 1},
        {"Kasus terakhir: `hd = 8`.", 1},
        {"In the first case (`B = 1`, `T = 3`) one block. With `T = 1 024` and `hd = 64` a GPU differs.", 0},
        {"In the first case (`B = 1`) and `T = 1 024` it differs.", 1},
        {"In case 3, `B·H = 2` heads and `B · H = 2`.", 0},
        {"In case 3, `B·H = 3` heads.", 1},
        {"In case 3, `H = D = 2` and `W_O = 5`.", 0},
        {"Cases 2 and 4 have `T = 33`.", 0},     // two cases named: nothing to compare
        {"Case 7 is the largest.", 1},            // there is no case 7
        {"case 3: `T <= 70` and `x == 9`.", 0},  // comparisons are not figures
        {"```\ncase 3\n```", 0},
    };
    for (const Row& r : rows) {
        CAPTURE(std::string(r.text));
        const std::vector<std::string> problems = case_figure_problems(r.text, cases);
        for (const std::string& p : problems) MESSAGE(p);
        CHECK(problems.size() == r.problems);
    }
}

TEST_CASE("score_size_problems: a text's word for how large the scores get, against the largest |score|") {
    struct Row {
        const char* text;
        std::optional<double> largest;
        size_t problems;
    };
    const Row rows[] = {
        {"One case has scores in the thousands.", 2310.0, 0},
        {"One case has scores in the thousands.", 999.0, 1},
        {"One case has scores in the thousands.", 2.5e6, 1},   // millions, not thousands
        {"One case has scores in the thousands.", std::nullopt, 1},
        {"In some cases the scores reach the thousands.", 1000.0, 0},
        {"Pada beberapa kasus uji, skornya mencapai ribuan.", 40.0, 1},
        {"Satu kasus uji punya skor ribuan; bobotnya berhingga.", 1500.0, 0},
        {"harus tahan terhadap skor dalam ribuan", 12.0, 1},
        {"Its scores stay in the hundreds.", 250.0, 0},
        {"Its scores stay in the hundreds.", 1250.0, 1},
        {"for rows of thousands of keys a block per row is better", 1.0, 0},  // rows, not scores
        {"the GPU runs it on thousands of threads", std::nullopt, 0},
        {"The scores are small. A warp has thousands of friends.", 1.0, 0},   // another sentence
    };
    for (const Row& r : rows) {
        CAPTURE(std::string(r.text));
        const std::vector<std::string> problems = score_size_problems(r.text, r.largest);
        for (const std::string& p : problems) MESSAGE(p);
        CHECK(problems.size() == r.problems);
    }
}

TEST_CASE("dev check compares a text's 'scores in the thousands' with the scores its reference computes") {
    // causal-mask's op takes the scores as its input: the largest is read from the cases.
    const fs::path dir = one_exercise_course("attnlab-score-size-", "causal-mask");
    std::ofstream(dir / "causal-mask" / "hint-1.en.md", std::ios::app) << "\nOne case has scores in the thousands.\n";
    nlohmann::json cases = read_json(dir / "causal-mask" / "cases.json");
    cases["cases"][0]["name"]["id"] = "skor dalam ribuan";  // a case's name speaks of that case alone
    std::ofstream(dir / "causal-mask" / "cases.json") << cases.dump(2);
    const Course course = load_course(dir);
    REQUIRE(course.exercises.size() == 1);
    const Exercise& e = course.exercises[0];
    double largest = 0;
    for (const Case& c : e.cases)
        for (float s : c.args.at(0).tensor.data)
            if (std::isfinite(s)) largest = std::max(largest, double(std::abs(s)));
    REQUIRE(largest < 1000);  // the course's mask cases are small: the claim is false
    const std::vector<std::string> problems = case_figure_problems(e);
    for (const std::string& p : problems) MESSAGE(p);
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].find("hint-1.en.md: says the scores reach the thousands") == 0);
    CHECK(problems[0].find("largest |score| in the cases is " + std::to_string(static_cast<long long>(largest))) != std::string::npos);
    CHECK(problems[1].find("cases.json, case 1 (id): says the scores reach the thousands") == 0);
    fs::remove_all(dir);

    // split-heads' op computes no scores at all: the claim cannot be checked, so it is a problem too.
    const fs::path heads = split_heads_course("attnlab-score-size-heads-");
    std::ofstream(heads / "split-heads" / "statement.id.md", std::ios::app) << "\nSkornya mencapai ribuan.\n";
    const Course split = load_course(heads);
    REQUIRE(split.exercises.size() == 1);
    const std::vector<std::string> unchecked = case_figure_problems(split.exercises[0]);
    REQUIRE(unchecked.size() == 1);
    CHECK(unchecked[0].find("the reference records no scores") != std::string::npos);
    fs::remove_all(heads);
}

TEST_CASE("case_name_problems: a case's name writes that case's figures") {
    const CaseNames names = four_cases()[1];  // B = 2, H = 3, T = 33, hd = 16
    CHECK(case_name_problems("B = 2, H = 3, T = 33, hd = 16 (B·H = 6)", names).empty());
    CHECK(case_name_problems("one head, T = 33: a warp and one more", names).empty());
    CHECK(case_name_problems("B = 2, H = 3, T = 13, hd = 16", names).size() == 1);
    CHECK(case_name_problems("ANDREA-120M: B·H = 24", names).size() == 1);
}

TEST_CASE("a placeholder that cannot be filled keeps its exercise out of the course, named in its problems") {
    const fs::path dir = split_heads_course("attnlab-case-figures-");
    {
        std::ofstream hint(dir / "split-heads" / "hint-2.id.md", std::ios::app);
        hint << "\nAda {{count X > 1}} kasus.\n";
    }
    const Course broken = load_course(dir);
    for (const std::string& p : broken.problems) MESSAGE(p);
    CHECK(broken.exercises.empty());
    REQUIRE(broken.problems.size() == 1);
    CHECK(broken.problems[0].find("hint-2.id.md") != std::string::npos);
    CHECK(broken.problems[0].find("{{count X > 1}}: 'X' is not a name of the cases") != std::string::npos);

    std::ofstream(dir / "split-heads" / "hint-2.id.md") << "Ada {{cases}} kasus; T sampai {{max T}}.\n";
    const Course fixed = load_course(dir);
    REQUIRE(fixed.exercises.size() == 1);
    int64_t longest = 0;  // x is (T, D): the longest sequence of the cases, read from the inputs themselves
    for (const Case& c : fixed.exercises[0].cases) longest = std::max(longest, c.args[0].tensor.shape[0]);
    CHECK(fixed.exercises[0].hints[1].id ==
          "Ada " + std::to_string(fixed.exercises[0].cases.size()) + " kasus; T sampai " + std::to_string(longest) + ".\n");
    fs::remove_all(dir);
}

TEST_CASE("an exercise's case_names must be new names that every case can evaluate") {
    const fs::path dir = split_heads_course("attnlab-case-names-");
    const nlohmann::json original = read_json(kCourse / "split-heads" / "exercise.json");
    const auto load_with = [&](const nlohmann::json& names) {
        nlohmann::json j = original;
        j["case_names"] = names;
        std::ofstream(dir / "split-heads" / "exercise.json") << j.dump(2);
        return load_course(dir);
    };
    const Course rebinds = load_with({{"T", "D"}});  // x is (T, D): T is the parameter's
    REQUIRE(rebinds.problems.size() == 1);
    CHECK(rebinds.problems[0].find("case_names.T") != std::string::npos);
    CHECK(rebinds.problems[0].find("already bound") != std::string::npos);
    const Course unknown = load_with({{"hd", "D / heads"}});
    REQUIRE(unknown.problems.size() == 1);
    CHECK(unknown.problems[0].find("case_names.hd") != std::string::npos);
    const Course fine = load_with({{"H", "n_heads"}});
    CHECK(fine.problems.empty());
    REQUIRE(fine.exercises.size() == 1);
    CHECK(case_names(fine.exercises[0]).front().count("H") == 1);
    fs::remove_all(dir);
}

TEST_CASE("the course's texts fill every placeholder and write no hand-written case figure that is not true") {
    for (const std::string& p : course().problems) MESSAGE(p);
    REQUIRE(course().problems.empty());
    for (const Exercise& e : course().exercises) {
        CAPTURE(e.id);
        const std::vector<std::string> problems = case_figure_problems(e);
        for (const std::string& p : problems) MESSAGE(p);
        CHECK(problems.empty());
        for (Lang lang : {Lang::En, Lang::Id}) CHECK(e.statement.get(lang).find("{{") == std::string::npos);
    }
}
