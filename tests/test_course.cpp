// Course loading (exercises/README.md is the schema): a valid fixture course
// loads, and every kind of broken data is reported with the file and the field
// at fault. Broken variants are made at test time by copying the valid fixture
// into a temporary folder and editing one file.
#include "attnlab/core/course/case_inputs.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/base/util.hpp"

#include <doctest/doctest.h>

#include "test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;
using nlohmann::json;

namespace {

const fs::path kValidCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "courses" / "valid";

// A writable copy of the valid fixture course.
class CourseCopy {
public:
    CourseCopy() { fs::copy(kValidCourse, dir(), fs::copy_options::recursive); }
    fs::path dir() const { return tmp_.path() / "course"; }
    fs::path file(const std::string& rel) const { return dir() / rel; }

    json read_json(const std::string& rel) const {
        auto text = read_file(file(rel));
        REQUIRE(text);
        return json::parse(*text);
    }
    void write_json(const std::string& rel, const json& j) const { write_text(rel, j.dump(2)); }
    void write_text(const std::string& rel, const std::string& text) const { write_file_atomic(file(rel), text); }
    void edit_json(const std::string& rel, const std::function<void(json&)>& edit) const {
        json j = read_json(rel);
        edit(j);
        write_json(rel, j);
    }
    std::map<std::string, LocalizedText> topics() const { return load_course(dir()).topics; }

private:
    TempDir tmp_;
};

// Loads `exercise` of `course` directly (must throw a CourseError naming
// `file` and `field`) and through load_course (the exercise is left out, the
// problem names file and field, and the other exercise still loads).
void expect_broken(const CourseCopy& course, const std::string& exercise, const std::string& file, const std::string& field,
                   const std::string& problem_part = "") {
    CAPTURE(file);
    CAPTURE(field);
    bool threw = false;
    try {
        load_exercise(course.dir() / exercise, course.topics());
    } catch (const CourseError& e) {
        threw = true;
        const std::string what = e.what();
        CAPTURE(what);
        CHECK(e.file().filename().string() == file);
        CHECK(e.field() == field);
        CHECK(contains(what, file));
        if (!field.empty()) CHECK(contains(what, field));
        if (!problem_part.empty()) CHECK(contains(what, problem_part));
    }
    CHECK(threw);

    Course c = load_course(course.dir());
    REQUIRE(c.problems.size() == 1);
    CAPTURE(c.problems[0]);
    CHECK(contains(c.problems[0], file));
    if (!field.empty()) CHECK(contains(c.problems[0], field));
    CHECK(c.find(exercise) == nullptr);
    REQUIRE(c.exercises.size() == 1);
    CHECK(c.exercises[0].id != exercise);
}

TensorData lit(const std::string& text) { return parse_tensor_literal(json::parse(text)); }

std::string literal_error(const std::string& text) {
    try {
        lit(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    FAIL("parse_tensor_literal accepted " << text);
    return {};
}

}  // namespace

// ---- the valid fixture ------------------------------------------------------

TEST_CASE("the valid fixture course loads completely") {
    Course c = load_course(kValidCourse);
    INFO((c.problems.empty() ? std::string() : c.problems[0]));
    REQUIRE(c.problems.empty());
    REQUIRE(c.exercises.size() == 2);
    CHECK(c.exercises[0].id == "mini-split");  // manifest order
    CHECK(c.exercises[1].id == "mini-merge");
    CHECK(c.topic_label("reshape", Lang::En) == "reshape & transpose");
    CHECK(c.topic_label("not-a-topic", Lang::Id) == "not-a-topic");

    const Exercise* split = c.find("mini-split");
    REQUIRE(split);
    CHECK(split->dir == kValidCourse / "mini-split");
    CHECK(split->title.get(Lang::En) == "Mini split");
    CHECK(split->title.get(Lang::Id) == "Pecah mini");
    CHECK(split->topics == std::vector<std::string>{"reshape", "multi-head"});
    CHECK(split->function == "split_heads");
    REQUIRE(split->params.size() == 2);
    CHECK(split->params[0].name == "x");
    CHECK(split->params[0].kind == ValueKind::Tensor);
    CHECK(split->params[0].shape == "(T, D)");
    CHECK(split->params[1].name == "n_heads");
    CHECK(split->params[1].kind == ValueKind::Int);
    CHECK(split->returns.kind == ValueKind::Tensor);
    CHECK(split->returns.dims == std::vector<std::string>{"head", "row", "col"});
    CHECK(split->reference == "split_heads");
    CHECK(split->limits.cpu_seconds == 2.0);
    CHECK(split->limits.wall_seconds == 10.0);
    CHECK(split->limits.memory_mb == 512);  // default kept
    CHECK(split->limits.output_kb == 256);

    REQUIRE(split->cases.size() == 2);
    const Case& c0 = split->cases[0];
    CHECK(c0.name.get(Lang::En) == "0..7 as 2x4, 2 heads");
    CHECK(c0.name.get(Lang::Id) == "0..7 sebagai 2x4, 2 head");
    CHECK(c0.tokens == std::vector<std::string>{"the", "cat"});
    REQUIRE(c0.args.size() == 2);
    CHECK(c0.args[0].kind == ValueKind::Tensor);
    CHECK(c0.args[0].tensor.shape == Shape{2, 4});
    CHECK(c0.args[0].tensor.data == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(c0.args[1].kind == ValueKind::Int);
    CHECK(c0.args[1].int_value == 2);
    const Case& c1 = split->cases[1];
    CHECK(c1.name.get(Lang::En) == "nested 2x2, 1 head");  // a plain-string name serves both languages
    CHECK(c1.name.get(Lang::Id) == "nested 2x2, 1 head");
    CHECK(c1.tokens.empty());
    CHECK(c1.args[0].tensor.data == std::vector<float>{1, 2, 3, 4});

    // Texts come from the Markdown files, verbatim.
    CHECK(split->statement.get(Lang::En) == *read_file(kValidCourse / "mini-split" / "statement.en.md"));
    CHECK(split->statement.get(Lang::Id) == *read_file(kValidCourse / "mini-split" / "statement.id.md"));
    CHECK(split->explanation.get(Lang::Id) == *read_file(kValidCourse / "mini-split" / "explanation.id.md"));
    REQUIRE(split->hints.size() == 3);
    for (int n = 1; n <= 3; ++n) {
        const fs::path dir = kValidCourse / "mini-split";
        CHECK(split->hints[static_cast<size_t>(n - 1)].get(Lang::En) == *read_file(dir / ("hint-" + std::to_string(n) + ".en.md")));
        CHECK(split->hints[static_cast<size_t>(n - 1)].get(Lang::Id) == *read_file(dir / ("hint-" + std::to_string(n) + ".id.md")));
    }
    CHECK(split->starter_path() == kValidCourse / "mini-split" / "starter.cpp");
    CHECK(split->solution_path() == kValidCourse / "mini-split" / "solution.cpp");

    const Exercise* merge = c.find("mini-merge");
    REQUIRE(merge);
    // No tolerance given: the defaults.
    CHECK(merge->tolerance.atol == doctest::Approx(1e-5));
    CHECK(merge->tolerance.rtol == doctest::Approx(1e-4));
    REQUIRE(merge->cases.size() == 2);
    CHECK(merge->cases[1].args[0].tensor.shape == Shape{2, 1, 2});
    CHECK(merge->cases[1].args[0].tensor.data == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("Exercise::signature and qualified_declaration follow the parameter kinds") {
    Course c = load_course(kValidCourse);
    const Exercise* split = c.find("mini-split");
    REQUIRE(split);
    CHECK(split->signature() == "Tensor split_heads(const Tensor& x, int n_heads)");
    CHECK(split->qualified_declaration() == "attnlab::Tensor split_heads(const attnlab::Tensor& x, int n_heads)");
    const Exercise* merge = c.find("mini-merge");
    REQUIRE(merge);
    CHECK(merge->signature() == "Tensor merge_heads(const Tensor& heads)");
    CHECK(merge->qualified_declaration() == "attnlab::Tensor merge_heads(const attnlab::Tensor& heads)");

    Exercise scalar;
    scalar.function = "count";
    scalar.returns.kind = ValueKind::Int;
    scalar.params = {{"d_model", ValueKind::Int, ""}, {"scale", ValueKind::Float, ""}, {"w", ValueKind::Tensor, "(D, D)"}};
    CHECK(scalar.signature() == "long long count(int d_model, float scale, const Tensor& w)");
    CHECK(scalar.qualified_declaration() == "long long count(int d_model, float scale, const attnlab::Tensor& w)");
    scalar.returns.kind = ValueKind::Float;
    scalar.params.clear();
    CHECK(scalar.signature() == "double count()");
}

// ---- runtime profiles --------------------------------------------------------

TEST_CASE("runtime profiles: one row per runtime, found by enum and by code") {
    REQUIRE(all_runtime_profiles().size() == kRuntimeCount);
    for (size_t i = 0; i < all_runtime_profiles().size(); ++i) {
        const RuntimeProfile& p = *all_runtime_profiles()[i];
        CAPTURE(p.code);
        CHECK(static_cast<size_t>(p.runtime) == i);  // profile_of indexes by the enum
        CHECK(&profile_of(p.runtime) == &p);
        CHECK(profile_by_code(p.code) == &p);
        CHECK(std::string(runtime_code(p.runtime)) == p.code);
        // A value-returning entry is C++'s; a launcher filling a device tensor
        // is what the kernel evidence (launches, NVRTC, a GPU run) goes with.
        CHECK((p.entry_shape == EntryShape::FillsDeviceOutput) == p.reports_kernel_launches);
    }
    CHECK(profile_by_code("rust") == nullptr);
    CHECK(profile_by_code("") == nullptr);
}

TEST_CASE("runtime profiles: what each runtime compiles, and the files it names") {
    const RuntimeProfile& cpp = profile_of(Runtime::Cpp);
    const RuntimeProfile& cuda = profile_of(Runtime::Cuda);
    const std::string kernel_file = "__global__ void k(float* x) { x[threadIdx.x] = 1; }\nvoid f(float* x) { k<<<1, 32>>>(x); }\n";
    CHECK(cpp.compiled_text(kernel_file) == kernel_file);  // C++ as written
    const std::string emulated = cuda.compiled_text(kernel_file);
    CHECK_FALSE(contains(emulated, "<<<"));  // the launch is rewritten for the emulator...
    CHECK(std::count(emulated.begin(), emulated.end(), '\n') == std::count(kernel_file.begin(), kernel_file.end(), '\n'));  // ...line for line
    CHECK(std::string(cpp.source_extension) == ".cpp");
    CHECK(std::string(cuda.source_extension) == ".cu");
    CHECK(std::string(cpp.entry_header) != cuda.entry_header);
    CHECK(std::string(cpp.pch_name) != cuda.pch_name);  // one precompiled header per runtime, side by side in the cache
    Exercise ex;
    ex.runtime = Runtime::Cuda;
    ex.function = "fill";
    ex.output = {"out", ValueKind::Tensor, "(T, D)"};
    ex.params = {{"x", ValueKind::Tensor, "(T, D)"}, {"n", ValueKind::Int, ""}};
    CHECK(ex.signature() == "void fill(DeviceTensor& out, const DeviceTensor& x, int n)");
    CHECK(ex.starter_path().filename() == "starter.cu");
    ex.runtime = Runtime::Cpp;
    CHECK(ex.signature() == "Tensor fill(const Tensor& x, int n)");
}

TEST_CASE("an unknown runtime names the ones there are") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["runtime"] = "rust"; });
    expect_broken(course, "mini-split", "exercise.json", "runtime", "expected \"cpp\" or \"cuda\"");
}

TEST_CASE("an exercise's limits start from the learner program's defaults") {
    const Limits d = Limits::learner_program();
    Exercise ex;
    CHECK(ex.limits.cpu_seconds == d.cpu_seconds);
    CHECK(ex.limits.memory_mb == d.memory_mb);
    CHECK(ex.limits.output_kb == d.output_kb);
    CHECK(ex.limits.file_size_mb == d.file_size_mb);
    CHECK(ex.limits.process_margin == d.process_margin);
    CHECK(d.cpu_seconds > 0);
    CHECK(d.wall_seconds > d.cpu_seconds);  // a program that waits is stopped by the wall clock, later than a busy one
    CHECK(Limits{}.cpu_seconds == 0);      // a plain Limits limits nothing (the compiler's, NVRTC's set what they need)
}

TEST_CASE("the real course loads without problems") {
    const fs::path real = fs::path(ATTNLAB_TEST_FIXTURES).parent_path().parent_path() / "exercises";
    Course c = load_course(real);
    INFO((c.problems.empty() ? std::string() : c.problems[0]));
    CHECK(c.problems.empty());
    // Every exercise the manifest lists loaded (the course grows; no fixed count).
    const auto manifest = read_file(real / "manifest.json");
    REQUIRE(manifest);
    CHECK(c.exercises.size() == json::parse(*manifest)["exercises"].size());
    CHECK(c.exercises.size() >= 4);
    for (const auto& e : c.exercises) {
        CHECK(e.hints.size() >= 3);
        CHECK(!e.cases.empty());
    }
}

// ---- broken exercises -----------------------------------------------------

namespace {
// The fixture course's fx-cuda-split with `value` as its exercise.json `key`,
// loaded from a copy: the exercise when `field` is empty, else nothing, after
// checking that loading fails on that field with `problem` in its words.
std::optional<Exercise> load_split_with(const char* key, const json& value, const char* field, const char* problem) {
    const fs::path cuda_course = fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course";
    const std::map<std::string, LocalizedText> topics = load_course(cuda_course).topics;
    TempDir tmp;
    const fs::path dir = tmp.path() / "fx-cuda-split";
    fs::copy(cuda_course / "fx-cuda-split", dir, fs::copy_options::recursive);
    fs::copy(cuda_course / "mistakes", tmp.path() / "mistakes", fs::copy_options::recursive);  // the catalogue's words
    json j = json::parse(*read_file(dir / "exercise.json"));
    j[key] = value;
    write_file_atomic(dir / "exercise.json", j.dump(2));
    if (std::string(field).empty()) return load_exercise(dir, topics);
    try {
        load_exercise(dir, topics);
        FAIL("loaded");
    } catch (const CourseError& e) {
        CAPTURE(std::string(e.what()));
        CHECK(e.field() == field);
        CHECK(contains(e.what(), problem));
    }
    return std::nullopt;
}

std::optional<Exercise> load_split_with_kernel_rules(const json& rules, const char* field, const char* problem) {
    return load_split_with("kernel_rules", rules, field, problem);
}
}  // namespace

TEST_CASE("rule_advice: an exercise's own words for a rule that takes advice; any other cause is refused, naming those that do") {
    const json words = {{"en", "Stop at the last key tile."}, {"id", "Berhenti di tile key terakhir."}};
    const std::optional<Exercise> ex = load_split_with("rule_advice", {{"global_reads_not_reused", words}}, "", "");
    REQUIRE(ex);
    REQUIRE(ex->rule_advice.count("global_reads_not_reused"));
    CHECK(ex->rule_advice.at("global_reads_not_reused").get(Lang::Id) == "Berhenti di tile key terakhir.");
    load_split_with("rule_advice", {{"block_count", words}}, "rule_advice.block_count", "these do: global_reads_not_reused");
    load_split_with("rule_advice", {{"shared_race", words}}, "rule_advice.shared_race", "no kernel rule takes advice");
    load_split_with("rule_advice", {{"global_reads_not_reused", 3}}, "rule_advice.global_reads_not_reused", "expected {");
    load_split_with("rule_advice", json::array(), "rule_advice", "expected an object");
}

TEST_CASE("kernel_rules: bytes per request, at least, and the cases it is judged in") {
    struct Row {
        const char* what;
        json rules;
        const char* field;  // "": loads
        const char* problem;
    };
    const Row rows[] = {
        {"both bounds and the cases they judge", {{"min_bytes_per_load_request", 160}, {"min_bytes_per_store_request", 150}, {"min_bytes_per_request_when", "T >= 2"}}, "", ""},
        {"an unknown rule lists the known ones", {{"min_bytes_per_loads", 160}}, "kernel_rules.min_bytes_per_loads", "min_bytes_per_request_when"},
        {"a bound that is not positive", {{"min_bytes_per_load_request", 0}}, "kernel_rules.min_bytes_per_load_request", "positive"},
        {"a condition without a bound", {{"min_bytes_per_request_when", "T >= 2"}}, "kernel_rules.min_bytes_per_request_when", "applies to no rule"},
        {"a name the cases do not bind", {{"min_bytes_per_load_request", 160}, {"min_bytes_per_request_when", "N >= 2"}},
         "kernel_rules.min_bytes_per_request_when", "(case 1)"},
        {"a condition no case meets", {{"min_bytes_per_load_request", 160}, {"min_bytes_per_request_when", "T > 100000"}},
         "kernel_rules.min_bytes_per_request_when", "holds in no case"},
    };
    for (const Row& row : rows) {
        CAPTURE(std::string(row.what));
        const std::optional<Exercise> ex = load_split_with_kernel_rules(row.rules, row.field, row.problem);
        if (!ex) continue;
        CHECK(ex->kernel_rules.min_bytes_per_load_request == 160);
        CHECK(ex->kernel_rules.min_bytes_per_store_request == 150);
        CHECK(ex->kernel_rules.min_bytes_per_request_when == "T >= 2");
    }
}

TEST_CASE("kernel_rules: shared load requests per warp FMA, the FMA count and the cases it is judged in") {
    struct Row {
        const char* what;
        json rule;
        const char* field;  // "": loads
        const char* problem;
    };
    const char* kRule = "kernel_rules.max_shared_load_requests_per_warp_fma";
    const Row rows[] = {
        {"a bound, the FMAs and a condition", {{"limit", 1}, {"fmas", "B*T*D"}, {"when", "T >= 3"}}, "", ""},
        {"not an object", 1, kRule, "expected {"},
        {"an unknown key", {{"limit", 1}, {"fmas", "B*T*D"}, {"where", "T >= 3"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.where", "unknown key"},
        {"no bound", {{"fmas", "B*T*D"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.limit", "is missing"},
        {"a bound that is not positive", {{"limit", 0}, {"fmas", "B*T*D"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.limit", "positive"},
        {"no FMA count", {{"limit", 1}}, "kernel_rules.max_shared_load_requests_per_warp_fma.fmas", "is missing"},
        {"a name the cases do not bind", {{"limit", 1}, {"fmas", "M*N*K"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.fmas", "(case 1)"},
        {"no multiply-add in a judged case", {{"limit", 1}, {"fmas", "T - 1"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.fmas",
         "less than 1 multiply-add in case 2"},
        {"a condition no case meets", {{"limit", 1}, {"fmas", "B*T*D"}, {"when", "T > 100000"}},
         "kernel_rules.max_shared_load_requests_per_warp_fma.when", "holds in no case"},
        {"a broken condition", {{"limit", 1}, {"fmas", "B*T*D"}, {"when", "N > 1"}}, "kernel_rules.max_shared_load_requests_per_warp_fma.when",
         "(case 1)"},
    };
    for (const Row& row : rows) {
        CAPTURE(std::string(row.what));
        const std::optional<Exercise> ex =
            load_split_with_kernel_rules({{"max_shared_load_requests_per_warp_fma", row.rule}}, row.field, row.problem);
        if (!ex) continue;
        CHECK(ex->kernel_rules.max_shared_load_requests_per_warp_fma.limit == 1);
        CHECK(ex->kernel_rules.max_shared_load_requests_per_warp_fma.fmas == "B*T*D");
        CHECK(ex->kernel_rules.max_shared_load_requests_per_warp_fma.when == "T >= 3");
    }
}

TEST_CASE("invalid JSON names the file") {
    CourseCopy course;
    course.write_text("mini-split/exercise.json", "{\"id\": \"mini-split\", \"title\": ");
    expect_broken(course, "mini-split", "exercise.json", "", "invalid JSON");
}

TEST_CASE("invalid JSON in cases.json names that file") {
    CourseCopy course;
    course.write_text("mini-merge/cases.json", "{\"cases\": [ {,] }");
    expect_broken(course, "mini-merge", "cases.json", "", "invalid JSON");
}

TEST_CASE("missing entry.function") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"].erase("function"); });
    expect_broken(course, "mini-split", "exercise.json", "entry.function", "missing");
}

TEST_CASE("entry.function must be an identifier other than main") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["function"] = "main"; });
    expect_broken(course, "mini-split", "exercise.json", "entry.function");
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["function"] = "split heads"; });
    expect_broken(course, "mini-split", "exercise.json", "entry.function");
}

TEST_CASE("bad entry.params[1].kind") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["params"][1]["kind"] = "integer"; });
    expect_broken(course, "mini-split", "exercise.json", "entry.params[1].kind", "\"int\"");
}

TEST_CASE("bad entry.returns.kind") {
    CourseCopy course;
    course.edit_json("mini-merge/exercise.json", [](json& j) { j["entry"]["returns"]["kind"] = 3; });
    expect_broken(course, "mini-merge", "exercise.json", "entry.returns.kind");
}

TEST_CASE("id must equal the folder name") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["id"] = "mini-splitter"; });
    expect_broken(course, "mini-split", "exercise.json", "id", "folder name");
}

TEST_CASE("unknown reference op") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["reference"] = "split_heads_v2"; });
    expect_broken(course, "mini-split", "exercise.json", "reference", "split_heads_v2");
}

TEST_CASE("parameter names must match the reference op") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["params"][1]["name"] = "heads"; });
    expect_broken(course, "mini-split", "exercise.json", "entry.params", "n_heads");
}

TEST_CASE("parameter count and kinds must match the reference op") {
    CourseCopy course;
    course.edit_json("mini-merge/exercise.json",
                     [](json& j) { j["entry"]["params"].push_back({{"name", "extra"}, {"kind", "int"}}); });
    expect_broken(course, "mini-merge", "exercise.json", "entry.params", "merge_heads");

    CourseCopy course2;
    course2.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["params"][1]["kind"] = "float"; });
    expect_broken(course2, "mini-split", "exercise.json", "entry.params", "n_heads");
}

TEST_CASE("duplicate parameter names") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["entry"]["params"][1]["name"] = "x"; });
    expect_broken(course, "mini-split", "exercise.json", "entry.params[1].name");
}

TEST_CASE("unknown topic") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["topics"].push_back("gradients"); });
    expect_broken(course, "mini-split", "exercise.json", "topics", "gradients");
}

TEST_CASE("bad tolerance and limits") {
    CourseCopy course;
    course.edit_json("mini-split/exercise.json", [](json& j) { j["tolerance"]["atol"] = -1; });
    expect_broken(course, "mini-split", "exercise.json", "tolerance.atol");
    CourseCopy course2;
    course2.edit_json("mini-split/exercise.json", [](json& j) { j["limits"]["memory_mb"] = 0; });
    expect_broken(course2, "mini-split", "exercise.json", "limits.memory_mb");
}

TEST_CASE("a course cannot lift attnlab's ceilings on a learner program's limits") {
    struct Row {
        const char* key;
        json value;
        const char* problem;
    } rows[] = {
        {"cpu_seconds", 1e12, "at most 60"},
        {"memory_mb", 1e15, "at most 8192"},  // 1e15 << 20 would overflow the sandbox's bytes
        {"wall_seconds", 121, "at most 120"},
        {"output_kb", 1e9, "at most 65536"},
        {"cpu_seconds", "forever", "expected a positive number"},
        {"memory_mb", -5, "expected a positive number"},
        {"cpu_seconds", json(nullptr), "expected a positive number"},  // what a NaN becomes when JSON writes it
    };
    for (const Row& r : rows) {
        CourseCopy course;
        course.edit_json("mini-split/exercise.json", [&](json& j) { j["limits"][r.key] = r.value; });
        expect_broken(course, "mini-split", "exercise.json", std::string("limits.") + r.key, r.problem);
    }
    // At the ceiling itself it loads.
    CourseCopy at_ceiling;
    at_ceiling.edit_json("mini-split/exercise.json", [](json& j) {
        j["limits"]["cpu_seconds"] = LimitCeilings::cpu_seconds;
        j["limits"]["memory_mb"] = LimitCeilings::memory_mb;
    });
    const Exercise ex = load_exercise(at_ceiling.dir() / "mini-split", at_ceiling.topics());
    CHECK(ex.limits.cpu_seconds == LimitCeilings::cpu_seconds);
    CHECK(ex.limits.memory_mb == LimitCeilings::memory_mb);
}

TEST_CASE("a case missing an input") {
    CourseCopy course;
    course.edit_json("mini-split/cases.json", [](json& j) { j["cases"][1]["inputs"].erase("n_heads"); });
    expect_broken(course, "mini-split", "cases.json", "cases[1].inputs.n_heads", "missing");
}

TEST_CASE("a case with an input the entry point does not take") {
    CourseCopy course;
    course.edit_json("mini-split/cases.json", [](json& j) { j["cases"][0]["inputs"]["w_o"] = json::array({1}); });
    expect_broken(course, "mini-split", "cases.json", "cases[0].inputs.w_o");
}

TEST_CASE("an int input that is not an integer") {
    CourseCopy course;
    course.edit_json("mini-split/cases.json", [](json& j) { j["cases"][0]["inputs"]["n_heads"] = 2.5; });
    expect_broken(course, "mini-split", "cases.json", "cases[0].inputs.n_heads", "integer");
}

TEST_CASE("a non-rectangular nested array") {
    CourseCopy course;
    course.edit_json("mini-split/cases.json", [](json& j) { j["cases"][1]["inputs"]["x"] = json::parse("[[1, 2], [3]]"); });
    expect_broken(course, "mini-split", "cases.json", "cases[1].inputs.x", "rectangular");
}

TEST_CASE("data length different from the shape") {
    CourseCopy course;
    course.edit_json("mini-merge/cases.json", [](json& j) { j["cases"][1]["inputs"]["heads"]["data"] = json::array({1, 2, 3}); });
    expect_broken(course, "mini-merge", "cases.json", "cases[1].inputs.heads", "3 values");
}

TEST_CASE("no cases at all") {
    CourseCopy course;
    course.write_json("mini-merge/cases.json", json{{"cases", json::array()}});
    expect_broken(course, "mini-merge", "cases.json", "cases");
}

TEST_CASE("missing statement.id.md") {
    CourseCopy course;
    fs::remove(course.file("mini-split/statement.id.md"));
    expect_broken(course, "mini-split", "statement.id.md", "", "missing");
}

TEST_CASE("an empty explanation file") {
    CourseCopy course;
    course.write_text("mini-merge/explanation.en.md", "  \n\n");
    expect_broken(course, "mini-merge", "explanation.en.md", "", "empty");
}

TEST_CASE("only 2 hints") {
    CourseCopy course;
    fs::remove(course.file("mini-split/hint-3.en.md"));
    fs::remove(course.file("mini-split/hint-3.id.md"));
    bool threw = false;
    try {
        load_exercise(course.dir() / "mini-split", course.topics());
    } catch (const CourseError& e) {
        threw = true;
        const std::string what = e.what();
        CAPTURE(what);
        CHECK(contains(e.file().filename().string(), "hint-"));
        CHECK(contains(what, "3 hints"));
        CHECK(contains(what, "found 2"));
    }
    CHECK(threw);
    Course c = load_course(course.dir());
    REQUIRE(c.problems.size() == 1);
    CHECK(contains(c.problems[0], "hint-"));
    CHECK(c.exercises.size() == 1);
}

TEST_CASE("a hint present in one language only") {
    CourseCopy course;
    fs::remove(course.file("mini-split/hint-2.id.md"));
    expect_broken(course, "mini-split", "hint-2.id.md", "", "missing");
}

TEST_CASE("missing solution.cpp") {
    CourseCopy course;
    fs::remove(course.file("mini-merge/solution.cpp"));
    expect_broken(course, "mini-merge", "solution.cpp", "", "missing");
}

// ---- the manifest -----------------------------------------------------------

TEST_CASE("a manifest listing a missing folder: a problem, the rest still loads") {
    CourseCopy course;
    course.edit_json("manifest.json", [](json& j) {
        j["exercises"] = json::array({"mini-split", "no-such-exercise", "mini-merge"});
    });
    Course c = load_course(course.dir());
    REQUIRE(c.problems.size() == 1);
    CHECK(contains(c.problems[0], "no-such-exercise"));
    CHECK(contains(c.problems[0], "does not exist"));
    REQUIRE(c.exercises.size() == 2);
    CHECK(c.exercises[0].id == "mini-split");
    CHECK(c.exercises[1].id == "mini-merge");
}

TEST_CASE("a broken manifest throws") {
    SUBCASE("invalid JSON") {
        CourseCopy course;
        course.write_text("manifest.json", "{\"exercises\": [\"mini-split\"");
        try {
            load_course(course.dir());
            FAIL("load_course did not throw");
        } catch (const CourseError& e) {
            CHECK(e.file().filename() == "manifest.json");
            CHECK(contains(e.what(), "manifest.json"));
            CHECK(contains(e.what(), "invalid JSON"));
        }
    }
    SUBCASE("no exercises list") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) { j.erase("exercises"); });
        try {
            load_course(course.dir());
            FAIL("load_course did not throw");
        } catch (const CourseError& e) {
            CHECK(e.file().filename() == "manifest.json");
            CHECK(e.field() == "exercises");
            CHECK(contains(e.what(), "exercises"));
        }
    }
    SUBCASE("a topic without both languages") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) { j["topics"]["reshape"] = json{{"en", "reshape"}}; });
        try {
            load_course(course.dir());
            FAIL("load_course did not throw");
        } catch (const CourseError& e) {
            CHECK(e.file().filename() == "manifest.json");
            CHECK(e.field() == "topics.reshape.id");
        }
    }
    SUBCASE("an exercise listed twice") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) { j["exercises"].push_back("mini-split"); });
        try {
            load_course(course.dir());
            FAIL("load_course did not throw");
        } catch (const CourseError& e) {
            CHECK(e.field() == "exercises[2]");
            CHECK(contains(e.what(), "twice"));
        }
    }
    SUBCASE("no manifest at all") {
        CourseCopy course;
        fs::remove(course.file("manifest.json"));
        CHECK_THROWS_AS(load_course(course.dir()), CourseError);
    }
}

// ---- the course format --------------------------------------------------------

namespace {

// load_course must refuse the course with a CourseError on manifest.json's `field`.
std::string manifest_error(const CourseCopy& course, const std::string& field) {
    try {
        load_course(course.dir());
    } catch (const CourseError& e) {
        CHECK(e.file().filename() == "manifest.json");
        CHECK(e.field() == field);
        return e.what();
    }
    FAIL("load_course accepted the manifest");
    return {};
}

}  // namespace

TEST_CASE("format_version: read, and a newer or missing one refuses the course with a clear problem") {
    SUBCASE("the current format loads") {
        CourseCopy course;
        CHECK(load_course(course.dir()).format_version == kCourseFormatVersion);
    }
    SUBCASE("a newer format: this build says it is too old") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) { j["format_version"] = kCourseFormatVersion + 1; });
        const std::string what = manifest_error(course, "format_version");
        CAPTURE(what);
        CHECK(contains(what, "this course needs a newer attnlab: format " + std::to_string(kCourseFormatVersion + 1) +
                                 ", this build reads up to " + std::to_string(kCourseFormatVersion)));
    }
    SUBCASE("missing") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) { j.erase("format_version"); });
        const std::string what = manifest_error(course, "format_version");
        CAPTURE(what);
        CHECK(contains(what, "is missing"));
    }
    SUBCASE("not a positive integer") {
        for (const json& bad : {json("1"), json(0), json(1.5)}) {
            CourseCopy course;
            course.edit_json("manifest.json", [&](json& j) { j["format_version"] = bad; });
            CHECK(contains(manifest_error(course, "format_version"), "positive integer"));
        }
    }
    SUBCASE("the old key \"version\" still reads, for one release") {
        CourseCopy course;
        course.edit_json("manifest.json", [](json& j) {
            j.erase("format_version");
            j["version"] = 1;
        });
        const Course c = load_course(course.dir());
        CHECK(c.problems.empty());
        CHECK(c.format_version == 1);
        course.edit_json("manifest.json", [](json& j) { j["version"] = kCourseFormatVersion + 1; });
        CHECK(contains(manifest_error(course, "version"), "needs a newer attnlab"));
    }
}

// ---- nothing unlisted (dev check) -------------------------------------------

TEST_CASE("an exercise folder the manifest does not list is a problem; a folder without exercise.json is not") {
    CourseCopy course;
    fs::create_directories(course.file("stray"));
    course.write_text("stray/exercise.json", "{}");
    fs::create_directories(course.file("mistakes"));
    course.write_text("mistakes/some_mistake.json", "{}");
    fs::create_directories(course.file("notes"));
    const std::vector<std::string> problems = listing_problems(load_course(course.dir()));
    REQUIRE(problems.size() == 1);
    CHECK(contains(problems[0], "stray/"));
    CHECK(contains(problems[0], "manifest.json does not list"));
}

TEST_CASE("a listed exercise that fails to load is not reported as unlisted") {
    CourseCopy course;
    fs::remove(course.file("mini-merge/solution.cpp"));
    const Course c = load_course(course.dir());
    REQUIRE(c.problems.size() == 1);
    CHECK(listing_problems(c).empty());
}

TEST_CASE("files in wrong/ and right/ that exercise.json's fixtures do not list are problems; probes/ is not checked") {
    CourseCopy course;
    for (const char* file : {"wrong/listed.cpp", "wrong/nested/unlisted.cpp", "right/unlisted.cpp", "right/listed.cpp", "probes/probe.cpp"}) {
        fs::create_directories(course.file(std::string("mini-split/") + file).parent_path());
        course.write_text(std::string("mini-split/") + file, "// a fixture\n");
    }
    course.edit_json("mini-split/exercise.json", [](json& j) {
        j["fixtures"] = json::array({{{"file", "wrong/listed.cpp"}, {"expect", "wrong_answer"}},
                                     {{"file", "./right/listed.cpp"}, {"expect", "pass"}}});
    });
    const Course c = load_course(course.dir());
    REQUIRE(c.problems.empty());
    const std::vector<std::string> problems = listing_problems(c);
    CAPTURE(problems);
    REQUIRE(problems.size() == 2);
    CHECK(contains(problems[0], "mini-split: right/unlisted.cpp is not one of exercise.json's \"fixtures\""));
    CHECK(contains(problems[1], "mini-split: wrong/nested/unlisted.cpp"));
}

TEST_CASE("the shipped course and every fixture course list every exercise folder and fixture file") {
    const fs::path root = fs::path(ATTNLAB_TEST_FIXTURES);
    for (const fs::path& dir : {root.parent_path().parent_path() / "exercises", root / "course", root / "cuda-course", kValidCourse}) {
        CAPTURE(dir);
        const Course c = load_course(dir);
        CHECK(c.problems.empty());
        CHECK(c.format_version == kCourseFormatVersion);
        const std::vector<std::string> problems = listing_problems(c);
        CAPTURE(problems);
        CHECK(problems.empty());
    }
}

// ---- tensor literals --------------------------------------------------------

TEST_CASE("tensor literal: nested arrays") {
    TensorData t = lit("[[1, 2, 3], [4, 5, 6]]");
    CHECK(t.shape == Shape{2, 3});
    CHECK(t.data == std::vector<float>{1, 2, 3, 4, 5, 6});
    TensorData v = lit("[0.5, -1.25]");
    CHECK(v.shape == Shape{2});
    CHECK(v.data == std::vector<float>{0.5f, -1.25f});
    TensorData d3 = lit("[[[1], [2]], [[3], [4]]]");
    CHECK(d3.shape == Shape{2, 2, 1});
    CHECK(d3.data == std::vector<float>{1, 2, 3, 4});

    CHECK(contains(literal_error("[[1, 2], [3]]"), "rectangular"));
    CHECK(contains(literal_error("[[1, 2], 3]"), "rectangular"));
    CHECK(contains(literal_error("[1, [2]]"), "rectangular"));
    CHECK(contains(literal_error("[[[1]], [2]]"), "rectangular"));
    CHECK(contains(literal_error("[[1, true]]"), "numbers"));
    CHECK(contains(literal_error("\"-inf\""), "tensor"));
    CHECK(contains(literal_error("{\"ones\": 3}"), "unknown tensor form"));
}

TEST_CASE("tensor literal: shape + data") {
    TensorData t = lit(R"({"shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]})");
    CHECK(t.shape == Shape{2, 3});
    CHECK(t.data == std::vector<float>{1, 2, 3, 4, 5, 6});
    const std::string short_data = literal_error(R"({"shape": [2, 3], "data": [1, 2, 3, 4, 5]})");
    CHECK(contains(short_data, "5 values"));
    CHECK(contains(short_data, "(2, 3)"));
    CHECK(contains(short_data, "6"));
    CHECK(contains(literal_error(R"({"shape": [2, 2], "data": [1, 2, 3, 4, 5]})"), "5 values"));
    CHECK(contains(literal_error(R"({"data": [1, 2]})"), "shape"));
    CHECK(contains(literal_error(R"({"shape": [2, -1], "data": [1, 2]})"), "shape"));
    CHECK(contains(literal_error(R"({"shape": [2], "data": 3})"), "data"));
}

TEST_CASE("tensor literal: infinities as strings") {
    TensorData t = lit(R"([[0, "-inf"], ["inf", 1]])");
    REQUIRE(t.data.size() == 4);
    CHECK(t.data[0] == 0.0f);
    CHECK(std::isinf(t.data[1]));
    CHECK(t.data[1] < 0);
    CHECK(std::isinf(t.data[2]));
    CHECK(t.data[2] > 0);
    TensorData n = lit(R"({"shape": [2], "data": ["nan", "-inf"]})");
    CHECK(std::isnan(n.data[0]));
    CHECK(n.data[1] == -std::numeric_limits<float>::infinity());
    TensorData f = lit(R"({"full": {"shape": [2, 2], "value": "-inf"}})");
    for (float v : f.data) CHECK(v == -std::numeric_limits<float>::infinity());
    CHECK(contains(literal_error(R"([["-infinity"]])"), "numbers"));
}

TEST_CASE("tensor literal: random is deterministic and in range") {
    const std::string text = R"({"random": {"shape": [8, 16], "seed": 7, "scale": 0.5}})";
    TensorData a = lit(text);
    TensorData b = lit(text);
    CHECK(a.shape == Shape{8, 16});
    REQUIRE(a.data.size() == 128);
    CHECK(a.data == b.data);
    float lo = 1, hi = -1;
    for (float v : a.data) {
        CHECK(v >= -0.5f);
        CHECK(v <= 0.5f);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    // Spread over the interval, not a constant: both halves are reached.
    CHECK(lo < -0.25f);
    CHECK(hi > 0.25f);
    TensorData other_seed = lit(R"({"random": {"shape": [8, 16], "seed": 8, "scale": 0.5}})");
    CHECK(other_seed.data != a.data);
    // Same generator whether written as a literal or called directly.
    CHECK(random_tensor({8, 16}, 7, 0.5).data == a.data);
    // The first values never change between versions and machines.
    TensorData again = random_tensor({8, 16}, 7, 0.5);
    CHECK(again.data[0] == a.data[0]);
    // Scale 0 gives zeros; scale stretches the same underlying draws.
    TensorData zero = lit(R"({"random": {"shape": [3], "seed": 1, "scale": 0}})");
    for (float v : zero.data) CHECK(v == 0.0f);
    TensorData unit = lit(R"({"random": {"shape": [8, 16], "seed": 7, "scale": 1.0}})");
    for (size_t i = 0; i < unit.data.size(); ++i) CHECK(unit.data[i] == doctest::Approx(2.0 * a.data[i]));

    CHECK(contains(literal_error(R"({"random": {"shape": [2], "seed": 1.5}})"), "seed"));
    CHECK(contains(literal_error(R"({"random": {"shape": [2], "scale": -1}})"), "scale"));
    CHECK(contains(literal_error(R"({"random": [2, 2]})"), "random"));
}

TEST_CASE("tensor literal: eye, full, arange") {
    TensorData e = lit(R"({"eye": 3})");
    CHECK(e.shape == Shape{3, 3});
    CHECK(e.data == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
    CHECK(contains(literal_error(R"({"eye": 0})"), "eye"));
    CHECK(contains(literal_error(R"({"eye": 2.5})"), "eye"));

    TensorData f = lit(R"({"full": {"shape": [2, 3], "value": 0.5}})");
    CHECK(f.shape == Shape{2, 3});
    CHECK(f.data == std::vector<float>(6, 0.5f));

    TensorData a = lit(R"({"arange": {"shape": [2, 3]}})");
    CHECK(a.shape == Shape{2, 3});
    CHECK(a.data == std::vector<float>{0, 1, 2, 3, 4, 5});
    TensorData a3 = lit(R"({"arange": {"shape": [2, 2, 2]}})");
    CHECK(a3.data == std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(contains(literal_error(R"({"arange": {}})"), "shape"));
    CHECK(contains(literal_error(R"({"arange": {"shape": [100000, 100000]}})"), "too large"));
}
