#pragma once
// What a check found, as data. Words for the learner are made from this by
// report.cpp in the learner's language; nothing here is pre-formatted text
// except what came from the learner's own program or the compiler.
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/course.hpp"

namespace attnlab {

enum class Verdict {
    Pass,
    WrongAnswer,
    WrongShape,
    NonFinite,
    CompileError,
    MissingEntry,
    RuntimeError,   // an uncaught C++ exception in the entry point
    Crash,          // killed by a signal
    Timeout,
    MemoryLimit,
    OutputLimit,
    ProtocolError,  // the result channel was corrupted or closed early
    Cancelled,
    InternalError,  // attnlab or the exercise data is at fault, not the learner
    NotRun,         // a later case never ran because an earlier one crashed
};
const char* verdict_code(Verdict v);  // "pass", "wrong_answer", ... (stable: used in --json)

struct Mismatch {
    std::vector<int64_t> index;
    double actual = 0;
    double expected = 0;
    bool masked = false;  // the reference has -inf here (a masked position)
};

struct Diagnostic {
    std::string file;  // as the learner knows it
    int line = 0;
    int column = 0;
    std::string severity;  // error, warning, note, fatal error
    std::string message;
    std::string context;   // the compiler's source excerpt and caret, if any
};

enum class LimitKind { None, CpuTime, WallTime, Memory, Output };

struct CaseOutcome {
    int index = 0;
    LocalizedText name;
    Verdict verdict = Verdict::NotRun;
    Value actual;
    Value expected;
    std::vector<NamedTensor> probes;   // the learner's probe() records
    std::vector<NamedTensor> stages;   // the reference's named intermediates
    std::vector<std::string> tokens;
    // Comparison
    double max_abs_error = 0;
    int64_t mismatch_count = 0;
    std::vector<Mismatch> mismatches;  // the first few, in row-major order
    std::vector<int64_t> nonfinite_index;
    double nonfinite_value = 0;
    double nonfinite_expected = 0;
    // Runtime error
    std::string exception_type;
    std::string exception_what;
    double elapsed_ms = 0;
};

struct CheckResult {
    std::string exercise_id;
    Verdict verdict = Verdict::InternalError;
    std::vector<CaseOutcome> cases;
    int failed_case = -1;  // first case that did not pass (-1: none / not applicable)

    // Compilation
    std::vector<Diagnostic> diagnostics;
    std::string compiler_output;  // raw, paths mapped, capped
    bool compile_cached = false;
    std::string missing_entry_signature;

    // Process
    int signal = 0;
    std::string signal_name;
    int exit_code = 0;
    LimitKind limit = LimitKind::None;
    double limit_value = 0;   // seconds, MB or KB depending on `limit`
    bool crashed_before_entry = false;  // during static initialisation
    std::string stdout_text;  // capped
    std::string stderr_text;  // capped
    bool output_truncated = false;
    std::string detail;       // protocol or internal error detail (English, technical)

    // Timings (ms)
    double compile_ms = 0;
    double run_ms = 0;
    double total_ms = 0;
    long cpu_ms = 0;
    long maxrss_kb = 0;

    bool passed() const { return verdict == Verdict::Pass; }
};

}  // namespace attnlab
