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
#include "attnlab/core/check/performance.hpp"
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

struct HelpText {
    const char* en;
    const char* id;
};

const std::map<std::string, HelpText>& help_texts() {
    static const std::map<std::string, HelpText> h = {
        {"", {R"(attnlab — learn causal multi-head self-attention by writing it

usage: attnlab [--lang en|id] [--course DIR] [COMMAND [ARGS]]

With no command, attnlab opens its window (GUI options: --exercise ID, --run,
--screenshot out.png, --quit-after N, --size WxH, --timing, --tab hints|solution,
--show settings|help|history,
--view heatmaps|stages|memory|experiments|kernel|roofline).

commands:
  list                 the exercises in course order, with your progress
  show ID              the exercise statement and the function to write
  check ID [FILE]      compile and check your file (default: your workspace copy)
  hint ID [N]          hint N (1 = gentlest)
  solution ID          the reference solution and explanation, after a pass
  reset ID             put the starter back (your file is kept as a backup)
  history ID           the versions of your file (one at every save and check)
  restore ID N         bring version N back (your file is kept as a version first)
  watch ID [FILE]      re-check every time the file is saved
  dev check            course authors: every starter fails, every solution passes
  dev ops              course authors: the Eigen reference ops and their parameters
  doctor               what this machine gives attnlab (compiler, sandbox, CUDA)

options: --lang en|id (language), --json (list, show, check, history, restore, dev check, doctor), --help
exit codes: 0 pass/ok, 1 a check failed, 2 usage or set-up error
data: $ATTNLAB_HOME, else the XDG data/cache/config dirs (see README))",
              R"(attnlab — belajar causal multi-head self-attention dengan menuliskannya

pemakaian: attnlab [--lang en|id] [--course DIR] [PERINTAH [ARGUMEN]]

Tanpa perintah, attnlab membuka jendelanya (opsi GUI: --exercise ID, --run,
--screenshot out.png, --quit-after N, --size WxH, --timing, --tab hints|solution,
--show settings|help|history,
--view heatmaps|stages|memory|experiments|kernel|roofline).

perintah:
  list                 daftar latihan sesuai urutan kursus, dengan kemajuanmu
  show ID              soal latihan dan fungsi yang harus ditulis
  check ID [BERKAS]    kompilasi dan periksa berkasmu (bawaan: salinan di workspace)
  hint ID [N]          petunjuk ke-N (1 = paling ringan)
  solution ID          solusi referensi dan penjelasannya, setelah lulus
  reset ID             kembalikan starter (berkasmu disimpan sebagai cadangan)
  history ID           versi-versi berkasmu (satu setiap simpan dan periksa)
  restore ID N         kembalikan versi N (berkasmu disimpan sebagai versi dulu)
  watch ID [BERKAS]    periksa ulang setiap kali berkas disimpan
  dev check            penulis kursus: setiap starter gagal, setiap solusi lulus
  dev ops              penulis kursus: operasi referensi Eigen dan parameternya
  doctor               yang disediakan mesin ini untuk attnlab (kompiler, sandbox, CUDA)

opsi: --lang en|id (bahasa), --json (list, show, check, history, restore, dev check, doctor), --help
kode keluar: 0 lulus/ok, 1 pemeriksaan gagal, 2 galat pemakaian atau persiapan
data: $ATTNLAB_HOME, atau direktori data/cache/config XDG (lihat README))"}},
        {"list", {"usage: attnlab list [--json]\nLists the exercises in course order with your progress and topics.",
                  "pemakaian: attnlab list [--json]\nMenampilkan latihan sesuai urutan kursus beserta kemajuan dan topiknya."}},
        {"show", {"usage: attnlab show ID [--json]\nPrints the statement, the function signature to write and where your file is.",
                  "pemakaian: attnlab show ID [--json]\nMenampilkan soal, signature fungsi yang harus ditulis, dan lokasi berkasmu."}},
        {"check", {"usage: attnlab check ID [FILE] [--json] [--arch sm_90]\nCompiles FILE (default: your workspace copy) and checks it on every case\nagainst the Eigen reference. Exit code 0 when it passes, 1 when not.\nCUDA exercises: --arch picks the GPU architecture of the resource report\n(registers, shared memory, spills, occupancy; needs NVRTC, no GPU).",
                   "pemakaian: attnlab check ID [BERKAS] [--json] [--arch sm_90]\nMengompilasi BERKAS (bawaan: salinan di workspace) dan memeriksanya pada setiap\nkasus terhadap referensi Eigen. Kode keluar 0 bila lulus, 1 bila tidak.\nLatihan CUDA: --arch memilih arsitektur GPU untuk laporan sumber daya\n(register, shared memory, spill, okupansi; butuh NVRTC, tanpa GPU)."}},
        {"hint", {"usage: attnlab hint ID [N]\nShows hint N (default: the next one you have not seen).",
                  "pemakaian: attnlab hint ID [N]\nMenampilkan petunjuk ke-N (bawaan: petunjuk berikutnya yang belum kamu lihat)."}},
        {"solution", {"usage: attnlab solution ID [--force]\nShows the reference solution and the explanation once you have passed.",
                      "pemakaian: attnlab solution ID [--force]\nMenampilkan solusi referensi dan penjelasannya setelah kamu lulus."}},
        {"reset", {"usage: attnlab reset ID [--yes]\nRestores the starter file; your current file is kept as a timestamped backup.",
                   "pemakaian: attnlab reset ID [--yes]\nMengembalikan berkas starter; berkasmu sekarang disimpan sebagai cadangan bertanda waktu."}},
        {"history", {"usage: attnlab history ID [--json]\nLists the versions of your file, newest first: one is kept at every save and every check\n(in the window and here), and before a restore or a reset.",
                     "pemakaian: attnlab history ID [--json]\nMenampilkan versi-versi berkasmu, yang terbaru di atas: satu versi disimpan setiap kali\nberkas disimpan atau diperiksa (di jendela maupun di sini), dan sebelum pemulihan atau reset."}},
        {"restore", {"usage: attnlab restore ID N [--json]\nPuts version N (from attnlab history ID) back into your file. Your file as it was is kept\nas a version first, so nothing is lost.",
                     "pemakaian: attnlab restore ID N [--json]\nMengembalikan versi N (dari attnlab history ID) ke berkasmu. Berkasmu yang sekarang disimpan\nsebagai versi lebih dulu, jadi tidak ada yang hilang."}},
        {"watch", {"usage: attnlab watch ID [FILE]\nChecks the file now and again every time it is saved. Ctrl+C stops.",
                   "pemakaian: attnlab watch ID [BERKAS]\nMemeriksa berkas sekarang dan setiap kali disimpan. Ctrl+C untuk berhenti."}},
        {"doctor", {"usage: attnlab doctor [--json]\nReports the compiler, the learner runtime, the sandbox's protections, the limits,\nthe CUDA toolkit, NVRTC and the GPU. Exit code 2 when checks cannot run here.",
                    "pemakaian: attnlab doctor [--json]\nMelaporkan kompiler, runtime latihan, perlindungan sandbox, batas, CUDA toolkit,\nNVRTC, dan GPU. Kode keluar 2 bila pemeriksaan tidak bisa berjalan di sini."}},
        {"dev", {"usage: attnlab dev check [--json] | attnlab dev ops\ncheck: compiles every starter (must compile and fail) and every solution (must pass).\nops: lists the Eigen reference ops an exercise can name, each with its mistakes and the exercises that name it.",
                 "pemakaian: attnlab dev check [--json] | attnlab dev ops\ncheck: mengompilasi setiap starter (harus terkompilasi dan gagal) dan setiap solusi (harus lulus).\nops: menampilkan operasi referensi Eigen yang bisa dipakai latihan, masing-masing dengan kesalahannya dan latihan yang memakainya."}},
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

[[noreturn]] void usage_error(const std::string& msg) {
    std::cerr << "attnlab: " << msg << "\n(attnlab --help)\n";
    std::exit(kExitUsage);
}

Options parse_options(const std::vector<std::string>& args) {
    Options o;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&](const std::string& name) -> std::string {
            if (i + 1 >= args.size()) usage_error(name + " needs a value");
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
        else if (a == "--size") {
            const std::string v = value(a);
            if (std::sscanf(v.c_str(), "%dx%d", &o.gui.width, &o.gui.height) != 2 || o.gui.width < 320 || o.gui.height < 240) usage_error("--size takes WIDTHxHEIGHT");
            o.gui_flags = true;
        }
        else if (a.size() > 1 && a[0] == '-') usage_error("unknown option " + a);
        else o.positional.push_back(a);
    }
    if (!arch_limits(o.gpu_arch)) {
        std::string known;
        for (const std::string& a : known_gpu_archs()) known += (known.empty() ? "" : ", ") + a;
        usage_error("--arch takes one of " + known);
    }
    if (!o.lang_flag.empty()) {
        Lang l;
        if (!parse_lang(o.lang_flag, l) || (o.lang_flag != "en" && o.lang_flag != "id")) usage_error("--lang takes en or id");
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
    if (ctx.opt.positional.size() != 2) usage_error("show needs an exercise id");
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
        if (ec == std::errc::permission_denied) usage_error("no permission to read " + f.string());
        if (!fs::exists(st)) usage_error("no such file: " + f.string());
        if (!fs::is_regular_file(st)) usage_error(f.string() + " is not a regular file (a folder, a device or a pipe cannot be checked)");
        const auto size = fs::file_size(f, ec);
        if (!ec && size > kMaxSourceBytes)
            usage_error(ctx.t(msg::cli_check_source_too_large, {{"file", f.string()}, {"limit", whole_megabytes(kMaxSourceBytes)},
                                                             {"size", format_count(static_cast<int64_t>(size), ctx.lang)}}));
        if (::access(f.c_str(), R_OK) != 0) usage_error("no permission to read " + f.string());
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
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error("check needs an exercise id and optionally a file");
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

int cmd_hint(Context& ctx) {
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error("hint needs an exercise id and optionally a number");
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
    if (ctx.opt.positional.size() != 2) usage_error("solution needs an exercise id");
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
    if (ctx.opt.positional.size() != 2) usage_error("reset needs an exercise id");
    const Exercise& e = ctx.exercise(ctx.opt.positional[1]);
    const fs::path file = ctx.lab->workspace().learner_file(e);
    if (!ctx.opt.yes && fs::exists(file)) {
        if (!isatty(STDIN_FILENO)) usage_error("reset asks for confirmation; pass --yes when not on a terminal");
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
    if (ctx.opt.positional.size() != 2) usage_error("history needs an exercise id");
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
    if (ctx.opt.positional.size() != 3) usage_error("restore needs an exercise id and a version number");
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
    if (ctx.opt.positional.size() < 2 || ctx.opt.positional.size() > 3) usage_error("watch needs an exercise id and optionally a file");
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

int cmd_dev(Context& ctx) {
    if (ctx.opt.positional.size() != 2) usage_error("dev needs a subcommand: check or ops");
    const std::string sub = ctx.opt.positional[1];
    if (sub == "ops") {
        print_ops(ctx.lab->course());
        return kExitOk;
    }
    if (sub != "check") usage_error("unknown dev subcommand " + sub);
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
        Lang lang = resolve_language(ctx.opt.lang_flag, Settings::load(Paths::from_environment().settings_file()));
        const std::string topic = command == "help" ? (ctx.opt.positional.size() > 1 ? ctx.opt.positional[1] : "") : command;
        auto it = help_texts().find(topic);
        if (it == help_texts().end()) it = help_texts().find("");
        std::cout << (lang == Lang::Id ? it->second.id : it->second.en) << "\n";
        return kExitOk;
    }
    if (command.empty()) {
#ifdef ATTNLAB_HAVE_GUI
        gui::GuiOptions g = ctx.opt.gui;
        g.course_dir = ctx.opt.course_dir;
        g.lang = ctx.opt.lang_flag;
        return gui::run_gui(g);
#else
        if (ctx.opt.gui_flags) usage_error("this attnlab was built without its GUI (see README: ./setup.sh installs what it needs)");
#endif
    } else if (ctx.opt.gui_flags) {
        usage_error("--exercise, --run, --screenshot, --quit-after, --size, --timing, --tab, --show and --view are for the window (attnlab with no command)");
    }
    if (command == "doctor") return doctor(ctx.opt.lang_flag, ctx.opt.json);  // needs no course: works when nothing else does
    static const std::map<std::string, int (*)(Context&)> commands = {
        {"", cmd_list},         {"list", cmd_list},   {"show", cmd_show},   {"check", cmd_check}, {"hint", cmd_hint},
        {"solution", cmd_solution}, {"reset", cmd_reset}, {"watch", cmd_watch}, {"dev", cmd_dev},
        {"history", cmd_history},   {"restore", cmd_restore},
    };
    auto it = commands.find(command);
    if (it == commands.end()) usage_error("unknown command " + command);
    if (int rc = setup(ctx); rc != kExitOk) return rc;
    try {
        return it->second(ctx);
    } catch (const std::exception& e) {
        ctx.say_error(e);
        return kExitUsage;
    }
}

}  // namespace attnlab::cli
