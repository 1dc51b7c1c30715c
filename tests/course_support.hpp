#pragma once
// What the tests of the real course's data share: where the course is, its
// exercises and their metadata, a case's inputs by name, and the checker's own
// comparison (so a test never re-decides what "agrees" means).
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/runner.hpp"

namespace attnlab::testing {

inline const fs::path kCourse = (fs::path(ATTNLAB_TEST_FIXTURES) / ".." / ".." / "exercises").lexically_normal();

// The verdict codes a fixture may expect.
inline const std::set<std::string> kVerdicts = {"pass",          "wrong_answer",  "wrong_shape",   "non_finite",
                                                "compile_error", "missing_entry", "runtime_error", "crash",
                                                "timeout",       "memory_limit",  "output_limit",  "modified_input"};

inline nlohmann::json read_json(const fs::path& path) {
    std::ifstream in(path);
    REQUIRE_MESSAGE(in.good(), "cannot read " << path);
    return nlohmann::json::parse(in);
}

inline const Course& course() {
    static const Course c = load_course(kCourse);
    return c;
}

inline const Exercise& exercise(const std::string& id) {
    const Exercise* e = course().find(id);
    if (!e)
        for (const std::string& p : course().problems) MESSAGE(p);
    REQUIRE_MESSAGE(e != nullptr, id << " did not load from " << kCourse);
    return *e;
}

// The mistake ids exercise.json lists (read from the file, not the loader).
inline std::vector<std::string> listed_mistakes(const std::string& id) {
    const nlohmann::json j = read_json(kCourse / id / "exercise.json");
    REQUIRE_MESSAGE(j.contains("mistakes"), id);
    return j["mistakes"].get<std::vector<std::string>>();
}

inline std::map<std::string, Value> inputs_of(const Exercise& e, const Case& c) { return case_inputs(e, c); }

// Would the checker accept `actual` where `expected` is the answer? The
// checker's own rule: within tolerance, infinities equal, NaN only where the
// other side has NaN too (two variants that both give NaN agree).
inline bool agree(const Value& actual, const Value& expected, const Tolerance& tol) {
    return compare_values(actual, expected, tol, 0).verdict == Verdict::Pass;
}

}  // namespace attnlab::testing
