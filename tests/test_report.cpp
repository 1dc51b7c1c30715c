// The words a learner reads for every verdict and problem: in Indonesian no
// English sentence slips through (no machine code, no English detail), and
// every verdict kind has its own title in both languages. Pure: no process.
#include <cstdint>
#include <regex>
#include <set>

#include <doctest/doctest.h>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/report.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;

namespace {

Exercise exercise() {
    Exercise e;
    e.id = "fx";
    e.returns.dims = {"head", "row", "col"};
    return e;
}

// A result with one case of each relevant kind filled in, as a runner makes it.
CheckResult result(Verdict v) {
    CheckResult r;
    r.exercise_id = "fx";
    r.verdict = v;
    CaseOutcome c;
    c.name = {"two tokens", "dua token"};
    c.verdict = v;
    c.expected = Value::of_tensor(TensorData::zeros({1, 2, 2}));
    c.actual = Value::of_tensor(TensorData::zeros(v == Verdict::WrongShape ? Shape{2, 2} : Shape{1, 2, 2}));
    c.mismatch_count = 1;
    c.one_sided_count = 1;
    c.mismatches = {{{0, 1, 1}, 0.5, -1.0 / 0.0, true}};
    c.nonfinite_index = {0, 0, 1};
    c.exception_type = "std::runtime_error";
    c.exception_what = "xyz";
    c.modified_input = "scores";
    r.cases = {c};
    r.failed_case = 0;
    r.signal = 11;
    r.signal_name = "SIGSEGV";
    r.limit = v == Verdict::Timeout ? LimitKind::CpuTime : (v == Verdict::OutputLimit ? LimitKind::FileSize : LimitKind::None);
    r.limit_value = 2;
    r.missing_entry_signature = "Tensor f(const Tensor& x)";
    r.detail = "code_x";
    r.mistake = MistakeMatch{"scale_sqrt_d", "scores", {"Scaled by sqrt D", "Diskalakan dengan √D"}, {"Divide by sqrt hd.", "Bagilah dengan √hd."}};
    return r;
}

// English words that never belong in an Indonesian sentence. (Technical
// terms Indonesian ML writing keeps — head, softmax, kernel, file
// descriptor — are not in the list.)
const std::set<std::string> kEnglish = {"the", "your", "you", "was", "were", "is", "are", "not", "of", "with", "before", "after",
                                        "that", "this", "and", "or", "could", "cannot", "every", "case", "value", "values", "expected",
                                        "returned", "stopped", "killed", "printed", "wrote", "error", "limit", "memory", "likely",
                                        "mistake", "stage", "fault", "broken", "missing", "wrong", "shape", "answer", "passed"};

std::vector<std::string> english_words(const std::string& text) {
    std::vector<std::string> found;
    // Code spans (`...`) and the learner's own strings are not prose.
    // "shared memory" is CUDA's name for it, kept as a term in Indonesian too.
    const std::string prose =
        std::regex_replace(std::regex_replace(text, std::regex("`[^`]*`"), " "), std::regex("shared memory", std::regex::icase), " ");
    std::regex word("[A-Za-z']+");
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), word); it != std::sregex_iterator(); ++it) {
        std::string w = it->str();
        for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (kEnglish.count(w)) found.push_back(w);
    }
    return found;
}

const Verdict kAllVerdicts[] = {Verdict::Pass,         Verdict::WrongAnswer,   Verdict::WrongShape,  Verdict::NonFinite,
                                Verdict::CompileError, Verdict::MissingEntry,  Verdict::RuntimeError, Verdict::Crash,
                                Verdict::Timeout,      Verdict::MemoryLimit,   Verdict::OutputLimit, Verdict::ProtocolError,
                                Verdict::ModifiedInput, Verdict::KernelFault,  Verdict::Cancelled,   Verdict::InternalError,
                                Verdict::NotRun};

const Problem kAllProblems[] = {Problem::SourceTooLarge,  Problem::DefinesMain,       Problem::CannotReadSource,
                                Problem::ToolchainMissing, Problem::CompilerFailed,   Problem::CaseDoesNotFitReference,
                                Problem::CannotPrepareRun, Problem::CannotStartProgram, Problem::ChannelCorrupt,
                                Problem::ExitedBeforeHarness, Problem::ExitedEarly,   Problem::SandboxKilled,
                                Problem::CaseNeverReported, Problem::KernelDisagrees, Problem::KernelFailed,
                                Problem::SourceUnread};

}  // namespace

TEST_CASE("the detector finds English and ignores code spans") {
    CHECK_FALSE(english_words("Kasus 1: fungsimu menulis ke `the scores`").size());
    CHECK(english_words("Case 1: your function wrote into it") == std::vector<std::string>{"case", "your", "wrote"});
}

TEST_CASE("a case is labelled with its number and its name in brackets, so the name's own parentheses never nest") {
    CheckResult r = result(Verdict::WrongAnswer);
    r.cases[0].name = {"one head (H = 1), T = 33", "satu head (H = 1), T = 33"};
    CHECK(explain(r, exercise(), Lang::En).find("Case 1 [one head (H = 1), T = 33]:") != std::string::npos);
    CHECK(explain(r, exercise(), Lang::Id).find("Kasus 1 [satu head (H = 1), T = 33]:") != std::string::npos);
}

TEST_CASE("every verdict reads as Indonesian under --lang id") {
    const Exercise e = exercise();
    for (Verdict v : kAllVerdicts) {
        const CheckResult r = result(v);
        const std::string text = explain(r, e, Lang::Id) + "\n" + to_json(r, e, Lang::Id).dump();
        const std::string code = verdict_code(v);
        CAPTURE(code);
        CAPTURE(text);
        CHECK(english_words(explain(r, e, Lang::Id)).empty());
        CHECK(verdict_title(v, Lang::Id) != verdict_title(v, Lang::En));
    }
}

TEST_CASE("every problem reads as Indonesian under --lang id") {
    const Exercise e = exercise();
    for (Problem p : kAllProblems) {
        for (Verdict v : {Verdict::InternalError, Verdict::ProtocolError, Verdict::CompileError}) {
            CheckResult r = result(v);
            r.problem = p;
            r.problem_case = 0;
            const std::string code = problem_code(p);
            CAPTURE(code);
            const std::string text = explain(r, e, Lang::Id);
            CAPTURE(text);
            CHECK(english_words(text).empty());
            const auto j = to_json(r, e, Lang::Id);
            CHECK(j["problem"]["code"] == problem_code(p));
            CHECK(english_words(j["problem"]["message"].get<std::string>()).empty());
        }
        CHECK(has_message(Lang::Id, std::string("problem.") + problem_code(p)));
        CHECK(has_message(Lang::En, std::string("problem.") + problem_code(p)));
    }
}

TEST_CASE("the CUDA line names the backend once, in the learner's language") {
    const Exercise e = exercise();
    CheckResult r = result(Verdict::Pass);
    KernelOutcome k;
    k.backend = KernelBackend::Emulator;
    k.device = "CPU emulator";
    k.ok = true;
    k.max_abs_error_vs_reference = 2.5e-7;
    r.cases.push_back(r.cases[0]);
    for (CaseOutcome& c : r.cases) c.reference_kernel = k;
    const std::string en = explain(r, e, Lang::En), id = explain(r, e, Lang::Id);
    CHECK(en.find("CUDA: CPU emulator — agrees with the Eigen reference on 2 cases, max |Δ| = 2.5") != std::string::npos);
    CHECK(id.find("CUDA: emulator CPU — sepakat dengan referensi Eigen pada 2 kasus") != std::string::npos);
    CHECK(english_words(id).empty());
    CHECK(en.find("CUDA:") == en.rfind("CUDA:"));  // once, not per case
    // A disagreeing kernel: the line says whose fault it is, in Indonesian too.
    r.verdict = Verdict::InternalError;
    r.problem = Problem::KernelDisagrees;
    r.problem_case = 1;
    r.detail = "max |CUDA - Eigen| = 0.5, atol = 1e-05, rtol = 0.0001";
    r.cases[1].reference_kernel->ok = false;
    const std::string id_bad = explain(r, e, Lang::Id);
    CAPTURE(id_bad);
    CHECK(id_bad.find("bukan kodemu") != std::string::npos);
    CHECK(english_words(id_bad).empty());
    k.backend = KernelBackend::Gpu;
    k.device = "NVIDIA H200";
    CHECK(cuda_backend_text(k, Lang::Id) == "GPU NVIDIA H200");
    const auto j = to_json(r, e, Lang::Id);
    CHECK(j["cases"][1]["cuda"]["backend"] == "emulator");
    CHECK(j["cases"][1]["cuda"]["ok"] == false);
    CHECK(j["cases"][0]["cuda"]["max_abs_error_vs_reference"].get<double>() == doctest::Approx(2.5e-7));
}

TEST_CASE("a failure after every case had reported still says what happened, in both languages") {
    const Exercise e = exercise();
    for (Verdict v : {Verdict::Crash, Verdict::Timeout, Verdict::OutputLimit, Verdict::ProtocolError}) {
        CheckResult r = result(v);
        r.cases[0].verdict = Verdict::Pass;
        r.failed_case = -1;
        r.problem = v == Verdict::ProtocolError ? Problem::ExitedEarly : Problem::None;
        const std::string code = verdict_code(v);
        CAPTURE(code);
        const std::string en = explain_detail(r, e, Lang::En), id = explain_detail(r, e, Lang::Id);
        CHECK_FALSE(en.empty());
        CHECK_FALSE(id.empty());
        CHECK(english_words(id).empty());
    }
}

TEST_CASE("a named mistake appears in the words and in --json") {
    const Exercise e = exercise();
    const CheckResult r = result(Verdict::WrongAnswer);
    CHECK(explain(r, e, Lang::En).find("Likely mistake: Scaled by sqrt D. Divide by sqrt hd.") != std::string::npos);
    CHECK(explain(r, e, Lang::Id).find("Kemungkinan kesalahan: Diskalakan dengan √D. Bagilah dengan √hd.") != std::string::npos);
    const auto j = to_json(r, e, Lang::Id);
    CHECK(j["mistake"]["id"] == "scale_sqrt_d");
    CHECK(j["mistake"]["message"] == "Bagilah dengan √hd.");
}

TEST_CASE("a case that fails only where one side is -inf says so instead of 'max error 0'") {
    const Exercise e = exercise();
    CheckResult r = result(Verdict::WrongAnswer);
    r.cases[0].max_abs_error = 0;
    CHECK(explain(r, e, Lang::En).find("1 of the differing positions are -inf or NaN on one side only") != std::string::npos);
}

TEST_CASE("a NaN is explained in the exercise's own words where it gives them, else in attnlab's (a softmax)") {
    Exercise e = exercise();
    const CheckResult r = result(Verdict::NonFinite);
    CHECK(explain(r, e, Lang::En).find(tr(Lang::En, msg::explain_non_finite_hint)) != std::string::npos);
    e.non_finite_hint = {"A mask only copies.", "Mask hanya menyalin."};
    CHECK(explain(r, e, Lang::En).find("A mask only copies.") != std::string::npos);
    CHECK(explain(r, e, Lang::Id).find("Mask hanya menyalin.") != std::string::npos);
    CHECK(explain(r, e, Lang::En).find("softmax") == std::string::npos);
}

TEST_CASE("a CUDA exercise's verdicts read as Indonesian under --lang id: every fault, every kernel rule, a crash") {
    Exercise e = exercise();
    e.runtime = Runtime::Cuda;
    e.output = {"out", ValueKind::Tensor, "(1, 2, 2)"};
    auto with_launch = [](emu::FaultKind kind) {
        CheckResult r = result(Verdict::KernelFault);
        emu::LaunchReport L;
        L.kernel = "softmax_kernel";
        L.grid = {3, 1, 1};
        L.block = {64, 1, 1};
        L.fault.kind = kind;
        L.fault.line = 12;
        L.fault.buffer = "partial";
        L.fault.space = emu::MemorySpace::Shared;
        L.fault.size = 64;
        L.fault.index = 70;
        L.fault.element_type = "float";
        L.fault.groups = {{emu::ThreadActivity::Waiting, 12, {0, 1}}, {emu::ThreadActivity::Exited, 0, {2}}};
        L.fault.detail = "block_too_large";
        r.cases[0].kernels.launches = {L};
        r.cases[0].kernels.cause = KernelCause::of_fault(kind);
        r.cause = r.cases[0].kernels.cause;
        return r;
    };
    std::vector<CheckResult> results;
    for (int k = static_cast<int>(emu::FaultKind::BarrierDivergence); k <= static_cast<int>(emu::FaultKind::KernelException); ++k)
        results.push_back(with_launch(static_cast<emu::FaultKind>(k)));
    for (const char* cause : {"output_not_written", "uncoalesced_loads", "uncoalesced_stores", "block_count", "global_reads_not_reused",
                              "memory_leak", "inputs_reloaded", "narrow_loads", "narrow_stores", "tensor_cores_underused",
                              "shared_loads_not_reused"}) {
        CheckResult r = result(Verdict::KernelRule);
        r.cases[0].kernels.cause = *kernel_cause_from_code(cause);
        r.cases[0].kernels.unwritten_count = std::string(cause) == "output_not_written" ? 3 : 0;
        r.cases[0].kernels.first_unwritten = 1;
        r.cases[0].kernels.rule_value = 16.5;
        r.cases[0].kernels.rule_limit = 8;
        r.cases[0].kernels.launches = with_launch(emu::FaultKind::None).cases[0].kernels.launches;
        results.push_back(r);
    }
    CheckResult no_launch = result(Verdict::KernelRule);  // the host function launched nothing
    no_launch.cases[0].kernels.cause = KernelCause::of_rule(KernelRuleCause::OutputNotWritten);
    no_launch.cases[0].kernels.unwritten_count = 4;
    results.push_back(no_launch);
    results.push_back(result(Verdict::Crash));  // a SIGSEGV on the emulator's fibers
    for (const CheckResult& r : results) {
        const std::string id = explain(r, e, Lang::Id);
        const std::string en = explain(r, e, Lang::En);
        CAPTURE(r.cases[0].kernels.cause.code());
        CAPTURE(id);
        CHECK(english_words(id).empty());
        CHECK(id != en);
        if (!r.cases[0].kernels.launches.empty() && r.verdict == Verdict::KernelFault) CHECK(id.find("softmax_kernel") != std::string::npos);
    }
}

TEST_CASE("a figure just short of a lower bound is not printed as the bound") {
    CheckResult r = result(Verdict::KernelRule);
    r.cause = KernelCause::of_rule(KernelRuleCause::NarrowLoads);
    r.cases[0].kernels.cause = r.cause;
    r.cases[0].kernels.rule_value = 159.996;
    r.cases[0].kernels.rule_limit = 160;
    const std::string en = explain(r, exercise(), Lang::En);
    CAPTURE(en);
    CHECK(contains(en, "159.996 bytes per warp request"));
    r.cases[0].kernels.rule_value = 114.19;
    CHECK(contains(explain(r, exercise(), Lang::En), "114.19 bytes per warp request"));
}

TEST_CASE("shared loads per warp FMA: the message gives the requests and the case's multiply-adds, from the rule's expression") {
    Exercise e = exercise();
    e.params = {{"x", ValueKind::Tensor, "(T, D)"}, {"w_qkv", ValueKind::Tensor, "(D, 3D)"}};
    e.kernel_rules.max_shared_load_requests_per_warp_fma = {1, "3*T*D*D", "T >= 256"};
    Case c;
    c.args = {Value::of_tensor(TensorData::zeros({257, 64})), Value::of_tensor(TensorData::zeros({64, 192}))};
    e.cases = {c};
    CheckResult r = result(Verdict::KernelRule);
    r.cause = KernelCause::of_rule(KernelRuleCause::SharedLoadsNotReused);
    r.cases[0].kernels.cause = r.cause;
    emu::LaunchReport L;
    L.counters.shared_load_requests = 208896;  // the plain 16 x 16 tiled GEMM at T = 257, D = 64: 204 blocks x 8 warps x 4 steps x 32
    r.cases[0].kernels.launches = {L};
    r.cases[0].kernels.rule_value = 208896.0 / 98688;
    r.cases[0].kernels.rule_limit = 1;
    const std::string en = explain(r, e, Lang::En);
    CAPTURE(en);
    CHECK(contains(en, "2.12 shared-memory load requests per warp FMA"));
    CHECK(contains(en, "208,896 shared load requests (Nsight Compute: smsp__inst_executed_op_shared_ld.sum)"));
    CHECK(contains(en, "3,158,016 multiply-adds this case needs (3*T*D*D), 98,688 warp instructions"));
    const std::string id = explain(r, e, Lang::Id);
    CAPTURE(id);
    CHECK(contains(id, "208.896 request load shared memory"));
    CHECK(contains(id, "3.158.016 perkalian-penjumlahan"));
    CHECK(english_words(id).empty());
}

TEST_CASE("a buffer the host never freed is titled as such, not as a kernel's rule") {
    CheckResult r = result(Verdict::KernelRule);
    r.cause = KernelCause::of_rule(KernelRuleCause::MemoryLeak);
    r.cases[0].kernels.cause = r.cause;
    CHECK(verdict_title(r.verdict, r.cause, Lang::En) == "Device memory not freed");
    CHECK(verdict_title(r.verdict, KernelCause::of_rule(KernelRuleCause::InputsReloaded), Lang::En) == verdict_title(r.verdict, Lang::En));
    CHECK(explain(r, exercise(), Lang::Id).rfind("Memori device tidak dibebaskan", 0) == 0);
}

// ---- numbers as a person reads them -------------------------------------------------------------

TEST_CASE("format_count groups thousands the language's way: ',' in English, '.' in Indonesian") {
    struct Row {
        int64_t n;
        const char* en;
        const char* id;
    };
    const Row rows[] = {
        {0, "0", "0"},
        {7, "7", "7"},
        {999, "999", "999"},
        {1000, "1,000", "1.000"},
        {33280, "33,280", "33.280"},
        {100000, "100,000", "100.000"},
        {2359296, "2,359,296", "2.359.296"},
        {-1000, "-1,000", "-1.000"},
        {-999, "-999", "-999"},
        {INT64_MAX, "9,223,372,036,854,775,807", "9.223.372.036.854.775.807"},
        {INT64_MIN, "-9,223,372,036,854,775,808", "-9.223.372.036.854.775.808"},
    };
    for (const Row& row : rows) {
        CAPTURE(row.n);
        CHECK(format_count(row.n, Lang::En) == row.en);
        CHECK(format_count(row.n, Lang::Id) == row.id);
    }
}

TEST_CASE("a launch's counters are grouped and its ratios use the language's decimal separator") {
    emu::LaunchCounters c;
    c.global_load_requests = 8320;
    c.global_load_sectors = 33280;
    c.global_bytes_read = 1064960;
    const std::string en = describe_counters(c, Lang::En), id = describe_counters(c, Lang::Id);
    CHECK(contains(en, "8,320 requests, 33,280 sectors (4.00 sectors/request"));
    CHECK(contains(en, "1,064,960 read"));
    CHECK(contains(id, "8.320 request, 33.280 sektor (4,00 sektor/request"));
    CHECK(contains(id, "1.064.960 dibaca"));
}

TEST_CASE("what attnlab cannot read of a CUDA file: each line in words, in both languages, in --json too") {
    const Exercise e = exercise();
    CheckResult r = result(Verdict::CompileError);
    r.problem = Problem::SourceUnread;
    r.unread_parts = {{UnreadConstruct::Launch, 7}, {UnreadConstruct::SharedDeclaration, 12}, {UnreadConstruct::SharedInitialiser, 15}};
    const std::string en = explain(r, e, Lang::En), id = explain(r, e, Lang::Id);
    CAPTURE(en);
    CAPTURE(id);
    CHECK(en.find("Line 7: attnlab cannot read this kernel launch") != std::string::npos);
    CHECK(en.find("`(c ? k2 : k1)`") != std::string::npos);  // the forms it reads
    CHECK(en.find("Line 12: attnlab cannot read this `__shared__` declaration") != std::string::npos);
    CHECK(en.find("Line 15: a `__shared__` variable cannot have an initialiser") != std::string::npos);
    CHECK(id.find("Baris kode 7: attnlab tidak bisa membaca peluncuran kernel ini") != std::string::npos);
    CHECK(id.find("Baris kode 12") != std::string::npos);
    CHECK(id.find("Baris kode 15") != std::string::npos);
    CHECK(english_words(id).empty());
    CHECK(en.find("did not compile") != std::string::npos);  // not "the first errors:" with none after it
    const auto j = to_json(r, e, Lang::Id);
    REQUIRE(j["unread_parts"].size() == 3);
    CHECK(j["unread_parts"][0]["construct"] == "launch");
    CHECK(j["unread_parts"][1]["construct"] == "shared_declaration");
    CHECK(j["unread_parts"][2]["line"] == 15);
    CHECK(j["problem"]["code"] == "source_unread");
    for (const auto& part : j["unread_parts"]) CHECK(english_words(part["message"].get<std::string>()).empty());
}

TEST_CASE("a rule that takes advice: the exercise's own words after the measured figure, else attnlab's general ones") {
    CheckResult r = result(Verdict::KernelRule);
    r.cases[0].kernels.cause = KernelCause::of_rule(KernelRuleCause::GlobalReadsNotReused);
    r.cause = r.cases[0].kernels.cause;
    r.cases[0].kernels.rule_name = "max_global_read_ratio";
    r.cases[0].kernels.rule_value = 4.5;
    r.cases[0].kernels.rule_limit = 2.4;
    Exercise plain = exercise();
    Exercise own = exercise();
    own.rule_advice["global_reads_not_reused"] = {"Stop at the block's last key tile.", "Berhenti di tile key terakhir blok."};
    for (Lang lang : {Lang::En, Lang::Id}) {
        const std::string general = tr(lang, msg::explain_kernel_rule_global_reads_not_reused_advice);
        const std::string with_general = explain(r, plain, lang), with_own = explain(r, own, lang);
        CAPTURE(with_own);
        CHECK(contains(with_general, general));
        CHECK(contains(with_own, own.rule_advice["global_reads_not_reused"].get(lang)));
        CHECK_FALSE(contains(with_own, general));
        CHECK_FALSE(contains(with_own, "{advice}"));
        CHECK(contains(with_own, "2" + std::string(lang == Lang::En ? "." : ",") + "4"));  // the measured part stays
    }
}

TEST_CASE("a CUDA program that runs out of time is told why a right kernel can be slow on the emulator; a C++ one is not") {
    const CheckResult r = result(Verdict::Timeout);
    Exercise cuda = exercise();
    cuda.runtime = Runtime::Cuda;
    for (Lang lang : {Lang::En, Lang::Id}) {
        const std::string hint = tr(lang, built_key("explain.timeout.cuda.hint"));
        CHECK(contains(explain(r, cuda, lang), hint));
        CHECK_FALSE(contains(explain(r, exercise(), lang), hint));
    }
    CHECK(contains(explain(r, cuda, Lang::En), "warp operation"));
}

TEST_CASE("fault words: a write-write race says both ways it happens; a wide access inside the buffer runs past its end, never -1 past it") {
    emu::Fault race;
    race.kind = emu::FaultKind::GlobalRace;
    race.space = emu::MemorySpace::Global;
    race.buffer = "out";
    race.index = 7;
    race.size = 16;
    race.thread = {40, 0, 0};
    race.other_thread = {3, 0, 0};
    race.is_write = race.other_is_write = true;
    race.line = 20;
    race.other_line = 20;
    const std::string both = describe_fault(race, Lang::En);
    CAPTURE(both);
    CHECK(contains(both, "Both accesses are writes"));
    CHECK_FALSE(contains(both, "between the write and the read"));
    race.is_write = false;  // a read after another thread's write: the timing advice
    CHECK(contains(describe_fault(race, Lang::En), "between the write and the read"));

    emu::Fault wide;
    wide.kind = emu::FaultKind::OutOfBounds;
    wide.space = emu::MemorySpace::Global;
    wide.buffer = "k";
    wide.index = 4;  // a 16-byte copy from element 4 of 6 floats
    wide.size = 6;
    wide.line = 12;
    for (Lang lang : {Lang::En, Lang::Id}) {
        const std::string text = describe_fault(wide, lang);
        CAPTURE(text);
        CHECK(contains(text, tr(lang, msg::launch_past_end_wide)));
        CHECK_FALSE(contains(text, "-1"));
    }
    wide.index = 8;
    CHECK(contains(describe_fault(wide, Lang::En), ", 3 past its end"));
}

TEST_CASE("a header the compiler could not find: what a file of the exercise's runtime may include instead") {
    CheckResult r = result(Verdict::CompileError);
    Diagnostic d;
    d.file = "mine.cu";
    d.line = 3;
    d.column = 10;
    d.severity = "fatal error";
    d.message = "cub/cub.cuh: No such file or directory";
    r.diagnostics = {d};
    Exercise cuda = exercise();
    cuda.runtime = Runtime::Cuda;
    const std::string en = explain(r, cuda, Lang::En);
    CAPTURE(en);
    CHECK(contains(en, "cub/cub.cuh is not here"));
    CHECK(contains(en, "<cuda_runtime.h>"));
    CHECK(contains(en, "<mma.h>"));
    CHECK(contains(en, "<cooperative_groups/reduce.h>"));
    CHECK_FALSE(contains(en, "bfloat16_bits"));  // attnlab's own headers are not offered
    CHECK(contains(explain(r, cuda, Lang::Id), "tidak ada di sini"));
    r.diagnostics[0].message = "Eigen/Dense: No such file or directory";
    CHECK(contains(explain(r, exercise(), Lang::En), "<attnlab/tensor.hpp>"));
    r.diagnostics[0].severity = "error";
    r.diagnostics[0].message = "'x' was not declared in this scope";
    CHECK_FALSE(contains(explain(r, cuda, Lang::En), "is not here"));
}
