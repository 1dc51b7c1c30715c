#include "commands.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/check/gpu_resources.hpp"

#include "attnlab/core/desk/check_job.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/desk/lab.hpp"
#include "attnlab/core/check/kernel_versions.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/text/version_words.hpp"
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "attnlab/core/text/protection_words.hpp"
#include "attnlab/reference/registry.hpp"
#include "gui.hpp"  // GuiOptions only; the window itself is linked when built

namespace attnlab::cli {
namespace {

using nlohmann::json;

// ---- help -------------------------------------------------------------------

// The help of attnlab ("") and of each command, by the command's name.
const std::map<std::string, MessageKey>& help_texts() {
    static const std::map<std::string, MessageKey> h = {
        {"", msg::cli_help_general},
        {"list", msg::cli_help_list},
        {"show", msg::cli_help_show},
        {"check", msg::cli_help_check},
        {"hint", msg::cli_help_hint},
        {"solution", msg::cli_help_solution},
        {"reset", msg::cli_help_reset},
        {"history", msg::cli_help_history},
        {"restore", msg::cli_help_restore},
        {"watch", msg::cli_help_watch},
        {"compare", msg::cli_help_compare},
        {"doctor", msg::cli_help_doctor},
        {"dev", msg::cli_help_dev},
    };
    return h;
}

// ---- options and context ----------------------------------------------------

struct Options {
    std::string lang_flag;
    std::string course_dir;
    bool json = false;
    bool help = false;
    std::string gpu_arch = kDefaultGpuArch;  // --arch: the resource report of CUDA exercises
    bool force = false;
    bool yes = false;
    std::vector<std::string> positional;
    // GUI (attnlab with no command)
    bool gui_flags = false;
    gui::GuiOptions gui;
};

[[noreturn]] void usage_error(const std::string& text) {
    std::cerr << "attnlab: " << text << "\n(attnlab --help)\n";
    std::exit(kExitUsage);
}

// The language of what is said before the course is loaded (the options, the
// help): --lang, else what Lab would choose from the settings and environment.
Lang early_language(const std::string& lang_flag) {
    return resolve_language(lang_flag, Settings::load(Paths::from_environment().settings_file()));
}

[[noreturn]] void usage_error(const std::string& lang_flag, MessageKey key, const std::map<std::string, std::string>& args = {}) {
    usage_error(tr(early_language(lang_flag), key, args));
}

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const std::string& name) -> std::string {
            if (i + 1 >= args.size()) usage_error(o.lang_flag, msg::cli_usage_needs_value, {{"option", name}});
            return args[++i];
        };
        if (a == "--lang") o.lang_flag = value(a);
        else if (a.rfind("--lang=", 0) == 0) o.lang_flag = a.substr(7);
        else if (a == "--course") o.course_dir = value(a);
        else if (a.rfind("--course=", 0) == 0) o.course_dir = a.substr(9);
        else if (a == "--json") o.json = true;
        else if (a == "--arch") o.gpu_arch = value(a);
        else if (a.rfind("--arch=", 0) == 0) o.gpu_arch = a.substr(7);
        else if (a == "--help" || a == "-h") o.help = true;
        else if (a == "--force") o.force = true;
        else if (a == "--yes" || a == "-y") o.yes = true;
        else if (a == "--exercise") o.gui.exercise = value(a), o.gui_flags = true;
        else if (a == "--run") o.gui.run = o.gui_flags = true;
        else if (a == "--screenshot") o.gui.screenshot = value(a), o.gui_flags = true;
        else if (a == "--quit-after") o.gui.quit_after = std::atoi(value(a).c_str()), o.gui_flags = true;
        else if (a == "--timing") o.gui.timing = o.gui_flags = true;
        else if (a == "--tab") o.gui.tab = value(a), o.gui_flags = true;
        else if (a == "--show") o.gui.show = value(a), o.gui_flags = true;
        else if (a == "--view") o.gui.view = value(a), o.gui_flags = true;
        else if (a == "--compare") o.gui.compare = value(a), o.gui_flags = true;
        else if (a == "--size") {
            const std::string v = value(a);
            if (std::sscanf(v.c_str(), "%dx%d", &o.gui.width, &o.gui.height) != 2 || o.gui.width < 320 || o.gui.height < 240) usage_error(o.lang_flag, msg::cli_usage_size);
            o.gui_flags = true;
        }
        else if (a.size() > 1 && a[0] == '-') usage_error(o.lang_flag, msg::cli_usage_unknown_option, {{"option", a}});
        else o.positional.push_back(a);
    }
    if (!arch_limits(o.gpu_arch)) {
        std::string known;
        for (const std::string& a : known_gpu_archs()) known += (known.empty() ? "" : ", ") + a;
        usage_error(o.lang_flag, msg::cli_usage_arch, {{"archs", known}});
    }
    if (!o.lang_flag.empty()) {
        Lang l;
        if (!parse_lang(o.lang_flag, l) || (o.lang_flag != "en" && o.lang_flag != "id")) usage_error(o.lang_flag, msg::cli_usage_lang);
    }
    return o;
}

struct Context {
    Options opt;
    Lang lang = Lang::En;
    std::unique_ptr<Lab> lab;  // the core objects, built in setup()

    const std::string& t(MessageKey key) const { return tr(lang, key); }
    std::string t(MessageKey key, const std::map<std::string, std::string>& args) const { return tr(lang, key, args); }

    // The exercise `id`, or exit with why there is none (unknown, or the
    // loader's reason when its folder is broken).
    // An error that ended a step, in the learner's language (a keyed error's
    // words, a failed file operation's, else the exception's own text).
    void say_error(const std::exception& e) const { std::cerr << "attnlab: " << message_of(e).text(lang) << "\n"; }

    const Exercise& exercise(const std::string& id) const {
        std::string why;
        const Exercise* e = lab->find(id, &why);
        if (!e) {
            std::cerr << "attnlab: " << why << "\n";
            std::exit(kExitUsage);
        }
        return *e;
    }
};

int setup(Context& ctx) {
    ctx.lab = std::make_unique<Lab>(Lab::Options{ctx.opt.course_dir, ctx.opt.lang_flag});
    ctx.lang = ctx.lab->lang();
    for (const std::string& warning : ctx.lab->startup_warnings())
        std::cerr << ctx.t(msg::cli_progress_recovered, {{"message", warning}}) << "\n";
    if (!ctx.lab->course_loaded()) {
        std::cerr << "attnlab: " << ctx.t(msg::cli_course_problem, {{"message", ctx.lab->course_error()}}) << "\n";
        return kExitUsage;
    }
    return kExitOk;
}

void save_progress(Context& ctx) {
    try {
        ctx.lab->progress().save();
    } catch (const std::exception& e) {
        ctx.say_error(e);
    }
}

std::string status_label(const Context& ctx, ExerciseStatus s) { return ctx.t(built_key(std::string("cli.status.") + status_code(s))); }

std::string rule() { return std::string(60, '-'); }

// ---- commands ---------------------------------------------------------------

int cmd_list(Context& ctx) {
    int passed = 0;
    for (const auto& e : ctx.lab->course().exercises)
        if (ctx.lab->progress().get(e.id).status == ExerciseStatus::Passed) ++passed;
    if (ctx.opt.json) {
        json j;
        j["language"] = lang_code(ctx.lang);
        j["exercises"] = json::array();
        for (size_t i = 0; i < ctx.lab->course().exercises.size(); ++i) {
            const Exercise& e = ctx.lab->course().exercises[i];
            const ExerciseProgress& p = ctx.lab->progress().get(e.id);
            json topics = json::array();
            for (const auto& t : e.topics) topics.push_back(ctx.lab->course().topic_label(t, ctx.lang));
            j["exercises"].push_back({{"position", i + 1}, {"id", e.id}, {"title", e.title.get(ctx.lang)}, {"topics", topics},
                                      {"status", status_code(p.status)}, {"attempts", p.attempts}});
        }
        j["problems"] = ctx.lab->course().problems;
        std::cout << j.dump(2) << "\n";
        return ctx.lab->course().problems.empty() ? kExitOk : kExitUsage;
    }
    std::cout << ctx.t(msg::cli_list_header, {{"passed", std::to_string(passed)}, {"total", std::to_string(ctx.lab->course().exercises.size())}})
              << "\n\n";
    const Exercise* next = nullptr;
    for (size_t i = 0; i < ctx.lab->course().exercises.size(); ++i) {
        const Exercise& e = ctx.lab->course().exercises[i];
        const ExerciseProgress& p = ctx.lab->progress().get(e.id);
        const char* mark = p.status == ExerciseStatus::Passed ? "[x]" : p.status == ExerciseStatus::Attempted ? "[~]" : "[ ]";
        if (!next && p.status != ExerciseStatus::Passed) next = &e;
        std::string topics;
        for (const auto& t : e.topics) topics += (topics.empty() ? "" : ", ") + ctx.lab->course().topic_label(t, ctx.lang);
        std::printf("%2zu. %s %-16s %s\n       %s · %s\n", i + 1, mark, e.id.c_str(), e.title.get(ctx.lang).c_str(),
                    status_label(ctx, p.status).c_str(), topics.c_str());
    }
    for (const auto& problem : ctx.lab->course().problems) std::cout << "\n! " << ctx.t(msg::cli_list_broken, {{"problem", problem}}) << "\n";
    if (next) {
        std::cout << "\n"
                  << ctx.t(msg::cli_list_next, {{"id", next->id}, {"file", ctx.lab->workspace().learner_file(*next).string()}}) << "\n";
    }
    return ctx.lab->course().problems.empty() ? kExitOk : kExitUsage;
}

int cmd_show(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error(ctx.t(msg::cli_usage_show));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const fs::path file = ctx.lab->workspace().ensure_learner_file(e, ctx.lang);
    ctx.lab->progress().set_last_exercise(e.id);
    save_progress(ctx);
    if (ctx.opt.json) {
        json params = json::array();
        for (const auto& p : e.params) params.push_back({{"name", p.name}, {"kind", value_kind_name(p.kind)}, {"shape", p.shape}});
        json j = {{"id", e.id},
                  {"title", e.title.get(ctx.lang)},
                  {"statement", e.statement.get(ctx.lang)},
                  {"signature", e.signature()},
                  {"params", params},
                  {"returns", {{"kind", value_kind_name(e.returns.kind)}, {"shape", e.returns.shape}}},
                  {"file", file.string()},
                  {"hints", e.hints.size()},
                  {"cases", e.cases.size()},
                  {"status", status_code(ctx.lab->progress().get(e.id).status)}};
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    std::cout << "# " << e.title.get(ctx.lang) << "  [" << e.id << "]\n\n" << e.statement.get(ctx.lang) << "\n" << rule() << "\n";
    std::cout << ctx.t(msg::cli_show_signature) << "\n    " << e.signature() << "\n";
    for (const auto& p : e.params)
        if (!p.shape.empty()) std::cout << "    // " << p.name << ": " << p.shape << "\n";
    if (!e.returns.shape.empty()) std::cout << "    // -> " << e.returns.shape << "\n";
    std::cout << "\n" << ctx.t(msg::cli_show_file, {{"file", file.string()}}) << "\n";
    std::cout << ctx.t(msg::cli_show_hints, {{"count", std::to_string(e.hints.size())}, {"id", e.id}}) << "\n";
    return kExitOk;
}

// The verdict first; NVRTC's report (and the occupancy it gives the
// performance report) when NVRTC has finished, which may be later.
void print_result(Context& ctx, const Exercise& e, CheckResult& r) {
    if (ctx.opt.json) {
        wait_for_resources(r);
        std::cout << to_json(r, e, ctx.lang).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
        return;
    }
    // Learner output, exception texts and compiler lines are already escaped
    // by the core; the whole text once more, so nothing in it can drive the terminal.
    std::cout << inert_text(explain(r, e, ctx.lang)) << std::endl;
    wait_for_resources(r);
    if (const std::string resources = explain_resources(r, ctx.lang); !resources.empty()) std::cout << inert_text(resources) << "\n";
    if (const std::optional<Performance> perf = check_performance(r, e)) std::cout << "\n" << describe_performance(*perf, ctx.lang) << "\n";
    std::cout << "\n"
              << ctx.t(msg::cli_check_timing, {{"compile", format_count(static_cast<int64_t>(r.compile_ms), ctx.lang)},
                                            {"cached", r.compile_cached ? ctx.t(msg::cli_check_cached) : ""},
                                            {"run", format_count(static_cast<int64_t>(r.run_ms), ctx.lang)},
                                            {"total", format_count(static_cast<int64_t>(r.total_ms), ctx.lang)}})
              << "\n";
    if (r.passed()) std::cout << ctx.t(msg::cli_check_next, {{"id", e.id}}) << "\n";
    else if (r.verdict != Verdict::Cancelled && r.verdict != Verdict::InternalError) std::cout << ctx.t(msg::cli_check_stuck, {{"id", e.id}}) << "\n";
    // Every verdict of a program that ran with a protection off (the user's
    // opt-in allowed it) says which, and why.
    if (r.ran())
        if (const std::string notice = protections_notice(r.protections, ctx.lang); !notice.empty()) std::cerr << notice << "\n";
}

fs::path file_argument(Context& ctx, const Exercise& e) {
    if (ctx.opt.positional.size() >= 3) {
        fs::path f = ctx.opt.positional[2];
        // A regular file of at most kMaxSourceBytes: never a device (/dev/zero reads
        // for ever), a FIFO (blocks for ever) or a folder.
        std::error_code ec;
        const fs::file_status st = fs::status(f, ec);
        if (ec == std::errc::permission_denied) usage_error(ctx.t(msg::cli_usage_no_permission, {{"file", f.string()}}));
        if (!fs::exists(st)) usage_error(ctx.t(msg::cli_usage_no_such_file, {{"file", f.string()}}));
        if (!fs::is_regular_file(st)) usage_error(ctx.t(msg::cli_usage_not_regular_file, {{"file", f.string()}}));
        const auto size = fs::file_size(f, ec);
        if (!ec && size > kMaxSourceBytes)
            usage_error(ctx.t(msg::cli_check_source_too_large, {{"file", f.string()}, {"limit", whole_megabytes(kMaxSourceBytes)},
                                                             {"size", format_count(static_cast<int64_t>(size), ctx.lang)}}));
        if (::access(f.c_str(), R_OK) != 0) usage_error(ctx.t(msg::cli_usage_no_permission, {{"file", f.string()}}));
        return f;
    }
    return ctx.lab->workspace().ensure_learner_file(e, ctx.lang);
}

// A check of the learner's own file keeps its text as a version (a file
// given on the command line is not theirs to keep); a history that cannot
// be written is told, never fatal.
void keep_checked_version(Context& ctx, const Exercise& e, const fs::path& file, const std::string* text = nullptr) {
    if (file != ctx.lab->workspace().learner_file(e)) return;
    const std::optional<std::string> read = text ? std::optional<std::string>(*text) : read_file(file);
    if (!read) return;
    try {
        ctx.lab->workspace().history().record(e.id, *read, VersionReason::Checked);
    } catch (const std::exception& ex) {
        std::cerr << "attnlab: " << ctx.t(msg::history_not_kept, {{"why", message_of(ex).text(ctx.lang)}}) << "\n";
    }
}

int cmd_check(Context& ctx) {
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error(ctx.t(msg::cli_usage_check));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const fs::path file = file_argument(ctx, e);
    if (!ctx.opt.json) std::cerr << ctx.t(msg::cli_check_checking, {{"file", file.string()}}) << "\n";
    CheckControl control;
    control.gpu_arch = ctx.opt.gpu_arch;
    keep_checked_version(ctx, e, file);
    CheckResult r = ctx.lab->runner().check(e, file, control);
    try {
        ctx.lab->progress().record_check(e.id, r);
    } catch (const std::exception& ex) {
        ctx.say_error(ex);
    }
    print_result(ctx, e, r);
    if (r.verdict == Verdict::InternalError) return kExitUsage;
    return r.passed() ? kExitOk : kExitFailed;
}

// The earlier exercise `attnlab compare ID [EARLIER]` runs: EARLIER when it
// is one of ID's versions, else the first version with the learner's own work.
const Exercise& earlier_to_compare(Context& ctx, const Exercise& e, const std::vector<const Exercise*>& versions) {
    if (versions.empty()) usage_error(ctx.t(msg::cli_compare_none, {{"id", e.id}}));
    if (ctx.opt.positional.size() == 3) {
        for (const Exercise* v : versions)
            if (v->id == ctx.opt.positional[2]) return *v;
        std::string list;
        for (const Exercise* v : versions) list += (list.empty() ? "" : ", ") + v->id;
        usage_error(ctx.t(msg::cli_compare_not_earlier, {{"earlier", ctx.opt.positional[2]}, {"id", e.id}, {"list", list}}));
    }
    for (const Exercise* v : versions)
        if (ctx.lab->workspace().own_work(*v)) return *v;
    return *versions.front();  // none written yet: its own words say so
}

// `attnlab compare ID [EARLIER]`: beat your v1 (kernel_versions.hpp). The
// learner's file of ID is checked; their file of EARLIER then runs on the
// case ID's speed report is of, and both kernels' figures are printed side by side.
int cmd_compare(Context& ctx) {
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error(ctx.t(msg::cli_usage_compare));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const Exercise& earlier = earlier_to_compare(ctx, e, earlier_versions(ctx.lab->course(), e));
    const std::optional<std::string> earlier_text = ctx.lab->workspace().own_work(earlier);
    if (!earlier_text) {
        std::cerr << "attnlab: " << ctx.t(msg::versions_no_own_work, {{"title", earlier.title.get(ctx.lang)}, {"earlier", earlier.id}}) << "\n";
        return kExitFailed;
    }
    CheckControl control;
    control.gpu_arch = ctx.opt.gpu_arch;
    const fs::path file = ctx.lab->workspace().ensure_learner_file(e, ctx.lang);
    if (!ctx.opt.json) std::cerr << ctx.t(msg::cli_check_checking, {{"file", file.string()}}) << "\n";
    CheckResult current = ctx.lab->runner().check(e, file, control);
    wait_for_resources(current);
    const std::optional<Performance> perf = check_performance(current, e);
    if (!perf) {
        std::cerr << "attnlab: " << ctx.t(msg::cli_compare_no_case, {{"id", e.id}, {"verdict", verdict_title(current.verdict, current.cause, ctx.lang)}}) << "\n";
        return kExitFailed;
    }
    const std::string case_number = std::to_string(perf->case_index + 1);
    if (!ctx.opt.json) std::cerr << ctx.t(msg::cli_compare_running, {{"earlier", earlier.id}, {"case", case_number}, {"id", e.id}}) << "\n";
    const Exercise on_case = version_on_case(earlier, e, perf->case_index);
    CheckResult earlier_result =
        ctx.lab->runner().check_source(on_case, *earlier_text, ctx.lab->workspace().learner_file(earlier).string(), control);
    const VersionComparison c = compare_versions(e, current, on_case, std::move(earlier_result), perf->case_index);
    const size_t gpu = gpu_model_for_arch(ctx.opt.gpu_arch);
    if (ctx.opt.json) {
        json j = version_comparison_to_json(c, gpu, ctx.lang);
        j["current_verdict"] = verdict_code(current.verdict);
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << inert_text(describe_version_comparison(c, earlier.title.get(ctx.lang), gpu, ctx.lang)) << "\n";
    }
    return c.before && c.after ? kExitOk : kExitFailed;
}

int cmd_hint(Context& ctx) {
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error(ctx.t(msg::cli_usage_hint));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    ExerciseProgress& p = ctx.lab->progress().at(e.id);
    const int count = static_cast<int>(e.hints.size());
    int n = std::min(p.hints_revealed + 1, count);
    if (ctx.opt.positional.size() == 3) {
        char* end = nullptr;
        long v = std::strtol(ctx.opt.positional[2].c_str(), &end, 10);
        if (*end || v < 1 || v > count) {
            std::cerr << "attnlab: " << ctx.t(msg::cli_hint_range, {{"count", std::to_string(count)}}) << "\n";
            return kExitUsage;
        }
        n = static_cast<int>(v);
    }
    p.hints_revealed = std::max(p.hints_revealed, n);
    save_progress(ctx);
    std::cout << ctx.t(msg::cli_hint_title, {{"n", std::to_string(n)}, {"count", std::to_string(count)}}) << "\n\n"
              << e.hints[static_cast<size_t>(n - 1)].get(ctx.lang) << "\n";
    if (n < count) std::cout << rule() << "\n" << ctx.t(msg::cli_hint_more, {{"id", e.id}, {"next", std::to_string(n + 1)}}) << "\n";
    return kExitOk;
}

int cmd_solution(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error(ctx.t(msg::cli_usage_solution));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    if (ctx.lab->progress().get(e.id).status != ExerciseStatus::Passed && !ctx.opt.force) {
        std::cerr << ctx.t(msg::cli_solution_locked) << "\n";
        return kExitFailed;
    }
    auto solution = read_file(e.solution_path());
    std::cout << e.explanation.get(ctx.lang) << "\n" << rule() << "\n";  // it opens with its own heading
    std::cout << "// " << e.solution_path().string() << "\n" << solution.value_or("") << "\n";
    return kExitOk;
}

int cmd_reset(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error(ctx.t(msg::cli_usage_reset));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const fs::path file = ctx.lab->workspace().learner_file(e);
    if (!ctx.opt.yes && fs::exists(file)) {
        if (!isatty(STDIN_FILENO)) usage_error(ctx.t(msg::cli_usage_reset_confirm));
        std::cout << ctx.t(msg::cli_reset_confirm, {{"file", file.string()}}) << std::flush;
        std::string answer;
        std::getline(std::cin, answer);
        if (answer != "y" && answer != "Y" && answer != "yes" && answer != "ya") {
            std::cout << ctx.t(msg::cli_reset_aborted) << "\n";
            return kExitOk;
        }
    }
    const fs::path backup = ctx.lab->workspace().reset(e, ctx.lang);
    std::cout << ctx.t(msg::cli_reset_done, {{"file", file.string()}}) << "\n";
    if (!backup.empty()) std::cout << ctx.t(msg::cli_reset_backup, {{"backup", backup.string()}}) << "\n";
    return kExitOk;
}

json version_json(const Version& v, const std::string& current_hash, Lang lang) {
    return {{"number", v.number}, {"time", v.time}, {"local_time", version_time_words(v.time)}, {"reason", version_reason_code(v.reason)},
            {"reason_text", version_reason_words(v, lang)}, {"restored_from", v.restored_from}, {"bytes", v.bytes}, {"lines", v.lines},
            {"available", v.available}, {"current", v.hash == current_hash}};
}

// The versions of the learner's file, newest first.
int cmd_history(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error(ctx.t(msg::cli_usage_history));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    KeyedMessage warning;
    const std::vector<Version> versions = ctx.lab->workspace().history().list(e.id, &warning);
    if (!warning.empty()) std::cerr << ctx.t(msg::cli_progress_recovered, {{"message", warning.text(ctx.lang)}}) << "\n";
    const fs::path file = ctx.lab->workspace().learner_file(e);
    const std::string current = version_hash_of(read_file(file).value_or(""));
    if (ctx.opt.json) {
        json list = json::array();
        for (auto it = versions.rbegin(); it != versions.rend(); ++it) list.push_back(version_json(*it, current, ctx.lang));
        std::cout << json({{"id", e.id}, {"file", file.string()}, {"versions", list}}).dump(2) << "\n";
        return kExitOk;
    }
    if (versions.empty()) {
        std::cout << ctx.t(msg::cli_history_empty, {{"id", e.id}}) << "\n";
        return kExitOk;
    }
    std::cout << ctx.t(msg::cli_history_header, {{"file", file.string()}, {"id", e.id}}) << "\n\n";
    for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
        std::string notes;
        if (it->hash == current) notes += "  ← " + ctx.t(msg::cli_history_current);
        if (!it->available) notes += "  ! " + ctx.t(msg::cli_history_missing);
        std::printf("%4d  %s  %-28s %s%s\n", it->number, version_time_words(it->time).c_str(), version_reason_words(*it, ctx.lang).c_str(),
                    ctx.t(msg::cli_history_size, {{"lines", format_count(it->lines, ctx.lang)}, {"bytes", format_count(static_cast<int64_t>(it->bytes), ctx.lang)}})
                        .c_str(),
                    notes.c_str());
    }
    return kExitOk;
}

// Version N back into the learner's file, the file as it was kept first.
int cmd_restore(Context& ctx) {
    if (ctx.opt.positional.size() != 3) usage_error(ctx.t(msg::cli_usage_restore));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    char* end = nullptr;
    const long number = std::strtol(ctx.opt.positional[2].c_str(), &end, 10);
    if (*end || number < 1 || number > 1000000000) usage_error(ctx.t(msg::cli_restore_number, {{"id", e.id}}));
    const int kept = ctx.lab->workspace().restore(e, static_cast<int>(number));
    const fs::path file = ctx.lab->workspace().learner_file(e);
    if (ctx.opt.json) {
        std::cout << json({{"id", e.id}, {"file", file.string()}, {"restored", number}, {"kept", kept}}).dump(2) << "\n";
        return kExitOk;
    }
    std::cout << ctx.t(msg::cli_restore_done, {{"number", std::to_string(number)}, {"file", file.string()}}) << "\n";
    if (kept > 0) std::cout << ctx.t(msg::cli_restore_kept, {{"kept", std::to_string(kept)}, {"id", e.id}}) << "\n";
    return kExitOk;
}

std::atomic<bool> g_stop{false};
void on_interrupt(int) { g_stop.store(true); }

int cmd_watch(Context& ctx) {
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error(ctx.t(msg::cli_usage_watch));
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const fs::path file = file_argument(ctx, e);
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    CheckScheduler scheduler(ctx.lab->runner());
    std::cout << ctx.t(msg::cli_watch_start, {{"file", file.string()}}) << "\n" << std::flush;
    std::optional<std::string> last_text;
    std::shared_ptr<CheckJob> job;
    Phase shown_phase = Phase::Done;
    int shown_case = -1;
    int last_code = kExitFailed;
    while (!g_stop.load()) {
        auto text = read_file(file);
        if (text && text != last_text) {
            last_text = text;
            keep_checked_version(ctx, e, file, &*text);
            job = scheduler.start(e, *text, file.string());  // cancels a check still running
            shown_phase = Phase::Done;
            shown_case = -1;
        }
        if (job) {
            CheckProgress p = job->progress();
            if (!job->done() && (p.phase != shown_phase || (p.phase == Phase::Running && p.case_index != shown_case))) {
                if (p.phase == Phase::Compiling) std::cout << ctx.t(msg::cli_watch_progress_compiling) << "\n" << std::flush;
                if (p.phase == Phase::Running)
                    std::cout << ctx.t(msg::cli_watch_progress_running, {{"n", std::to_string(p.case_index + 1)}, {"count", std::to_string(p.case_count)}})
                              << "\n" << std::flush;
                shown_phase = p.phase;
                shown_case = p.case_index;
            }
            if (job->done()) {
                CheckResult r = job->result();  // a copy: its NVRTC report joins it when printed
                if (r.verdict != Verdict::Cancelled) {
                    try {
                        ctx.lab->progress().record_check(e.id, r);
                    } catch (const std::exception& ex) {
                        ctx.say_error(ex);
                    }
                    std::cout << rule() << "\n";
                    print_result(ctx, e, r);
                    std::cout << std::flush;
                    last_code = r.passed() ? kExitOk : kExitFailed;
                }
                job.reset();
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    scheduler.cancel_all();
    return last_code;
}

// `dev ops`, for course authors: each reference op's signature and summary,
// its FLOPs and partial reads, the mistakes an exercise may list (an id once,
// however many forms it has) and the exercises of `course` that name it
// ("none": an op only attnlab's kernels or tests use).
void print_ops(const Course& course) {
    for (const auto& op : reference::all_ops()) {
        std::cout << op.name << "(";
        for (size_t i = 0; i < op.params.size(); ++i)
            std::cout << (i ? ", " : "") << op.params[i].name << ": " << value_kind_name(op.params[i].kind)
                      << (op.params[i].shape.empty() ? "" : " " + op.params[i].shape);
        std::cout << ") -> " << value_kind_name(op.returns) << (op.returns_shape.empty() ? "" : " " + op.returns_shape) << "\n    "
                  << op.summary << "\n";
        if (!op.flops_formula.empty()) std::cout << "    FLOPs: " << op.flops_formula << "\n";
        for (const reference::PartialRead& r : op.partial_reads) std::cout << "    reads of " << r.input << ": " << r.formula << "\n";
        std::set<std::string> listed;
        std::string mistakes, exercises;
        for (const reference::Mistake& m : op.mistakes)
            if (listed.insert(m.id).second) mistakes += (mistakes.empty() ? "" : ", ") + m.id;
        for (const Exercise& e : course.exercises)
            if (e.reference == op.name) exercises += (exercises.empty() ? "" : ", ") + e.id;
        if (!mistakes.empty()) std::cout << "    mistakes: " << mistakes << "\n";
        std::cout << "    exercises: " << (exercises.empty() ? "none" : exercises) << "\n";
    }
}

// For course authors, not learners: the op list, the per-exercise table and
// its problems stay in English, as check_course() words them (course_check.hpp);
// only the usage errors and the closing line are in the learner's language.
int cmd_dev(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error(ctx.t(msg::cli_usage_dev));
    const std::string sub = ctx.opt.positional[1];
    if (sub == "ops") {
        print_ops(ctx.lab->course());
        return kExitOk;
    }
    if (sub != "check") usage_error(ctx.t(msg::cli_usage_unknown_dev, {{"name", sub}}));
    const CourseCheck check = check_course(ctx.lab->runner(), ctx.lab->course());
    if (ctx.opt.json) {
        json report = json::array();
        for (const ExerciseCheck& ec : check.exercises) {
            json fixtures = json::array();
            for (const FixtureCheck& f : ec.fixtures)
                fixtures.push_back({{"file", f.file}, {"expect", f.expect}, {"verdict", f.verdict}, {"mistake", f.mistake}, {"cause", f.cause.code()}, {"ok", f.ok}});
            report.push_back({{"id", ec.id}, {"starter", ec.starter_verdict}, {"solution", ec.solution_verdict}, {"fixtures", fixtures},
                              {"problems", ec.problems}});
        }
        std::cout << json({{"exercises", report}, {"problems", check.problems}}).dump(2, ' ', false, json::error_handler_t::replace) << "\n";
        return check.ok() ? kExitOk : kExitFailed;
    }
    int id_width = 18;  // the longest id sets the column
    for (const ExerciseCheck& ec : check.exercises) id_width = std::max(id_width, static_cast<int>(ec.id.size()));
    for (const ExerciseCheck& ec : check.exercises) {
        size_t fixtures_ok = 0;
        for (const FixtureCheck& f : ec.fixtures) fixtures_ok += f.ok;
        std::printf("%-*s starter: %-14s solution: %-14s fixtures: %zu/%zu  %s\n", id_width, ec.id.c_str(), ec.starter_verdict.c_str(),
                    ec.solution_verdict.c_str(), fixtures_ok, ec.fixtures.size(), ec.ok() ? "ok" : "FAIL");
        for (const auto& m : ec.problems) std::printf("    %s\n", m.c_str());
    }
    for (const auto& p : check.course_problems) std::printf("! %s\n", p.c_str());
    std::cout << (check.ok() ? ctx.t(msg::cli_dev_ok, {{"count", std::to_string(ctx.lab->course().exercises.size())}})
                             : ctx.t(msg::cli_dev_fail, {{"count", std::to_string(check.problems.size())}}))
              << "\n";
    return check.ok() ? kExitOk : kExitFailed;
}
}  // namespace

int run(const std::vector<std::string>& args) {
    Context ctx;
    ctx.opt = parse_options(args);
    const std::string command = ctx.opt.positional.empty() ? "" : ctx.opt.positional[0];
    if (ctx.opt.help || command == "help") {
        const Lang lang = early_language(ctx.opt.lang_flag);
        const std::string topic = command == "help" ? (ctx.opt.positional.size() > 1 ? ctx.opt.positional[1] : "") : command;
        auto it = help_texts().find(topic);
        if (it == help_texts().end()) it = help_texts().find("");
        std::cout << tr(lang, it->second) << "\n";
        return kExitOk;
    }
    if (command.empty()) {
#ifdef ATTNLAB_HAVE_GUI
        gui::GuiOptions g = ctx.opt.gui;
        g.course_dir = ctx.opt.course_dir;
        g.lang = ctx.opt.lang_flag;
        return gui::run_gui(g);
#else
        if (ctx.opt.gui_flags) usage_error(ctx.opt.lang_flag, msg::cli_usage_no_gui);
#endif
    } else if (ctx.opt.gui_flags) {
        usage_error(ctx.opt.lang_flag, msg::cli_usage_window_options);
    }
    if (command == "doctor") return doctor(ctx.opt.lang_flag, ctx.opt.json);  // needs no course: works when nothing else does
    static const std::map<std::string, int (*)(Context&)> commands = {
        {"", cmd_list},         {"list", cmd_list},   {"show", cmd_show},   {"check", cmd_check}, {"hint", cmd_hint},
        {"solution", cmd_solution}, {"reset", cmd_reset}, {"watch", cmd_watch}, {"dev", cmd_dev},
        {"compare", cmd_compare},
        {"history", cmd_history},   {"restore", cmd_restore},
    };
    auto it = commands.find(command);
    if (it == commands.end()) usage_error(ctx.opt.lang_flag, msg::cli_usage_unknown_command, {{"command", command}});
    if (int rc = setup(ctx); rc != kExitOk) return rc;
    try {
        return it->second(ctx);
    } catch (const std::exception& e) {
        ctx.say_error(e);
        return kExitUsage;
    }
}

}  // namespace attnlab::cli
