#include "attnlab/core/session.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "attnlab/core/install_layout.hpp"
#include "attnlab/core/util.hpp"

extern char** environ;

namespace attnlab {

using nlohmann::json;

namespace {


Preferences preferences_from(const std::string& extra_json) {
    Preferences p;
    json j = json::parse(extra_json, nullptr, false);
    if (!j.is_object()) return p;
    auto number = [&](const char* key, double lo, double hi, double fallback) {
        if (!j.contains(key) || !j[key].is_number()) return fallback;
        return std::clamp(j[key].get<double>(), lo, hi);
    };
    auto boolean = [&](const char* key, bool fallback) { return j.contains(key) && j[key].is_boolean() ? j[key].get<bool>() : fallback; };
    p.font_size = static_cast<float>(number("font_size", 10, 32, p.font_size));
    p.ui_scale = static_cast<float>(number("ui_scale", 0.75, 3, p.ui_scale));
    p.tab_width = static_cast<int>(number("tab_width", 1, 8, p.tab_width));
    p.dark_theme = boolean("dark_theme", p.dark_theme);
    p.auto_run_on_save = boolean("auto_run_on_save", p.auto_run_on_save);
    p.autosave = boolean("autosave", p.autosave);
    if (j.contains("layout_ini") && j["layout_ini"].is_string()) p.layout_ini = j["layout_ini"].get<std::string>();
    p.course_width = static_cast<float>(number("course_width", 80, 4000, p.course_width));
    p.statement_width = static_cast<float>(number("statement_width", 80, 4000, p.statement_width));
    p.results_height = static_cast<float>(number("results_height", 40, 4000, p.results_height));
    return p;
}

}  // namespace

Session::Session(Options options) : paths_(options.paths), progress_(paths_.progress_file()) {
    std::string warning;
    settings_ = Settings::load(paths_.settings_file(), &warning);
    if (!warning.empty()) add_notice(warning);
    prefs_ = preferences_from(settings_.extra_json);
    lang_ = resolve_language(options.lang_flag, settings_);
    try {
        course_ = load_course(resolve_course_dir(options.course_dir));
        for (const auto& p : course_.problems) add_notice(p);
    } catch (const CourseError& e) {
        course_error_ = e.what();
    }
    workspace_ = std::make_unique<Workspace>(paths_);
    if (std::string recovered = progress_.load(); !recovered.empty()) add_notice(recovered);
    compiler_ = std::make_unique<Compiler>(Toolchain::detect(), paths_.cache);
    runner_ = std::make_unique<Runner>(*compiler_);
    scheduler_ = std::make_unique<CheckScheduler>(*runner_);
}

Session::~Session() {
    if (dirty_) save();  // never lose the learner's code on the way out
    collect_finished();  // a check that finished meanwhile still counts
    if (scheduler_) scheduler_->cancel_all();
}

void Session::set_lang(Lang lang) {
    lang_ = lang;
    settings_.language = lang;
    save_settings();
}

void Session::save_settings() {
    json j = json::parse(settings_.extra_json, nullptr, false);
    if (!j.is_object()) j = json::object();
    j["font_size"] = prefs_.font_size;
    j["ui_scale"] = prefs_.ui_scale;
    j["tab_width"] = prefs_.tab_width;
    j["dark_theme"] = prefs_.dark_theme;
    j["auto_run_on_save"] = prefs_.auto_run_on_save;
    j["autosave"] = prefs_.autosave;
    j["layout_ini"] = prefs_.layout_ini;
    j["course_width"] = prefs_.course_width;
    j["statement_width"] = prefs_.statement_width;
    j["results_height"] = prefs_.results_height;
    settings_.extra_json = j.dump();
    try {
        settings_.save(paths_.settings_file());
    } catch (const std::exception& e) {
        add_notice(e.what());
    }
}

void Session::set_preferences(const Preferences& p) {
    prefs_ = p;
    save_settings();
}

std::string Session::continue_id() const {
    if (course_.find(progress_.last_exercise())) return progress_.last_exercise();
    for (const auto& e : course_.exercises)
        if (progress_.get(e.id).status != ExerciseStatus::Passed) return e.id;
    return course_.exercises.empty() ? "" : course_.exercises.front().id;
}

bool Session::open(const std::string& id) {
    const Exercise* next = course_.find(id);
    if (!next) return false;
    if (current_ && dirty_ && !save()) return false;  // stay: the edits exist only here
    current_ = next;
    ++result_generation_;  // views must not show another exercise's result
    conflict_ = false;
    try {
        workspace_->ensure_learner_file(*current_);
    } catch (const std::exception& e) {
        add_notice(e.what());
    }
    load_buffer();
    progress_.set_last_exercise(id);
    try {
        progress_.save();
    } catch (const std::exception& e) {
        add_notice(e.what());
    }
    return true;
}

fs::path Session::file() const { return current_ ? workspace_->learner_file(*current_) : fs::path(); }

std::optional<fs::file_time_type> Session::disk_time() const {
    std::error_code ec;
    auto t = fs::last_write_time(file(), ec);
    if (ec) return std::nullopt;
    return t;
}

void Session::load_buffer() {
    buffer_ = read_file(file()).value_or("");
    saved_text_ = buffer_;
    dirty_ = false;
    disk_time_ = disk_time();
    ++buffer_generation_;
}

void Session::mark_edited() {
    dirty_ = buffer_ != saved_text_;
    last_edit_ = std::chrono::steady_clock::now();
}

bool Session::save() {
    if (!current_) return false;
    try {
        // Another program changed the file since we last read or wrote it:
        // keep its version beside ours, so saving never destroys anyone's work.
        if (auto disk = read_file(file()); disk && *disk != saved_text_ && *disk != buffer_) {
            const fs::path kept = workspace_->keep_copy(*current_, "disk", *disk);
            add_notice(file().filename().string() + " had changed on disk; that version was kept as " + kept.string());
        }
        workspace_->save(*current_, buffer_);
    } catch (const std::exception& e) {
        add_notice(e.what());
        return false;
    }
    saved_text_ = buffer_;
    dirty_ = false;
    conflict_ = false;
    disk_time_ = disk_time();
    return true;
}

fs::path Session::reset_to_starter() {
    if (!current_) return {};
    fs::path backup;
    if (dirty_ && !save()) return {};  // the backup must hold what the learner last saw
    try {
        backup = workspace_->reset(*current_);
    } catch (const std::exception& e) {
        add_notice(e.what());
    }
    load_buffer();
    return backup;
}

void Session::keep_mine() { save(); }

void Session::take_disk() {
    load_buffer();
    conflict_ = false;
}

std::string Session::open_in_external_editor() {
    if (!current_) return "";
    if (dirty_) save();
    std::string editor;
    for (const char* var : {"VISUAL", "EDITOR"})
        if (const char* v = std::getenv(var); v && *v) {
            editor = v;
            break;
        }
    std::vector<std::string> argv;
    if (editor.empty()) {
        argv = {"xdg-open"};
    } else {  // $EDITOR may carry arguments ("code -w")
        size_t pos = 0;
        while (pos < editor.size()) {
            size_t end = editor.find(' ', pos);
            if (end == std::string::npos) end = editor.size();
            if (end > pos) argv.push_back(editor.substr(pos, end - pos));
            pos = end + 1;
        }
    }
    argv.push_back(file().string());
    std::vector<char*> cargs;
    for (auto& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    pid_t pid;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);  // detached: closing attnlab leaves the editor open
    int rc = posix_spawnp(&pid, cargs[0], nullptr, &attr, cargs.data(), environ);
    posix_spawnattr_destroy(&attr);
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    if (rc != 0) add_notice("cannot start " + command);
    else editors_.push_back(pid);  // reaped in poll(), by pid: never waitpid(-1), the runner waits for its own children
    return command;
}

void Session::run_check() {
    if (!current_) return;
    // During a disk conflict the buffer is checked as it is, and the file is
    // left alone until the learner chooses which version to keep.
    if (dirty_ && !conflict_) save();  // an unedited file is not rewritten (external editors watch it)
    collect_finished();  // a result that arrived this frame is recorded before its job is replaced
    jobs_[current_->id] = scheduler_->start(*current_, buffer_, file().string());
}

void Session::cancel_check() {
    if (auto job = current_job()) job->cancel();
}

std::shared_ptr<CheckJob> Session::current_job() const {
    auto it = current_ ? jobs_.find(current_->id) : jobs_.end();
    return it == jobs_.end() ? nullptr : it->second;
}

bool Session::checking() const {
    auto job = current_job();
    return job && !job->done();
}

CheckProgress Session::check_progress() const {
    auto job = current_job();
    return job ? job->progress() : CheckProgress{Phase::Done, 0, 0};
}

int Session::hints_revealed() const { return current_ ? progress_.get(current_->id).hints_revealed : 0; }

void Session::reveal_next_hint() {
    if (!current_) return;
    ExerciseProgress& p = progress_.at(current_->id);
    p.hints_revealed = std::min(p.hints_revealed + 1, static_cast<int>(current_->hints.size()));
    try {
        progress_.save();
    } catch (const std::exception& e) {
        add_notice(e.what());
    }
}

void Session::poll() {
    const auto now = std::chrono::steady_clock::now();
    editors_.erase(std::remove_if(editors_.begin(), editors_.end(), [](pid_t p) { return waitpid(p, nullptr, WNOHANG) != 0; }),
                   editors_.end());
    collect_finished();
    if (!current_) return;
    // Look at the disk before autosaving, so an outside change is noticed
    // (and becomes a conflict) instead of being written over.
    poll_disk(now);
}

void Session::collect_finished() {
    // Checks of every exercise, including one left while its check ran.
    for (auto it = jobs_.begin(); it != jobs_.end();) {
        if (!it->second->done()) {
            ++it;
            continue;
        }
        const CheckResult& r = it->second->result();
        if (r.verdict != Verdict::Cancelled) {
            try {
                progress_.record_check(r.exercise_id, r);
            } catch (const std::exception& e) {
                add_notice(e.what());
            }
        }
        results_[r.exercise_id] = r;
        if (current_ && r.exercise_id == current_->id) ++result_generation_;
        it = jobs_.erase(it);
    }
}

void Session::poll_disk(std::chrono::steady_clock::time_point now) {
    // After a failed save (full disk, read-only folder) wait before trying again.
    const bool autosave_due = prefs_.autosave && dirty_ && now - last_edit_ > kAutosaveDelay && now >= autosave_retry_at_;
    if (autosave_due || now - last_disk_poll_ > kDiskPollInterval) {
        last_disk_poll_ = now;
        ++disk_checks_;
        auto t = disk_time();
        if (t && t != disk_time_) {
            auto text = read_file(file());
            disk_time_ = t;
            if (text && *text != saved_text_) {
                if (!dirty_) {
                    buffer_ = saved_text_ = *text;
                    ++buffer_generation_;
                    if (prefs_.auto_run_on_save) run_check();
                } else {
                    conflict_ = true;
                }
            }
        }
    }
    if (autosave_due && !conflict_) {
        // mtimes can be too coarse to see a quick outside write: compare content.
        auto disk = read_file(file());
        if (disk && *disk != saved_text_ && *disk != buffer_) conflict_ = true;
        else if (!save()) autosave_retry_at_ = now + std::chrono::seconds(10);
    }
}

void Session::add_notice(std::string text) {
    if (std::find(notices_.begin(), notices_.end(), text) == notices_.end()) notices_.push_back(std::move(text));
}

}  // namespace attnlab
