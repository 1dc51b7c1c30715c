#include "attnlab/core/desk/session.hpp"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/protection_words.hpp"

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
    p.editor_fraction = static_cast<float>(number("editor_fraction", 0.15, 0.9, p.editor_fraction));
    p.kernel_editor_fraction = static_cast<float>(number("kernel_editor_fraction", 0.15, 0.9, p.kernel_editor_fraction));
    if (j.contains("gpu_arch") && j["gpu_arch"].is_string() && arch_limits(j["gpu_arch"].get<std::string>()))
        p.gpu_arch = j["gpu_arch"].get<std::string>();
    return p;
}

}  // namespace

Session::Session(Options options) : lab_(std::move(options)) {
    for (const std::string& warning : lab_.startup_warnings()) add_notice(warning);
    prefs_ = preferences_from(lab_.settings().extra_json);
    for (const auto& p : lab_.course().problems) add_notice(p);
    scheduler_ = std::make_unique<CheckScheduler>(lab_.runner());
}

Session::~Session() {
    if (editor_.dirty()) save();  // never lose the learner's code on the way out
    collect_finished();  // a check that finished meanwhile still counts
    if (scheduler_) scheduler_->cancel_all();
}

void Session::set_lang(Lang lang) {
    lab_.set_lang(lang);
    save_settings();
}

void Session::save_settings() {
    json j = json::parse(lab_.settings().extra_json, nullptr, false);
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
    j["editor_fraction"] = prefs_.editor_fraction;
    j["kernel_editor_fraction"] = prefs_.kernel_editor_fraction;
    j["gpu_arch"] = prefs_.gpu_arch;
    lab_.settings().extra_json = j.dump();
    try {
        lab_.settings().save(lab_.paths().settings_file());
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
    }
}

void Session::set_preferences(const Preferences& p) {
    prefs_ = p;
    save_settings();
}

std::string Session::continue_id() const {
    if (lab_.course().find(lab_.progress().last_exercise())) return lab_.progress().last_exercise();
    for (const auto& e : lab_.course().exercises)
        if (lab_.progress().get(e.id).status != ExerciseStatus::Passed) return e.id;
    return lab_.course().exercises.empty() ? "" : lab_.course().exercises.front().id;
}

bool Session::open(const std::string& id) {
    const Exercise* next = lab_.course().find(id);
    if (!next) return false;
    if (current_ && editor_.dirty() && !save()) return false;  // stay: the edits exist only here
    current_ = next;
    versions_stale_ = true;
    ++result_generation_;  // views must not show another exercise's result
    try {
        lab_.workspace().ensure_learner_file(*current_, lab_.lang());
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
    }
    load_buffer();
    lab_.progress().set_last_exercise(id);
    try {
        lab_.progress().save();
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
    }
    return true;
}

fs::path Session::file() const { return current_ ? lab_.workspace().learner_file(*current_) : fs::path(); }

void Session::load_buffer() { editor_.load(file()); }

const std::vector<LineMark>& Session::verdict_lines() const {
    if (lines_generation_ != result_generation_ || lines_lang_ != lang()) {
        const CheckResult* r = last_result();
        lines_ = r ? attnlab::verdict_lines(*r, file().string(), lang()) : std::vector<LineMark>{};
        lines_generation_ = result_generation_;
        lines_lang_ = lang();
    }
    return lines_;
}

bool Session::save(VersionReason reason) {
    if (!current_) return false;
    try {
        // Another program changed the file since we last read or wrote it:
        // keep its version beside ours, so saving never destroys anyone's work.
        if (auto disk = read_file(file()); disk && *disk != editor_.saved_text() && *disk != editor_.text()) {
            const fs::path kept = lab_.workspace().keep_copy(*current_, "disk", *disk);
            add_notice(tr(lang(), msg::gui_notice_kept_disk_version, {{"file", file().filename().string()}, {"kept", kept.string()}}));
        }
        lab_.workspace().save(*current_, editor_.text());
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
        return false;
    }
    editor_.mark_saved();
    ++saves_;
    keep_version(editor_.text(), reason);
    return true;
}

// A version the history could not keep (a full disk…) is told, never fatal:
// the file itself is saved, or the check runs.
void Session::keep_version(const std::string& text, VersionReason reason) {
    if (!current_) return;
    try {
        lab_.workspace().history().record(current_->id, text, reason);
    } catch (const std::exception& e) {
        add_notice(tr(lang(), msg::history_not_kept, {{"why", message_of(e).text(lang())}}));
    }
    versions_stale_ = true;
}

const std::vector<Version>& Session::versions() {
    if (versions_stale_) {
        versions_.clear();
        versions_stale_ = false;
        if (current_) {
            KeyedMessage warning;
            versions_ = lab_.workspace().history().list(current_->id, &warning);
            if (!warning.key.empty()) add_notice(warning.text(lang()));
        }
    }
    return versions_;
}

bool Session::restore_version(int number) {
    if (!current_) return false;
    if (editor_.dirty() && !save()) return false;  // the text on screen is a version before it is replaced
    try {
        lab_.workspace().restore(*current_, number);
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
        return false;
    }
    versions_stale_ = true;
    load_buffer();  // an undoable step in the editor
    return true;
}

fs::path Session::reset_to_starter() {
    if (!current_) return {};
    fs::path backup;
    if (editor_.dirty() && !save()) return {};  // the backup must hold what the learner last saw
    try {
        backup = lab_.workspace().reset(*current_, lab_.lang());
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
    }
    load_buffer();
    return backup;
}

void Session::keep_mine() { save(); }

void Session::take_disk() { load_buffer(); }

std::string Session::open_in_external_editor() {
    if (!current_) return "";
    if (editor_.dirty()) save();
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
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    std::string error;
    const int pid = spawn_detached(argv, &error);
    if (pid < 0) add_notice(tr(lang(), msg::gui_notice_cannot_start_editor, {{"command", command}, {"error", error}}));
    else editors_.push_back(pid);
    return command;
}

void Session::run_check() {
    if (!current_) return;
    // During a disk conflict the buffer is checked as it is, and the file is
    // left alone until the learner chooses which version to keep.
    if (editor_.dirty() && !editor_.conflict()) save();  // an unedited file is not rewritten (external editors watch it)
    editor_.seal_undo_step();  // typing after a check is a step of its own
    keep_version(editor_.text(), VersionReason::Checked);
    collect_finished();  // a result that arrived this frame is recorded before its job is replaced
    resources_job_.cancel();  // the check compiles this text for gpu_arch() itself
    scheduler_->start(*current_, editor_.text(), file().string(), prefs_.gpu_arch);
}

void Session::cancel_check() {
    if (auto job = current_job()) job->cancel();
}

std::shared_ptr<CheckJob> Session::current_job() const { return current_ ? scheduler_->current(current_->id) : nullptr; }

// Until its result is collected (poll), not only until the job is done: a
// job that finished between two polls would otherwise read as "not checking"
// beside the previous result.
bool Session::checking() const { return current_job() != nullptr; }

CheckProgress Session::check_progress() const {
    auto job = current_job();
    return job ? job->progress() : CheckProgress{Phase::Done, 0, 0};
}

int Session::hints_revealed() const { return current_ ? lab_.progress().get(current_->id).hints_revealed : 0; }

void Session::reveal_next_hint() {
    if (!current_) return;
    ExerciseProgress& p = lab_.progress().at(current_->id);
    p.hints_revealed = std::min(p.hints_revealed + 1, static_cast<int>(current_->hints.size()));
    try {
        lab_.progress().save();
    } catch (const std::exception& e) {
        add_notice(message_of(e).text(lang()));
    }
}

void Session::poll() {
    const auto now = std::chrono::steady_clock::now();
    editors_.erase(std::remove_if(editors_.begin(), editors_.end(), reap_if_exited), editors_.end());
    collect_finished();
    collect_recording();
    timing_.poll();
    collect_pending_resources();
    collect_comparison();
    const int resource_reports = resources_job_.generation();
    resources_job_.poll();
    if (resources_job_.generation() != resource_reports && resources_job_.result()->arch == prefs_.gpu_arch)
        resources_[resources_job_.result_key()] = resources_job_.result();
    if (!current_) return;
    // Look at the disk before autosaving, so an outside change is noticed
    // (and becomes a conflict) instead of being written over.
    poll_disk(now);
}

// A check's NVRTC report that finished after its verdict joins the result
// it belongs to (and the resource panel, for the chosen architecture).
void Session::collect_pending_resources() {
    for (auto& [id, r] : results_) {
        if (!r.resources_pending.valid() || !r.resources_ready()) continue;
        wait_for_resources(r);
        if (r.resources && r.resources->arch == prefs_.gpu_arch) resources_[id] = r.resources;
    }
}

void Session::collect_finished() {
    // Checks of every exercise, including one left while its check ran.
    for (const auto& job : scheduler_->take_finished()) {
        const CheckResult& r = job->result();
        if (r.verdict != Verdict::Cancelled) {
            try {
                lab_.progress().record_check(r.exercise_id, r);
            } catch (const std::exception& e) {
                add_notice(message_of(e).text(lang()));
            }
        }
        // Once per run of attnlab: which protections are off here, and why.
        if (r.ran())
            if (std::string notice = protections_notice_once(r.protections, lang()); !notice.empty()) add_notice(std::move(notice));
        // The resource panel keeps the newest report for the chosen architecture.
        if (r.resources && r.resources->arch == prefs_.gpu_arch) resources_[r.exercise_id] = r.resources;
        results_[r.exercise_id] = r;
        BlockRecordingRequest& checked = checked_[r.exercise_id];
        checked.source = job->source();
        checked.display_name = job->display_name();
        checked.gpu_arch = job->gpu_arch();
        recordings_.erase(r.exercise_id);  // they were of the previous result
        comparisons_.erase(r.exercise_id);
        if (version_run_ && version_run_->current_id == r.exercise_id) version_run_.reset();  // its job cancels as it goes
        if (recording_job_.running() && recording_job_.request().exercise.id == r.exercise_id) recording_job_.cancel();
        if (current_ && r.exercise_id == current_->id) ++result_generation_;
    }
}

std::vector<const Exercise*> Session::earlier_versions() const {
    return current_ ? attnlab::earlier_versions(course(), *current_) : std::vector<const Exercise*>{};
}

bool Session::compare_with(const std::string& earlier_id) {
    const CheckResult* r = last_result();
    const Exercise* earlier = course().find(earlier_id);
    if (!current_ || !r || version_run_ || !earlier || !same_kernel_interface(*earlier, *current_)) return false;
    const std::optional<Performance> perf = check_performance(*r, *current_);
    std::optional<std::string> text = own_work(*earlier);
    if (!perf || !text) return false;
    VersionRun run{current_->id, version_on_case(*earlier, *current_, perf->case_index), perf->case_index, nullptr};
    run.job = std::make_shared<CheckJob>(lab_.runner(), run.on_case, std::move(*text), lab_.workspace().learner_file(*earlier).string(),
                                         prefs_.gpu_arch);
    version_run_ = std::move(run);
    comparisons_.erase(current_->id);
    return true;
}

// A finished comparison run joins the result it was of, once both NVRTC
// reports are in (the estimates' occupancy needs them): never waits.
void Session::collect_comparison() {
    if (!version_run_ || !version_run_->job->done() || !version_run_->job->result().resources_ready()) return;
    const auto r = results_.find(version_run_->current_id);
    if (r != results_.end() && !r->second.resources_ready()) return;
    VersionRun run = std::move(*version_run_);
    version_run_.reset();
    const Exercise* current = course().find(run.current_id);
    if (r == results_.end() || !current || run.job->result().verdict == Verdict::Cancelled) return;
    comparisons_[run.current_id] = compare_versions(*current, r->second, run.on_case, run.job->result(), run.case_index);
}

bool Session::record_block(int case_index, size_t launch, uint64_t block) {
    const CheckResult* r = last_result();
    const auto checked = current_ ? checked_.find(current_->id) : checked_.end();
    if (!r || checked == checked_.end() || recording_job_.running()) return false;
    if (case_index < 0 || static_cast<size_t>(case_index) >= r->cases.size()) return false;
    BlockRecordingRequest request = checked->second;
    request.exercise = *current_;
    request.case_index = case_index;
    request.launch = launch;
    request.block = block;
    return recording_job_.start(lab_.runner(), std::move(request));
}

const BlockRecordingRequest* Session::recording_block() const {
    if (!current_ || !recording_job_.running() || recording_job_.request().exercise.id != current_->id) return nullptr;
    return &recording_job_.request();
}

const std::vector<BlockRecording>& Session::recorded_blocks() const {
    static const std::vector<BlockRecording> none;
    const auto it = current_ ? recordings_.find(current_->id) : recordings_.end();
    return it == recordings_.end() ? none : it->second;
}

void Session::collect_recording() {
    const std::string id = recording_job_.running() ? recording_job_.request().exercise.id : "";
    std::optional<BlockRecording> rec = recording_job_.take_finished();
    if (!rec) return;
    std::vector<BlockRecording>& list = recordings_[id];
    // A block asked for again (after a failed try) keeps only its newest recording.
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const BlockRecording& o) {
                                  return o.case_index == rec->case_index && o.launch == rec->launch && o.block == rec->block;
                              }),
               list.end());
    list.push_back(std::move(*rec));
    ++recordings_generation_;
}

void Session::poll_disk(std::chrono::steady_clock::time_point now) {
    switch (editor_.poll(now, prefs_.autosave)) {
        case EditorBuffer::DiskEvent::Reloaded:
            if (prefs_.auto_run_on_save) run_check();
            break;
        case EditorBuffer::DiskEvent::AutosaveDue:
            if (!save(VersionReason::Autosaved)) editor_.autosave_failed(now);
            break;
        case EditorBuffer::DiskEvent::None: break;
    }
}

bool Session::set_gpu_arch(const std::string& arch) {
    if (!arch_limits(arch)) return false;
    if (arch != prefs_.gpu_arch) {
        prefs_.gpu_arch = arch;
        save_settings();
    }
    if (current_ && current_->profile().resource_report)
        resources_job_.start(current_->id, editor_.text(), file().string(), arch, lab_.runner().compiler().cache_dir() / "tmp",
                             lab_.runner().compiler().toolchain().weak_sandbox_allowed);
    return true;
}

std::shared_ptr<const ResourceReport> Session::resources() const {
    auto it = current_ ? resources_.find(current_->id) : resources_.end();
    return it == resources_.end() ? nullptr : it->second;
}

const sandbox_status::Protections* Session::sandbox_protections() {
    if (!protections_probe_.valid())
        protections_probe_ = std::async(std::launch::async, probe_protections, lab_.runner().compiler().toolchain(), nullptr).share();
    if (protections_probe_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return nullptr;
    return &protections_probe_.get();
}

void Session::add_notice(std::string text) {
    if (std::find(notices_.begin(), notices_.end(), text) == notices_.end()) notices_.push_back(std::move(text));
}

}  // namespace attnlab
