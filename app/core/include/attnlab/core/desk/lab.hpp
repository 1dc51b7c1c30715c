#pragma once
// attnlab's core objects, built in one place for every front end: where the
// learner's data lives, settings and language, the course, the workspace and
// progress, and the compiler and runner. The CLI and the GUI's Session both
// start from a Lab, so what attnlab finds and loads at start-up is decided
// here once.
#include <memory>
#include <string>
#include <vector>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/desk/workspace.hpp"

namespace attnlab {

class Lab {
public:
    struct Options {
        fs::path course_dir;    // empty: $ATTNLAB_COURSE, else the installed or source-tree course
        std::string lang_flag;  // "en"/"id" or empty
        Paths paths = Paths::from_environment();
    };
    explicit Lab(Options options);

    const Paths& paths() const { return paths_; }
    Settings& settings() { return settings_; }
    const Settings& settings() const { return settings_; }
    Lang lang() const { return lang_; }
    void set_lang(Lang lang);  // also stored in the settings (not saved)

    const Course& course() const { return course_; }
    bool course_loaded() const { return course_error_.empty(); }
    // Why the course as a whole could not be loaded (a broken manifest).
    const std::string& course_error() const { return course_error_; }
    // The exercise `id`; nullptr with `why` set (in the learner's language)
    // when it is unknown or its folder is broken (the loader's reason).
    const Exercise* find(const std::string& id, std::string* why = nullptr) const;

    Workspace& workspace() { return *workspace_; }
    const Workspace& workspace() const { return *workspace_; }
    ProgressStore& progress() { return progress_; }
    const ProgressStore& progress() const { return progress_; }
    // The compiler and runner, made on first use (listing the course needs neither).
    Runner& runner();

    // What the learner should be told about start-up: unreadable settings, a
    // corrupt progress file set aside; in the language of the moment.
    std::vector<std::string> startup_warnings() const;

private:
    Paths paths_;
    Settings settings_;
    Lang lang_ = Lang::En;
    Course course_;
    std::string course_error_;
    std::unique_ptr<Workspace> workspace_;
    ProgressStore progress_;
    std::unique_ptr<Compiler> compiler_;
    std::unique_ptr<Runner> runner_;
    std::vector<KeyedMessage> startup_warnings_;
};

}  // namespace attnlab
