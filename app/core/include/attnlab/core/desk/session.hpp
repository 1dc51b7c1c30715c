#pragma once
// A learner's session at the desk: the open exercise, the editor buffer and its
// file, background checks, hints, progress and preferences. This is what the
// GUI's panels read and command; it has no GUI code in it, so it is tested
// headlessly and could drive any front end.
#include <chrono>
#include <future>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/desk/block_recording.hpp"
#include "attnlab/core/check/kernel_versions.hpp"
#include "attnlab/core/desk/check_job.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/editor_buffer.hpp"
#include "attnlab/core/views/experiments.hpp"
#include "attnlab/core/desk/lab.hpp"
#include "attnlab/core/views/learner_view.hpp"
#include "attnlab/core/desk/resource_job.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/desk/workspace.hpp"

namespace attnlab {

namespace fs = std::filesystem;

// Preferences the GUI persists (in settings.json, beside the language).
struct Preferences {
    float font_size = 16.0f;
    float ui_scale = 1.0f;
    int tab_width = 4;
    bool dark_theme = true;
    bool auto_run_on_save = false;
    bool autosave = true;
    std::string layout_ini;  // Dear ImGui's window layout, stored as text
    float course_width = 230.0f;     // pane sizes (pixels at scale 1)
    float statement_width = 440.0f;
    float results_height = 340.0f;  // older settings only: the split is editor_fraction now
    float editor_fraction = 0.6f;    // the editor's share of the centre column's height
    float kernel_editor_fraction = 0.3f;  // the same while a CUDA exercise's Kernel tab shows (it needs the room)
    std::string gpu_arch = kDefaultGpuArch;  // the CUDA resource panel's architecture
};

class Session {
public:
    using Options = Lab::Options;
    explicit Session(Options options);
    ~Session();

    // ---- course and language ------------------------------------------------
    const Course& course() const { return lab_.course(); }
    bool course_loaded() const { return lab_.course_loaded(); }
    const std::string& course_error() const { return lab_.course_error(); }
    // Warnings for the learner (corrupt progress file, unreadable settings…).
    const std::vector<std::string>& notices() const { return notices_; }
    void dismiss_notices() { notices_.clear(); }
    void add_notice(std::string text);  // the same text is not added twice
    Lang lang() const { return lab_.lang(); }
    void set_lang(Lang lang);
    ExerciseStatus status(const std::string& id) const { return lab_.progress().get(id).status; }
    const ExerciseProgress& progress(const std::string& id) const { return lab_.progress().get(id); }

    // ---- the open exercise and its file ---------------------------------------
    const Exercise* current() const { return current_; }
    // Saves the buffer of the exercise being left, then loads `id`'s file
    // (created from the starter on first open). False for an unknown id.
    bool open(const std::string& id);
    // The exercise to continue with: the last one opened, else the first not passed.
    std::string continue_id() const;
    fs::path file() const;
    // The editor edits this string directly; call mark_edited() after a change.
    std::string& buffer() { return editor_.text(); }
    const std::string& buffer() const { return editor_.text(); }
    void mark_edited() { editor_.mark_edited(); }
    bool dirty() const { return editor_.dirty(); }
    // Undo and redo of the open file, reaching every edit of this session
    // (typing, a select-all deletion, a reset, a restored version…): the
    // buffer changes and the offset where the cursor belongs is returned;
    // nullopt when there is nothing to undo or redo.
    std::optional<size_t> undo() { return editor_.undo(); }
    std::optional<size_t> redo() { return editor_.redo(); }
    bool can_undo() const { return editor_.can_undo(); }
    bool can_redo() const { return editor_.can_redo(); }
    // Bumped whenever the buffer is replaced from outside the editor (another
    // exercise, a reload, a reset): an editor widget holding its own copy must
    // drop it then.
    int buffer_generation() const { return editor_.generation(); }
    // Atomic save of the buffer, kept as a version in the exercise's history
    // too. Returns false (and adds a notice) on failure.
    bool save(VersionReason reason = VersionReason::Saved);
    // How many saves succeeded in this session (scripted drivers wait on it).
    int saves() const { return saves_; }
    // Restores the starter (keeps a backup of the file) and reloads the buffer.
    fs::path reset_to_starter();

    // The open exercise's versions (every save and check), oldest first;
    // read again after refresh_versions() or when this session kept one.
    const std::vector<Version>& versions();
    void refresh_versions() { versions_stale_ = true; }
    // Puts version `number` back in the editor and the file, keeping the
    // current text as a version first; the editor's undo can take it back.
    // False (with a notice saying why) when it could not.
    bool restore_version(int number);

    // The file changed on disk (another editor). With no unsaved edits it is
    // reloaded silently; with unsaved edits the GUI must ask: keep_mine() or
    // take_disk().
    bool disk_conflict() const { return editor_.conflict(); }
    // How often poll() has looked at the file on disk (about every
    // kDiskPollInterval, and when an autosave is due): tests wait on it instead
    // of sleeping.
    int disk_checks() const { return editor_.disk_checks(); }
    static constexpr std::chrono::milliseconds kAutosaveDelay = EditorBuffer::kAutosaveDelay;
    static constexpr std::chrono::milliseconds kDiskPollInterval = EditorBuffer::kDiskPollInterval;
    void keep_mine();   // overwrite the file with the buffer
    void take_disk();   // drop the edits, load the file
    // $VISUAL, $EDITOR, else xdg-open; runs detached. Returns the command line used.
    std::string open_in_external_editor();

    // ---- checks -----------------------------------------------------------------
    // Saves, then checks the buffer in the background (cancelling a running one).
    void run_check();
    void cancel_check();
    bool checking() const;  // a check of the current exercise is running, or its result is not collected yet
    CheckProgress check_progress() const;
    // The latest finished check of the current exercise (nullptr when none yet).
    const CheckResult* last_result() const {
        auto it = current_ ? results_.find(current_->id) : results_.end();
        return it == results_.end() ? nullptr : &it->second;
    }
    // Bumped each time a new result arrives: views rebuild caches when it changes.
    int result_generation() const { return result_generation_; }

    // ---- the Kernel view's blocks recorded after the check -------------------------
    // Re-runs the latest result's program (as it was checked; the binary is
    // cached) with only block `block` of launch `launch` of case `case_index`
    // traced, in the background. False when there is no such result or a
    // recording is running.
    bool record_block(int case_index, size_t launch, uint64_t block);
    // The recording running for the current exercise's latest result, if any.
    const BlockRecordingRequest* recording_block() const;
    // Finished recordings of the latest result (cleared when a new one arrives).
    const std::vector<BlockRecording>& recorded_blocks() const;
    // Bumped when a recording arrives: the Kernel view rebuilds its blocks and
    // keeps its selection (result_generation() would reset every view).
    int recordings_generation() const { return recordings_generation_; }

    // ---- beat your v1 (check/kernel_versions.hpp) -----------------------------------
    // The exercises before the current one whose kernels take the same
    // tensors and give the same output, in course order.
    std::vector<const Exercise*> earlier_versions() const;
    // The learner's own file of `exercise` (nullopt: missing or still a starter).
    std::optional<std::string> own_work(const Exercise& exercise) const { return lab_.workspace().own_work(exercise); }
    // Runs the learner's file of `earlier_id` on the case the current
    // exercise's latest performance report is of, in the background. False
    // when there is no such case, no work of theirs, it is not a version of
    // the current exercise, or a comparison is running.
    bool compare_with(const std::string& earlier_id);
    // A comparison of the current exercise is running.
    bool comparing() const { return version_run_ && current_ && version_run_->current_id == current_->id; }
    // The earlier exercise being run (empty when none).
    std::string comparing_with() const { return version_run_ ? version_run_->on_case.id : std::string(); }
    // The comparison with the current exercise's latest result (nullptr when
    // none; a new result of the exercise clears it).
    const VersionComparison* comparison() const {
        const auto it = current_ ? comparisons_.find(current_->id) : comparisons_.end();
        return it == comparisons_.end() ? nullptr : &it->second;
    }

    // ---- the learner's own work ---------------------------------------------------
    // The lines of the open file the latest check names (compiler diagnostics,
    // a kernel fault and its racing access), worded in the session's language.
    const std::vector<LineMark>& verdict_lines() const;

    // ---- hints --------------------------------------------------------------------
    int hints_revealed() const;
    void reveal_next_hint();

    // ---- experiments ----------------------------------------------------------------
    // Times the Q/K/V projections per head against fused, in the background.
    // False when one is running or the sizes do not divide.
    bool measure_projections(int tokens, int d_model, int heads) { return timing_.start(tokens, d_model, heads); }
    bool measuring_projections() const { return timing_.running(); }
    const std::optional<ProjectionTiming>& projection_timing() const { return timing_.result(); }
    bool projection_timing_failed() const { return timing_.failed(); }

    // ---- the CUDA resource panel -------------------------------------------------------
    // The GPU architecture NVRTC's figures are for (checks use it too); persisted.
    const std::string& gpu_arch() const { return prefs_.gpu_arch; }
    // Stores `arch` (one of known_gpu_archs(); anything else is refused: false)
    // and, for an open CUDA exercise, compiles its buffer again for it with
    // NVRTC in the background. Re-choosing the same one recomputes too.
    bool set_gpu_arch(const std::string& arch);
    // NVRTC is compiling the current file: for another architecture, or a
    // check's report that its verdict did not wait for.
    bool computing_resources() const {
        const CheckResult* r = last_result();
        return resources_job_.running() || (r && !r->resources_ready());
    }
    // The current exercise's newest resource report for gpu_arch(): from the
    // last check or a later recomputation (nullptr when there is neither).
    std::shared_ptr<const ResourceReport> resources() const;

    // What learner programs run under here: probed once, in the background (one
    // sandboxed run of /bin/true), so asking never waits; nullptr until known.
    const sandbox_status::Protections* sandbox_protections();

    // ---- preferences ----------------------------------------------------------------
    const Preferences& preferences() const { return prefs_; }
    void set_preferences(const Preferences& p);  // saved at once
    fs::path preferences_file() const { return lab_.paths().settings_file(); }
    fs::path exports_dir() const { return lab_.paths().data / "exports"; }

    // Call once per frame (cheap): collects finished checks, notices disk
    // changes, autosaves after a pause in typing, runs auto-run-on-save.
    void poll();

    // For tests: the runner this session uses.
    Runner& runner() { return lab_.runner(); }

private:
    void load_buffer();
    void keep_version(const std::string& text, VersionReason reason);
    void collect_finished();
    void collect_pending_resources();
    void poll_disk(std::chrono::steady_clock::time_point now);
    void save_settings();
    std::shared_ptr<CheckJob> current_job() const;

    Lab lab_;
    std::vector<std::string> notices_;
    Preferences prefs_;
    std::unique_ptr<CheckScheduler> scheduler_;
    ProjectionTimingJob timing_;
    ResourceJob resources_job_;
    std::map<std::string, std::shared_ptr<const ResourceReport>> resources_;  // per exercise id
    std::shared_future<sandbox_status::Protections> protections_probe_;

    const Exercise* current_ = nullptr;
    EditorBuffer editor_;
    std::vector<int> editors_;  // pids of external editors we started
    std::map<std::string, CheckResult> results_;  // the latest finished check of each exercise
    // What produced each result (source, file name, architecture), and the
    // blocks recorded for it since.
    std::map<std::string, BlockRecordingRequest> checked_;
    std::map<std::string, std::vector<BlockRecording>> recordings_;
    BlockRecordingJob recording_job_;
    int recordings_generation_ = 0;
    void collect_recording();
    // Beat your v1: the earlier kernel's run, and per exercise the comparison
    // with its latest result.
    struct VersionRun {
        std::string current_id;
        Exercise on_case;  // version_on_case(): the earlier exercise on one case of the current one
        int case_index = -1;
        std::shared_ptr<CheckJob> job;
    };
    std::optional<VersionRun> version_run_;
    std::map<std::string, VersionComparison> comparisons_;
    void collect_comparison();
    int result_generation_ = 0;
    int saves_ = 0;
    std::vector<Version> versions_;  // versions(): of current_, unless stale
    bool versions_stale_ = true;
    mutable std::vector<LineMark> lines_;  // verdict_lines() for (lines_generation_, lines_lang_)
    mutable int lines_generation_ = -1;
    mutable Lang lines_lang_ = Lang::En;
};

}  // namespace attnlab
