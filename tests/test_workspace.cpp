// Where the learner's things live (Paths, Workspace), progress and settings
// files, the small helpers in util.hpp, and the message table. Every test uses
// a private temporary directory; environment variables are restored after use.
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "attnlab/core/desk/lab.hpp"

#include <doctest/doctest.h>

#include "test_support.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;
using nlohmann::json;

namespace {

const fs::path kValidCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "courses" / "valid";

// Saves the variables attnlab reads and restores them on destruction; starts
// from a clean slate (all unset) so the outer environment cannot leak in.
class EnvGuard {
public:
    EnvGuard() {
        for (const char* name : kNames) {
            const char* v = std::getenv(name);
            saved_[name] = v ? std::optional<std::string>(v) : std::nullopt;
            unsetenv(name);
        }
    }
    ~EnvGuard() {
        for (const auto& [name, value] : saved_) {
            if (value) setenv(name.c_str(), value->c_str(), 1);
            else unsetenv(name.c_str());
        }
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;
    static void set(const char* name, const std::string& value) { setenv(name, value.c_str(), 1); }
    static void unset(const char* name) { unsetenv(name); }

private:
    static constexpr const char* kNames[] = {"ATTNLAB_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "HOME",
                                             "ATTNLAB_LANG", "LC_ALL",        "LC_MESSAGES",    "LANG"};
    std::map<std::string, std::optional<std::string>> saved_;
};

Paths paths_in(const fs::path& root) {
    Paths p;
    p.data = root;
    p.cache = root / "cache";
    p.config = root / "config";
    return p;
}

const Exercise& fixture_exercise() {
    static const Course course = load_course(kValidCourse);
    const Exercise* e = course.find("mini-split");
    REQUIRE(e);
    return *e;
}

std::string slurp(const fs::path& p) {
    auto text = read_file(p);
    REQUIRE_MESSAGE(text, "cannot read " << p.string());
    return *text;
}

// Files in `dir`, leaving out progress.json.lock (the writers' lock file).
std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().filename() != "progress.json.lock") out.push_back(entry.path());
    return out;
}

std::vector<fs::path> files_containing(const fs::path& dir, const std::string& part) {
    std::vector<fs::path> out;
    for (const auto& p : files_in(dir))
        if (contains(p.filename().string(), part)) out.push_back(p);
    return out;
}

CheckResult result_with(Verdict v) {
    CheckResult r;
    r.verdict = v;
    return r;
}

std::set<std::string> placeholders(const std::string& text) {
    std::set<std::string> out;
    static const std::regex re(R"(\{[A-Za-z0-9_]+\})");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) out.insert(it->str());
    return out;
}

}  // namespace

// ---- Paths ------------------------------------------------------------------

TEST_CASE("Paths::from_environment: ATTNLAB_HOME holds everything") {
    EnvGuard env;
    TempDir tmp;
    EnvGuard::set("ATTNLAB_HOME", tmp.path().string());
    EnvGuard::set("XDG_DATA_HOME", "/xdg/data");  // ignored when ATTNLAB_HOME is set
    Paths p = Paths::from_environment();
    CHECK(p.data == tmp.path());
    CHECK(p.cache == tmp.path() / "cache");
    CHECK(p.config == tmp.path() / "config");
    CHECK(p.workspace() == tmp.path() / "workspace");
    CHECK(p.progress_file() == tmp.path() / "progress.json");
    CHECK(p.settings_file() == tmp.path() / "config" / "settings.json");

    // A relative ATTNLAB_HOME is made absolute.
    EnvGuard::set("ATTNLAB_HOME", "relative-home");
    Paths r = Paths::from_environment();
    CHECK(r.data.is_absolute());
    CHECK(r.data == fs::absolute("relative-home"));
}

TEST_CASE("Paths::from_environment: XDG variables, then HOME") {
    EnvGuard env;
    EnvGuard::set("HOME", "/home/learner");
    EnvGuard::set("XDG_DATA_HOME", "/xdg/data");
    EnvGuard::set("XDG_CACHE_HOME", "/xdg/cache");
    EnvGuard::set("XDG_CONFIG_HOME", "/xdg/config");
    Paths p = Paths::from_environment();
    CHECK(p.data == fs::path("/xdg/data/attnlab"));
    CHECK(p.cache == fs::path("/xdg/cache/attnlab"));
    CHECK(p.config == fs::path("/xdg/config/attnlab"));

    SUBCASE("unset XDG variables fall back to HOME") {
        EnvGuard::unset("XDG_DATA_HOME");
        EnvGuard::unset("XDG_CACHE_HOME");
        EnvGuard::unset("XDG_CONFIG_HOME");
        Paths h = Paths::from_environment();
        CHECK(h.data == fs::path("/home/learner/.local/share/attnlab"));
        CHECK(h.cache == fs::path("/home/learner/.cache/attnlab"));
        CHECK(h.config == fs::path("/home/learner/.config/attnlab"));
    }
    SUBCASE("relative XDG paths are ignored (the spec says so)") {
        EnvGuard::set("XDG_DATA_HOME", "relative/data");
        EnvGuard::set("XDG_CONFIG_HOME", "");
        Paths h = Paths::from_environment();
        CHECK(h.data == fs::path("/home/learner/.local/share/attnlab"));
        CHECK(h.cache == fs::path("/xdg/cache/attnlab"));
        CHECK(h.config == fs::path("/home/learner/.config/attnlab"));
    }
    SUBCASE("an empty ATTNLAB_HOME counts as unset") {
        EnvGuard::set("ATTNLAB_HOME", "");
        CHECK(Paths::from_environment().data == fs::path("/xdg/data/attnlab"));
    }
}

// ---- Workspace --------------------------------------------------------------

TEST_CASE("Workspace::ensure_learner_file copies the starter once and never overwrites") {
    TempDir tmp;
    Workspace ws(paths_in(tmp.path()));
    const Exercise& e = fixture_exercise();
    const std::string starter = slurp(e.starter_path());

    CHECK(ws.learner_file(e) == tmp.path() / "workspace" / "mini-split.cpp");
    CHECK_FALSE(fs::exists(ws.learner_file(e)));
    const fs::path p = ws.ensure_learner_file(e);
    CHECK(p == ws.learner_file(e));
    CHECK(slurp(p) == starter);

    write_file_atomic(p, "// my work\n");
    CHECK(ws.ensure_learner_file(e) == p);
    CHECK(slurp(p) == "// my work\n");
    // An empty file is the learner's too.
    write_file_atomic(p, "");
    ws.ensure_learner_file(e);
    CHECK(slurp(p).empty());
    // The starter itself was never touched.
    CHECK(slurp(e.starter_path()) == starter);
}

TEST_CASE("Workspace::own_work: the learner's file once it is no longer a starter (beat your v1 runs only their own kernels)") {
    TempDir tmp;
    Workspace ws(paths_in(tmp.path()));
    const Exercise& e = fixture_exercise();
    CHECK_FALSE(ws.own_work(e));  // no file yet
    ws.ensure_learner_file(e, Lang::Id);
    CHECK_FALSE(ws.own_work(e));  // the starter, in whichever language it was given
    ws.save(e, slurp(e.starter_path()));
    CHECK_FALSE(ws.own_work(e));
    ws.save(e, "// my kernel\n");
    REQUIRE(ws.own_work(e));
    CHECK(*ws.own_work(e) == "// my kernel\n");
}

TEST_CASE("Workspace::reset keeps a backup and restores the starter") {
    TempDir tmp;
    Workspace ws(paths_in(tmp.path()));
    const Exercise& e = fixture_exercise();
    const std::string starter = slurp(e.starter_path());

    SUBCASE("nothing to back up") {
        CHECK(ws.reset(e).empty());
        CHECK(slurp(ws.learner_file(e)) == starter);
        CHECK(files_containing(ws.paths().workspace(), ".bak-").empty());
    }
    SUBCASE("the old content is kept") {
        ws.save(e, "// attempt 1\n");
        const fs::path backup = ws.reset(e);
        REQUIRE_FALSE(backup.empty());
        CHECK(backup.parent_path() == ws.paths().workspace());
        CHECK(contains(backup.filename().string(), "mini-split.cpp.bak-"));
        CHECK(slurp(backup) == "// attempt 1\n");
        CHECK(slurp(ws.learner_file(e)) == starter);
    }
    SUBCASE("two resets in a row keep both backups") {
        ws.save(e, "// attempt 1\n");
        const fs::path b1 = ws.reset(e);
        ws.save(e, "// attempt 2\n");
        const fs::path b2 = ws.reset(e);
        REQUIRE_FALSE(b1.empty());
        REQUIRE_FALSE(b2.empty());
        CHECK(b1 != b2);
        CHECK(slurp(b1) == "// attempt 1\n");
        CHECK(slurp(b2) == "// attempt 2\n");
        CHECK(files_containing(ws.paths().workspace(), ".bak-").size() == 2);
        CHECK(slurp(ws.learner_file(e)) == starter);
    }
}

TEST_CASE("Workspace::save writes the buffer, creating the folder") {
    TempDir tmp;
    Workspace ws(paths_in(tmp.path() / "deep" / "er"));
    const Exercise& e = fixture_exercise();
    ws.save(e, "int x = 1;\n");
    CHECK(slurp(ws.learner_file(e)) == "int x = 1;\n");
    ws.save(e, "");
    CHECK(slurp(ws.learner_file(e)).empty());
    CHECK(files_in(ws.paths().workspace()).size() == 1);  // no temporary files left
}

// ---- ProgressStore ----------------------------------------------------------

TEST_CASE("ProgressStore: a missing file is empty progress, and a round trip keeps everything") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    ProgressStore store(file);
    CHECK(store.load().empty());
    CHECK(store.get("anything").status == ExerciseStatus::NotStarted);
    CHECK(store.get("anything").attempts == 0);
    CHECK(store.last_exercise().empty());

    ExerciseProgress& a = store.at("split-heads");
    a.status = ExerciseStatus::Passed;
    a.attempts = 4;
    a.hints_revealed = 2;
    a.last_verdict = "pass";
    a.last_check = 1700000000;
    a.passed_at = 1699999999;
    store.at("causal-mask").status = ExerciseStatus::Attempted;
    store.at("causal-mask").last_verdict = "wrong_shape";
    store.set_last_exercise("causal-mask");
    store.save();

    ProgressStore again(file);
    CHECK(again.load().empty());
    const ExerciseProgress& b = again.get("split-heads");
    CHECK(b.status == ExerciseStatus::Passed);
    CHECK(b.attempts == 4);
    CHECK(b.hints_revealed == 2);
    CHECK(b.last_verdict == "pass");
    CHECK(b.last_check == 1700000000);
    CHECK(b.passed_at == 1699999999);
    CHECK(again.get("causal-mask").status == ExerciseStatus::Attempted);
    CHECK(again.get("causal-mask").last_verdict == "wrong_shape");
    CHECK(again.last_exercise() == "causal-mask");

    const json j = json::parse(slurp(file));
    CHECK(j["version"] == 1);
    CHECK(j["exercises"]["split-heads"]["status"] == "passed");
    CHECK(files_in(tmp.path()).size() == 1);

    // load() replaces what was in memory.
    again.at("ghost").attempts = 9;
    CHECK(again.load().empty());
    CHECK(again.get("ghost").attempts == 0);
}

TEST_CASE("ProgressStore::record_check: attempted, then passed; cancelled is ignored") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    ProgressStore store(file);
    REQUIRE(store.load().empty());

    store.record_check("ex", result_with(Verdict::Cancelled));
    CHECK(store.get("ex").status == ExerciseStatus::NotStarted);
    CHECK(store.get("ex").attempts == 0);
    CHECK_FALSE(fs::exists(file));  // nothing recorded, nothing saved

    store.record_check("ex", result_with(Verdict::WrongAnswer));
    CHECK(store.get("ex").status == ExerciseStatus::Attempted);
    CHECK(store.get("ex").attempts == 1);
    CHECK(store.get("ex").last_verdict == "wrong_answer");
    CHECK(store.get("ex").last_check > 0);
    CHECK(store.get("ex").passed_at == 0);
    CHECK(store.last_exercise() == "ex");
    REQUIRE(fs::exists(file));  // recorded checks are saved at once

    store.record_check("ex", result_with(Verdict::CompileError));
    CHECK(store.get("ex").status == ExerciseStatus::Attempted);
    CHECK(store.get("ex").attempts == 2);
    CHECK(store.get("ex").last_verdict == "compile_error");

    store.record_check("ex", result_with(Verdict::Pass));
    CHECK(store.get("ex").status == ExerciseStatus::Passed);
    CHECK(store.get("ex").attempts == 3);
    CHECK(store.get("ex").last_verdict == "pass");
    const int64_t passed_at = store.get("ex").passed_at;
    CHECK(passed_at > 0);

    // A later failure does not take the pass away.
    store.record_check("ex", result_with(Verdict::Crash));
    CHECK(store.get("ex").status == ExerciseStatus::Passed);
    CHECK(store.get("ex").attempts == 4);
    CHECK(store.get("ex").last_verdict == "crash");
    CHECK(store.get("ex").passed_at == passed_at);

    store.record_check("ex", result_with(Verdict::Cancelled));
    CHECK(store.get("ex").attempts == 4);
    CHECK(store.get("ex").last_verdict == "crash");

    ProgressStore reloaded(file);
    CHECK(reloaded.load().empty());
    CHECK(reloaded.get("ex").status == ExerciseStatus::Passed);
    CHECK(reloaded.get("ex").attempts == 4);
    CHECK(reloaded.get("ex").last_verdict == "crash");
    CHECK(reloaded.get("ex").passed_at == passed_at);
    CHECK(reloaded.last_exercise() == "ex");
}

TEST_CASE("ProgressStore: a corrupt file is moved aside and progress starts empty") {
    const std::vector<std::pair<const char*, std::string>> corrupt = {
        {"garbage", std::string("\x89PNG\r\n\x1a\n not json at all \xff\xfe", 28)},
        {"wrong structure: an array", "[1, 2, 3]\n"},
        {"wrong structure: no version", R"({"exercises": {}})"},
        {"wrong structure: exercises is a list", R"({"version": 1, "exercises": ["split-heads"]})"},
        {"wrong structure: an entry is a number", R"({"version": 1, "exercises": {"split-heads": 3}})"},
        {"wrong types inside an entry", R"({"version": 1, "exercises": {"split-heads": {"attempts": "many"}}})"},
        {"truncated JSON", R"({"version": 1, "last_exercise": "split-heads", "exercises": {"split-heads": {"status": "pa)"},
        {"empty file", ""},
    };
    for (const auto& [label, content] : corrupt) {
        CAPTURE(label);
        TempDir tmp;
        const fs::path file = tmp.path() / "progress.json";
        write_file_atomic(file, content);
        ProgressStore store(file);
        store.at("stale").attempts = 5;
        const std::string message = store.load().text(Lang::En);
        CHECK_FALSE(message.empty());
        CHECK(contains(message, "progress.json"));
        CHECK(contains(message, ".corrupt-"));
        CHECK(store.get("stale").attempts == 0);
        CHECK(store.get("split-heads").status == ExerciseStatus::NotStarted);
        CHECK(store.last_exercise().empty());

        CHECK_FALSE(fs::exists(file));
        const auto aside = files_containing(tmp.path(), ".corrupt-");
        REQUIRE(aside.size() == 1);
        CHECK(contains(aside[0].filename().string(), "progress.json.corrupt-"));
        CHECK(contains(message, aside[0].filename().string()));
        CHECK(slurp(aside[0]) == content);

        // A following save works and loads cleanly.
        store.record_check("split-heads", result_with(Verdict::Pass));
        ProgressStore again(file);
        CHECK(again.load().empty());
        CHECK(again.get("split-heads").status == ExerciseStatus::Passed);
        CHECK(slurp(aside[0]) == content);  // the set-aside copy is left alone
    }
}

TEST_CASE("ProgressStore: two corrupt files in a row are both kept") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    write_file_atomic(file, "first garbage");
    ProgressStore store(file);
    CHECK_FALSE(store.load().empty());
    write_file_atomic(file, "second garbage");
    CHECK_FALSE(store.load().empty());
    const auto aside = files_containing(tmp.path(), ".corrupt-");
    REQUIRE(aside.size() == 2);
    std::set<std::string> contents;
    for (const auto& p : aside) contents.insert(slurp(p));
    CHECK(contents == std::set<std::string>{"first garbage", "second garbage"});
}

// ---- Settings and language --------------------------------------------------

TEST_CASE("Settings: round trip keeps unknown keys") {
    TempDir tmp;
    const fs::path file = tmp.path() / "config" / "settings.json";

    Settings none = Settings::load(file);
    CHECK_FALSE(none.language.has_value());

    write_file_atomic(file, R"({"language": "id", "gui": {"font_size": 14, "theme": "dark"}, "recent": ["a", "b"]})");
    KeyedMessage warning;
    Settings s = Settings::load(file, &warning);
    CHECK(warning.empty());
    REQUIRE(s.language.has_value());
    CHECK(*s.language == Lang::Id);

    s.language = Lang::En;
    s.save(file);
    const json saved = json::parse(slurp(file));
    CHECK(saved["language"] == "en");
    CHECK(saved["gui"]["font_size"] == 14);
    CHECK(saved["gui"]["theme"] == "dark");
    CHECK(saved["recent"] == json::array({"a", "b"}));

    Settings back = Settings::load(file);
    REQUIRE(back.language.has_value());
    CHECK(*back.language == Lang::En);
    CHECK(json::parse(back.extra_json)["gui"]["theme"] == "dark");

    // No language: the key is left out, the others stay.
    back.language.reset();
    back.save(file);
    const json without = json::parse(slurp(file));
    CHECK_FALSE(without.contains("language"));
    CHECK(without["recent"] == json::array({"a", "b"}));
    CHECK(files_in(file.parent_path()).size() == 1);
}

TEST_CASE("Settings: an unreadable file gives a warning and defaults") {
    TempDir tmp;
    const fs::path file = tmp.path() / "settings.json";
    write_file_atomic(file, "{\"language\": ");
    KeyedMessage warning;
    Settings s = Settings::load(file, &warning);
    CHECK_FALSE(warning.empty());
    CHECK(contains(warning.text(Lang::En), "settings.json"));
    // Worded when shown, in the language of the moment (Settings are read before it is known).
    CHECK(contains(warning.text(Lang::Id), "berkas pengaturan"));
    CHECK(contains(warning.text(Lang::Id), "settings.json"));
    CHECK_FALSE(s.language.has_value());

    write_file_atomic(file, R"({"language": "fr", "x": 1})");
    warning = {};
    Settings f = Settings::load(file, &warning);
    CHECK(warning.empty());
    CHECK_FALSE(f.language.has_value());  // unknown language: ignored
    CHECK(json::parse(f.extra_json)["x"] == 1);
}

TEST_CASE("Settings: an unreadable file is never written over; attnlab keeps it aside and says so in both languages") {
    TempDir tmp;
    Paths paths{tmp.path() / "data", tmp.path() / "cache", tmp.path() / "config"};
    const std::string broken = R"({"language": "id", "gui": {"font_size": 14}, "recent": [1, )";
    write_file_atomic(paths.settings_file(), broken);
    // Read alone (the CLI's doctor), the file is left as it is.
    Settings read_only = Settings::load(paths.settings_file());
    CHECK(read_only.unreadable);
    CHECK(slurp(paths.settings_file()) == broken);
    // Saving first keeps it aside, whoever saves.
    read_only.language = Lang::En;
    read_only.save(paths.settings_file());
    std::vector<fs::path> aside;
    for (const fs::path& f : files_in(paths.config))
        if (f.filename().string().rfind("settings.json.unreadable-", 0) == 0) aside.push_back(f);
    REQUIRE(aside.size() == 1);
    CHECK(slurp(aside[0]) == broken);
    CHECK(json::parse(slurp(paths.settings_file()))["language"] == "en");

    // The window and the CLI start from a Lab: it keeps the file aside at once and says where.
    write_file_atomic(paths.settings_file(), broken);
    Lab::Options options;
    options.paths = paths;
    options.course_dir = tmp.path() / "no-course";
    Lab lab(options);
    const std::vector<std::string> warnings = lab.startup_warnings();
    REQUIRE(warnings.size() == 1);
    CHECK(contains(warnings[0], "was kept as"));
    CHECK(contains(warnings[0], "settings.json.unreadable-"));
    lab.set_lang(Lang::Id);
    CHECK(contains(lab.startup_warnings()[0], "disimpan sebagai"));
    CHECK_FALSE(lab.settings().unreadable);
    lab.settings().save(paths.settings_file());  // defaults, in a fresh file
    size_t kept = 0;
    for (const fs::path& f : files_in(paths.config))
        if (f.filename().string().rfind("settings.json.unreadable-", 0) == 0) kept += slurp(f) == broken;
    CHECK(kept == 2);
}

TEST_CASE("parse_lang") {
    Lang l = Lang::Id;
    CHECK(parse_lang("en", l));
    CHECK(l == Lang::En);
    CHECK(parse_lang("id", l));
    CHECK(l == Lang::Id);
    CHECK(parse_lang("en_US.UTF-8", l));
    CHECK(l == Lang::En);
    CHECK(parse_lang("id_ID.UTF-8", l));
    CHECK(l == Lang::Id);
    CHECK(parse_lang("C", l));
    CHECK(l == Lang::En);
    l = Lang::Id;
    CHECK_FALSE(parse_lang("fr_FR.UTF-8", l));
    CHECK_FALSE(parse_lang("", l));
    CHECK(l == Lang::Id);  // untouched on failure
}

TEST_CASE("resolve_language: flag > ATTNLAB_LANG > settings > LC_ALL/LC_MESSAGES/LANG > English") {
    EnvGuard env;
    Settings with_id;
    with_id.language = Lang::Id;
    Settings with_en;
    with_en.language = Lang::En;
    Settings empty;

    CHECK(resolve_language("", empty) == Lang::En);

    EnvGuard::set("LANG", "id_ID.UTF-8");
    CHECK(resolve_language("", empty) == Lang::Id);
    CHECK(resolve_language("", with_en) == Lang::En);  // settings beat LANG
    EnvGuard::set("LC_MESSAGES", "en_GB.UTF-8");
    CHECK(resolve_language("", empty) == Lang::En);  // LC_MESSAGES beats LANG
    EnvGuard::set("LC_ALL", "id_ID.UTF-8");
    CHECK(resolve_language("", empty) == Lang::Id);  // LC_ALL beats both
    EnvGuard::set("LC_ALL", "fr_FR.UTF-8");
    CHECK(resolve_language("", empty) == Lang::En);  // the first locale set decides; unknown → English
    EnvGuard::unset("LC_ALL");
    EnvGuard::unset("LC_MESSAGES");

    CHECK(resolve_language("", with_en) == Lang::En);
    EnvGuard::set("ATTNLAB_LANG", "id");
    CHECK(resolve_language("", with_en) == Lang::Id);  // ATTNLAB_LANG beats settings
    EnvGuard::set("ATTNLAB_LANG", "en");
    CHECK(resolve_language("", with_id) == Lang::En);
    CHECK(resolve_language("id", with_en) == Lang::Id);  // the flag beats everything
    EnvGuard::set("ATTNLAB_LANG", "id");
    CHECK(resolve_language("en", with_id) == Lang::En);
    // An unusable ATTNLAB_LANG is skipped.
    EnvGuard::set("ATTNLAB_LANG", "klingon");
    CHECK(resolve_language("", with_id) == Lang::Id);
    CHECK(resolve_language("", empty) == Lang::Id);  // LANG=id_ID still set
}

// ---- util -------------------------------------------------------------------

TEST_CASE("write_file_atomic replaces the file and leaves no temporary files") {
    TempDir tmp;
    const fs::path file = tmp.path() / "sub" / "dir" / "out.txt";
    write_file_atomic(file, "one");
    CHECK(slurp(file) == "one");
    for (int i = 0; i < 20; ++i) write_file_atomic(file, std::string(static_cast<size_t>(1000 * i), 'x'));
    CHECK(slurp(file) == std::string(19000, 'x'));
    write_file_atomic(file, std::string("bin\0ary\n", 8));
    CHECK(slurp(file) == std::string("bin\0ary\n", 8));
    CHECK(files_in(file.parent_path()).size() == 1);
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0644);

    // Failure names the place.
    write_file_atomic(tmp.path() / "plain", "x");
    try {
        write_file_atomic(tmp.path() / "plain" / "inside.txt", "y");
        FAIL("write_file_atomic wrote below a regular file");
    } catch (const std::runtime_error& e) {
        CHECK(contains(e.what(), (tmp.path() / "plain").string()));
    }
    CHECK_FALSE(read_file(tmp.path() / "does-not-exist").has_value());
}

TEST_CASE("sanitize_utf8") {
    const std::string fffd = "\xEF\xBF\xBD";
    // Valid text passes through unchanged, including 2-, 3- and 4-byte forms and NUL.
    const std::string valid = "plain ASCII, h\xC3\xA9llo, \xE2\x9C\x93 check, \xF0\x9F\x98\x80 emoji, max \xF4\x8F\xBF\xBF";
    CHECK(sanitize_utf8(valid) == valid);
    CHECK(sanitize_utf8(std::string("a\0b", 3)) == std::string("a\0b", 3));
    CHECK(sanitize_utf8("").empty());

    // Invalid bytes become U+FFFD, one per bad byte; the rest is kept.
    CHECK(sanitize_utf8("a\xFF" "b") == "a" + fffd + "b");
    CHECK(sanitize_utf8("\x80") == fffd);                            // lone continuation byte
    CHECK(sanitize_utf8("x\xE2\x82") == "x" + fffd + fffd);          // truncated at the end
    CHECK(sanitize_utf8("\xE2(\xA1") == fffd + "(" + fffd);          // bad continuation
    CHECK(sanitize_utf8("\xC0\xAF") == fffd + fffd);                 // overlong '/'
    CHECK(sanitize_utf8("\xC1\xBF") == fffd + fffd);                 // overlong 0x7F
    CHECK(sanitize_utf8("\xE0\x80\xAF") == fffd + fffd + fffd);      // overlong, 3 bytes
    CHECK(sanitize_utf8("\xF0\x80\x80\xAF") == fffd + fffd + fffd + fffd);  // overlong, 4 bytes
    CHECK(sanitize_utf8("\xED\xA0\x80") == fffd + fffd + fffd);      // UTF-16 surrogate
    CHECK(sanitize_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd);  // above U+10FFFF
    CHECK(sanitize_utf8("\xF8\x88\x80\x80\x80") == fffd + fffd + fffd + fffd + fffd);

    // The result always serialises as JSON.
    const std::string mixed = "ok \xC3\xA9 \xFF\xFE \xC0\xAF \xE2\x9C";
    CHECK_NOTHROW(json(sanitize_utf8(mixed)).dump());
    CHECK_THROWS(json(mixed).dump());
}

TEST_CASE("format_text") {
    CHECK(format_text("Case {case}: {count} of {total}", {{"case", "3"}, {"count", "2"}, {"total", "8"}}) == "Case 3: 2 of 8");
    CHECK(format_text("{a}{a}{b}", {{"a", "x"}, {"b", "y"}}) == "xxy");
    CHECK(format_text("unknown {nope} stays", {{"a", "x"}}) == "unknown {nope} stays");
    CHECK(format_text("lone { and } and {}", {}) == "lone { and } and {}");
    CHECK(format_text("unclosed {a", {{"a", "x"}}) == "unclosed {a");
    // Values are inserted verbatim, never expanded again.
    CHECK(format_text("{a}", {{"a", "{b}"}, {"b", "no"}}) == "{b}");
    CHECK(format_text("", {{"a", "x"}}).empty());
    CHECK(format_text("{a} ✓ {b}", {{"a", "é"}, {"b", ""}}) == "é ✓ ");
}

TEST_CASE("hash64 is FNV-1a: fixed known values") {
    CHECK(hash64("") == 0xcbf29ce484222325ull);
    CHECK(hash64("a") == 0xaf63dc4c8601ec8cull);
    CHECK(hash64("foobar") == 0x85944171f73967e8ull);
    CHECK(hash64("foobar") == hash64(std::string("foobar")));
    CHECK(hash64("a", 0) != hash64("a"));
    CHECK(hex64(0xaf63dc4c8601ec8cull) == "af63dc4c8601ec8c");
    CHECK(hex64(1) == "0000000000000001");
    CHECK(hex64(hash64("")) == "cbf29ce484222325");
}

TEST_CASE("format_number") {
    CHECK(format_number(0.5) == "0.5");
    CHECK(format_number(0) == "0");
    CHECK(format_number(-0.0) == "0");
    CHECK(format_number(7) == "7");
    CHECK(format_number(0.33149) == "0.3315");
    CHECK(format_number(-std::numeric_limits<double>::infinity()) == "-inf");
    CHECK(format_number(std::numeric_limits<double>::quiet_NaN()) == "NaN");
    CHECK(format_number(1e-5) == "1.000e-05");
}

// ---- messages ---------------------------------------------------------------

TEST_CASE("messages: every key has English and Indonesian text with the same placeholders") {
    const std::vector<std::string> keys = message_keys();
    REQUIRE(keys.size() > 20);
    std::set<std::string> unique(keys.begin(), keys.end());
    CHECK(unique.size() == keys.size());  // no key defined twice
    for (const auto& key : keys) {
        CAPTURE(key);
        CHECK(has_message(Lang::En, key));
        CHECK(has_message(Lang::Id, key));
        const std::string& en = tr(Lang::En, built_key(key));
        const std::string& id = tr(Lang::Id, built_key(key));
        CHECK_FALSE(en.empty());
        CHECK_FALSE(id.empty());
        CHECK(en != key);
        CHECK(placeholders(en) == placeholders(id));
        CHECK(sanitize_utf8(en) == en);
        CHECK(sanitize_utf8(id) == id);
    }
    // An unknown key shows itself rather than failing.
    CHECK(tr(Lang::En, built_key("no.such.key")) == "no.such.key");
    CHECK_FALSE(has_message(Lang::Id, "no.such.key"));
    // Placeholders are filled in.
    CHECK(tr(Lang::En, msg::cli_hint_title, {{"n", "2"}, {"count", "3"}}) == "Hint 2 of 3");
    CHECK(tr(Lang::Id, msg::cli_hint_title, {{"n", "2"}, {"count", "3"}}) == "Petunjuk 2 dari 3");
}

// ---- crash safety -----------------------------------------------------------

TEST_CASE("killing a writer mid-save never leaves a torn progress or learner file") {
    TempDir tmp;
    const Paths paths = paths_in(tmp.path());
    const Exercise& e = fixture_exercise();
    Workspace ws(paths);

    // Two progress versions of different sizes, and two learner files.
    ProgressStore big(paths.progress_file());
    ProgressStore small(paths.progress_file());
    for (int i = 0; i < 3000; ++i) {
        ExerciseProgress& p = big.at("exercise-" + std::to_string(i));
        p.status = ExerciseStatus::Attempted;
        p.attempts = i;
        p.last_verdict = "wrong_answer";
        p.last_check = 1700000000 + i;
    }
    big.set_last_exercise("exercise-7");
    for (int i = 0; i < 40; ++i) small.at("other-" + std::to_string(i)).status = ExerciseStatus::Passed;
    small.set_last_exercise("other-1");

    const std::string learner_a = "// version A\n" + std::string(400000, 'a') + "\n";
    const std::string learner_b = "// version B\n" + std::string(90000, 'b') + "\n";

    small.save();
    const std::string small_text = slurp(paths.progress_file());
    big.save();
    const std::string big_text = slurp(paths.progress_file());
    REQUIRE(big_text.size() > 200000);
    REQUIRE(small_text.size() < big_text.size() / 10);
    ws.save(e, learner_a);

    const int rounds = 8;
    int changed = 0;
    for (int round = 0; round < rounds; ++round) {
        CAPTURE(round);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            // Child: write in a tight (but bounded) loop until killed.
            try {
                // write_file_atomic is what ProgressStore::save writes with (after
                // merging, which would make the content unpredictable here).
                for (int i = 0; i < 200000; ++i) {
                    if (i % 2 == 0) {
                        write_file_atomic(paths.progress_file(), small_text);
                        ws.save(e, learner_b);
                    } else {
                        write_file_atomic(paths.progress_file(), big_text);
                        ws.save(e, learner_a);
                    }
                }
            } catch (...) {
                _exit(3);
            }
            _exit(0);
        }
        // Wait until the child has really written (the file changes), so the
        // kill lands in the middle of a stream of writes, then a few ms more.
        const auto before = fs::last_write_time(paths.progress_file());
        for (int i = 0; i < 120000 && fs::last_write_time(paths.progress_file()) == before; ++i) usleep(1000);  // bound: a hang guard only
        CHECK(fs::last_write_time(paths.progress_file()) != before);
        usleep(static_cast<useconds_t>(500 + 1500 * round));  // different each round
        kill(pid, SIGKILL);
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        // Killed, or (on a very slow machine) finished its bounded loop cleanly.
        CHECK((WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0)));

        const std::string progress = slurp(paths.progress_file());
        const bool is_known_progress = progress == big_text || progress == small_text;
        CHECK_MESSAGE(is_known_progress, "torn progress file of " << progress.size() << " bytes");
        CHECK(json::accept(progress));
        ProgressStore check(paths.progress_file());
        CHECK(check.load().empty());

        const std::string learner = slurp(ws.learner_file(e));
        const bool is_known_learner = learner == learner_a || learner == learner_b;
        CHECK_MESSAGE(is_known_learner, "torn learner file of " << learner.size() << " bytes");
        if (progress == small_text) ++changed;
    }
    // No leftover corrupt-file copies: nothing was ever unreadable.
    CHECK(files_containing(tmp.path(), ".corrupt-").empty());
    MESSAGE("rounds ending on the small version: " << changed << " of " << rounds);
}

// ---- files anyone could have written (issue 21) ------------------------------

TEST_CASE("Settings: 60 000 nested arrays are a warning, not a stack overflow") {
    TempDir tmp;
    const fs::path file = tmp.path() / "settings.json";
    write_file_atomic(file, "{\"language\": \"id\", \"x\": " + std::string(60000, '[') + std::string(60000, ']') + "}");
    KeyedMessage warning;
    const Settings s = Settings::load(file, &warning);
    CHECK(contains(warning.text(Lang::En), "nested deeper"));
    CHECK(contains(warning.text(Lang::Id), "bersarang lebih dalam dari 64 tingkat"));
    CHECK_FALSE(s.language.has_value());
    // Deep nesting inside a string is only text.
    write_file_atomic(file, "{\"language\": \"id\", \"x\": \"" + std::string(60000, '[') + "\"}");
    warning = {};
    const Settings text = Settings::load(file, &warning);
    CHECK(warning.empty());
    CHECK(text.language == Lang::Id);
}

TEST_CASE("a failed write says so in the learner's language; what() names the step, the path and the system's reason") {
    TempDir tmp;
    write_file_atomic(tmp.path() / "plain", "a file, not a folder");
    try {
        write_file_atomic(tmp.path() / "plain" / "inside.json", "{}");
        FAIL("writing under a file must fail");
    } catch (const std::exception& e) {
        // The base layer words nothing: its error is data, and what() the system's view.
        CHECK(std::string(e.what()) == "create_folder " + (tmp.path() / "plain").string() + ": " + std::strerror(ENOTDIR));
        const KeyedMessage m = message_of(e);
        CHECK(m.key == msg::io_create_folder);
        CHECK(contains(m.text(Lang::En), "cannot create the folder"));
        CHECK(contains(m.text(Lang::En), "plain"));
        CHECK(contains(m.text(Lang::Id), "tidak dapat membuat folder"));
        CHECK_FALSE(contains(m.text(Lang::Id), "ATTNLAB_HOME"));  // not a permission problem: no such hint
    }
    // Any other exception is shown as it is.
    CHECK(message_of(std::runtime_error("raw words")).text(Lang::Id) == "raw words");
}

TEST_CASE("Settings: a file over 1 MB is not read") {
    TempDir tmp;
    const fs::path file = tmp.path() / "settings.json";
    write_file_atomic(file, "{\"language\": \"id\", \"pad\": \"" + std::string(2u << 20, 'x') + "\"}");
    KeyedMessage warning;
    const Settings s = Settings::load(file, &warning);
    CHECK(contains(warning.text(Lang::En), "larger than"));
    CHECK_FALSE(s.language.has_value());
}

TEST_CASE("Settings: the weak-sandbox opt-in is read, kept, and only true when it says true") {
    TempDir tmp;
    const fs::path file = tmp.path() / "settings.json";
    write_file_atomic(file, R"({"allow_weak_sandbox": true})");
    Settings s = Settings::load(file);
    CHECK(s.allow_weak_sandbox);
    s.language = Lang::En;
    s.save(file);
    CHECK(json::parse(slurp(file))["allow_weak_sandbox"] == true);
    for (const char* text : {R"({"allow_weak_sandbox": "yes"})", R"({"allow_weak_sandbox": 1})", R"({})"}) {
        write_file_atomic(file, text);
        CHECK_FALSE(Settings::load(file).allow_weak_sandbox);
    }
}

TEST_CASE("ProgressStore: numbers out of range make the file unreadable, never a wrapped count") {
    for (const char* value : {"1e300", "-1", "2147483648", "1.5", "\"7\"", "18446744073709551616"}) {
        CAPTURE(value);
        TempDir tmp;
        const fs::path file = tmp.path() / "progress.json";
        write_file_atomic(file, std::string(R"({"version": 1, "exercises": {"ex": {"status": "attempted", "attempts": )") + value + "}}}");
        ProgressStore store(file);
        CHECK(contains(store.load().text(Lang::En), "unreadable"));
        CHECK(store.get("ex").attempts == 0);
        CHECK(files_containing(tmp.path(), ".corrupt-").size() == 1);
    }
}

TEST_CASE("ProgressStore: a 92 MB or deeply nested file is put aside at once") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    std::string huge = R"({"version": 1, "exercises": {)";
    for (int i = 0; huge.size() < (92u << 20); ++i)
        huge += (i ? ",\"" : "\"") + std::to_string(i) + std::string(R"(": {"status": "passed", "attempts": 3, "pad": ")") + std::string(400, 'x') + "\"}";
    write_file_atomic(file, huge + "}}");
    ProgressStore store(file);
    const auto t0 = std::chrono::steady_clock::now();
    CHECK(contains(store.load().text(Lang::En), "larger than"));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    write_file_atomic(file, R"({"version": 1, "exercises": {}, "x": )" + std::string(100000, '[') + std::string(100000, ']') + "}");
    CHECK(contains(store.load().text(Lang::En), "nested deeper"));
}

TEST_CASE("ProgressStore: keys of a newer attnlab are kept") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    write_file_atomic(file, R"({"version": 1, "streak": {"days": 4}, "exercises": {"ex": {"status": "attempted", "attempts": 2, "notes": "mine"}}})");
    ProgressStore store(file);
    REQUIRE(store.load().empty());
    store.record_check("ex", result_with(Verdict::WrongAnswer));
    const json j = json::parse(slurp(file));
    CHECK(j["streak"]["days"] == 4);
    CHECK(j["exercises"]["ex"]["notes"] == "mine");
    CHECK(j["exercises"]["ex"]["attempts"] == 3);
}

TEST_CASE("ProgressStore: concurrent checks add their attempts, none is lost") {
    TempDir tmp;
    const fs::path file = tmp.path() / "progress.json";
    {
        ProgressStore seed(file);
        seed.load();
        seed.record_check("ex", result_with(Verdict::WrongAnswer));
    }
    // Two stores loaded at the same moment (the window and `attnlab watch`).
    ProgressStore a(file), b(file);
    a.load();
    b.load();
    a.record_check("ex", result_with(Verdict::WrongAnswer));
    b.record_check("ex", result_with(Verdict::CompileError));
    b.record_check("ex", result_with(Verdict::CompileError));
    ProgressStore after(file);
    after.load();
    CHECK(after.get("ex").attempts == 4);
    // Four processes at once.
    std::vector<pid_t> kids;
    for (int i = 0; i < 4; ++i) {
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            ProgressStore mine(file);
            mine.load();
            usleep(20000);  // all four have loaded before any saves
            try {
                mine.record_check("ex", result_with(Verdict::WrongAnswer));
            } catch (...) {
                _exit(1);
            }
            _exit(0);
        }
        kids.push_back(pid);
    }
    for (pid_t pid : kids) {
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
    }
    after.load();
    CHECK(after.get("ex").attempts == 8);
}

TEST_CASE("ProgressStore: a check that could not judge the learner's code (an internal error) is no attempt") {
    TempDir tmp;
    ProgressStore store(tmp.path() / "progress.json");
    store.load();
    store.record_check("ex", result_with(Verdict::InternalError));
    CHECK(store.get("ex").attempts == 0);
    CHECK(store.get("ex").status == ExerciseStatus::NotStarted);
}

TEST_CASE("a folder attnlab may not write says \"permission\"") {
    TempDir tmp;
    fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec);
    const fs::path home = tmp.path() / "home";
    fs::create_directories(home);
    fs::permissions(home, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);  // read-only for everyone but root
    // Root writes anywhere: the check runs as `nobody` then.
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (::getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        int failures = 0;
        try {
            ProgressStore store(home / "data" / "progress.json");
            store.load();
            store.record_check("ex", result_with(Verdict::WrongAnswer));
            failures |= 1;  // it should have thrown
        } catch (const std::exception& e) {  // in the words a person reads (message_of), the hint included
            if (message_of(e).text(Lang::En).find("no permission to write there") == std::string::npos) failures |= 2;
        }
        try {
            Workspace(paths_in(home)).save(fixture_exercise(), "text");
            failures |= 4;
        } catch (const std::exception& e) {
            const std::string words = message_of(e).text(Lang::En);
            if (words.find("no permission to write there") == std::string::npos || words.find("No such file") != std::string::npos) failures |= 8;
        }
        _exit(failures);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
