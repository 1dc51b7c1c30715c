#pragma once
// What a check found, as data. Words for the learner are made from this by
// report.cpp in the learner's language; nothing here is pre-formatted text
// except what came from the learner's own program or the compiler.
#include <array>
#include <future>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/recorded_tensor.hpp"
#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/common/value.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/common/launch_report.hpp"
#include "attnlab/core/check/learner_object.hpp"

namespace attnlab {

struct ResourceReport;  // gpu_resources.hpp: NVRTC's registers / shared memory / spills per kernel

// Where the reference op's kernel ran (KernelOutcome::backend).
enum class KernelBackend { Emulator, Gpu };
inline const char* kernel_backend_code(KernelBackend backend) {  // stable: --json
    return backend == KernelBackend::Gpu ? "gpu" : "emulator";
}

// How a learner's file fared on a real GPU (GpuSummary::status).
enum class GpuRunStatus {
    Ran,            // every case reported, and the program ended cleanly
    CompileFailed,  // nvcc refused the file
    RunFailed,      // the program did not finish its cases
};
inline const char* gpu_run_status_code(GpuRunStatus status) {  // stable: --json
    switch (status) {
    case GpuRunStatus::Ran: return "ran";
    case GpuRunStatus::CompileFailed: return "compile_failed";
    case GpuRunStatus::RunFailed: return "run_failed";
    }
    return "run_failed";
}

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
    ModifiedInput,  // the learner's function wrote into one of its input tensors
    KernelFault,    // a CUDA kernel stopped by the emulator or the GPU (out of bounds, race, barrier divergence)
    KernelRule,     // a CUDA program broke a rule of the exercise: output left unwritten, uncoalesced loads
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

enum class LimitKind { None, CpuTime, WallTime, Memory, Output, FileSize };
const char* limit_code(LimitKind k);  // "cpu_time", ... (stable: used in --json)

// What exactly went wrong when it is not the learner's values: a code, worded
// in the learner's language by the message tables; CheckResult::detail holds
// the technical data that goes with it (a path, an OS error, a protocol code).
enum class Problem {
    None,
    SourceTooLarge,           // limit_value: the file's size in bytes
    DefinesMain,              // the harness owns main()
    CannotReadSource,         // detail: the path
    ToolchainMissing,         // detail: what is missing
    CompilerFailed,           // the compiler could not be started; detail: why
    CaseDoesNotFitReference,  // problem_case; detail: the reference's own (author-facing) message
    CannotPrepareRun,         // detail: the OS error
    CannotStartProgram,       // detail: the OS error
    ChannelCorrupt,           // detail: the protocol's decode error code
    ExitedBeforeHarness,      // exit_code
    ExitedEarly,              // exit_code
    SandboxKilled,            // the program killed its supervisor
    CaseNeverReported,        // problem_case
    KernelDisagrees,          // the CUDA kernel and the Eigen reference differ: attnlab's fault
                              // problem_case; detail: the numbers (max |Δ|, atol, rtol)
    KernelFailed,             // the CUDA kernel of the reference op faulted or refused the case:
                              // problem_case; detail: the fault code or the input error
    IsolationUnavailable,     // the sandbox could not apply a protection and the user did not opt in
                              // to running without it: nothing ran; `protections` says which
    MachineResources,         // a full disk, a quota or the file-size limit stopped the toolchain; detail: its words
    ObjectRefused,            // the learner's object defines what no exercise file may (CheckResult::object_problems): not linked
    CompilerOutOfTime,        // the compiler ran out of time on the learner's code; limit_value: its seconds
    CompilerOutOfMemory,      // the compiler ran out of memory on the learner's code; limit_value: its MB
    SandboxSetup,             // the sandbox could not prepare a run (attnlab's set-up, not the learner's code); detail: what
    SourceUnread,             // the runtime's rewrite cannot read part of the file (CheckResult::unread_parts): not compiled
};
const char* problem_code(Problem p);  // "source_too_large", ... (stable: used in --json)
const char* unread_construct_code(UnreadConstruct c);  // "launch", "shared_declaration", ... (stable: --json)

// A catalogued mistake that the learner's output matches (see the
// reference's Mistake): the words come from the course's catalogue.
struct MistakeMatch {
    std::string id;
    std::string stage;   // where it happens, e.g. "scores"
    LocalizedText title;
    LocalizedText message;
};

// One launch of the reference op's CUDA kernel pipeline, as plain data (the
// core's types stay free of the emulator's): what the Kernel view and the
// JSON need.
struct KernelLaunchSummary {
    std::string kernel;
    std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
    bool ok = true;
    double sectors_per_load_request = 0;
    int64_t global_pages = 0;
    int64_t shared_bank_conflicts = 0;
    int64_t barriers = 0;
    std::optional<emu::LaunchCounters> counters;  // the emulator's counters (none on a GPU); text/launch_words words them
};

// The reference op run as a CUDA kernel (GPU, else the CPU emulator) on one
// case, beside the Eigen reference: the third column of a check.
struct KernelOutcome {
    KernelBackend backend = KernelBackend::Emulator;
    std::string device;    // "CPU emulator", "NVIDIA H200"
    Value output;
    std::vector<NamedTensor> stages;  // named like the reference's stages
    double max_abs_error_vs_reference = 0;  // over the output and every stage both record
    std::string disagreeing_stage;  // the first stage (or "output") beyond tolerance, "" when none
    bool ok = false;       // ran, and within the exercise's tolerance of the reference, stages included
    std::string fault_code;  // the kernel's fault ("out_of_bounds", ...), "" when none
    emu::Fault fault;        // that fault as the emulator reported it (kind None: none); text/launch_words words it
    std::string input_error; // the kernel refused the inputs (internal, English)
    std::vector<KernelLaunchSummary> launches;
};

// A CUDA exercise's file also compiled with nvcc and run on a real GPU (where
// attnlab finds one): evidence beside the verdict, which stays the
// emulator's (deterministic, with per-access checks).
struct GpuSummary {
    std::string device;            // "NVIDIA H200"
    GpuRunStatus status = GpuRunStatus::Ran;
    int cases = 0;                 // cases that reported
    int agreeing = 0;              // of those, the ones within tolerance of the reference
    int first_disagreeing = -1;    // the first case that did not (index)
    Verdict verdict = Verdict::Pass;  // its verdict on the GPU
    KernelCause cause;             // its kernel cause (a fault, or output no kernel wrote)
    double max_abs_error = 0;      // over the cases that returned values
    std::string detail;            // nvcc's first error, the CUDA error, or how the process ended
    double compile_ms = 0, run_ms = 0;
    std::vector<int64_t> device_time_ns;  // per case index: the learner's function on the GPU (-1: not measured)
};

// A CUDA program's case, the learner's side of it: their own kernel launches
// on the emulator (with faults, counters and every block's accesses), what
// the verdict named, and the figures behind it.
struct LearnerKernels {
    std::vector<emu::LaunchReport> launches;
    KernelCause cause;                 // KernelFault: the fault; KernelRule: the rule
    int64_t unwritten_count = 0;       // output elements no kernel wrote
    int64_t first_unwritten = -1;      // row-major index of the first
    int64_t host_set_count = 0;        // of the unwritten, set by cudaMemset/cudaMemcpy instead
    int64_t leaked_buffers = 0, leaked_bytes = 0;  // cudaMalloc'd and never freed
    std::string first_leak_name;       // "cudaMalloc:40"
    int first_leak_line = 0;
    double rule_value = 0;             // KernelRule: the measured figure (e.g. sectors per request)
    double rule_limit = 0;             // KernelRule: the exercise's bound
    std::string rule_name;             // KernelRule: the exercise.json rule that fired, "" for built-in causes
};

// A reference stage found among the learner's recorded tensors
// (check/stage_matching.cpp): by value, equal to the reference's stage within
// the exercise's tolerance, or — when the check named a catalogued mistake —
// equal to that mistake's own version of the stage (the learner's stage,
// computed the mistaken way: it differs from the reference's).
struct PlacedStage {
    std::string stage;   // the reference's stage name
    size_t record = 0;   // index in CaseOutcome::recorded
    bool matches = true; // false: placed through the named mistake
};

// One case of a check. The learner's side: their value (`actual`), probes,
// the comparison, a runtime error and, for a CUDA program, their own
// `kernels`. The reference's side: `expected`, its `stages` and
// `reference_kernel`. A real GPU's run of the file is CheckResult::gpu
// (per case: GpuSummary::device_time_ns).
struct CaseOutcome {
    int index = 0;
    LocalizedText name;
    Verdict verdict = Verdict::NotRun;
    Value actual;
    Value expected;
    std::vector<NamedTensor> probes;   // the learner's probe() records
    std::vector<RecordedTensor> recorded;  // automatic stages: what their Tensor operations made, in order, with lines
    uint32_t recorded_dropped = 0;     // tensors the recorder did not keep (the protocol's limits)
    std::vector<PlacedStage> placed;   // reference stages found among `recorded`, in pipeline order
    std::vector<NamedTensor> stages;   // the reference's named intermediates
    std::optional<KernelOutcome> reference_kernel;  // the reference op as a CUDA kernel, when it has one and attnlab has kernels
    std::vector<std::string> tokens;
    // Comparison
    double max_abs_error = 0;
    int64_t mismatch_count = 0;
    int64_t one_sided_count = 0;       // of those, where one side is ±inf or NaN (max_abs_error ignores them)
    std::vector<Mismatch> mismatches;  // the first few, in row-major order
    std::vector<int64_t> nonfinite_index;
    double nonfinite_value = 0;
    double nonfinite_expected = 0;
    // Runtime error
    std::string exception_type;
    std::string exception_what;
    std::string modified_input;  // ModifiedInput: the parameter's name
    std::string unsent_shape;    // WrongShape of an output too large to send back: its shape as text
    uint32_t probes_dropped = 0;  // probe() calls past the protocol's limits
    double elapsed_ms = 0;
    LearnerKernels kernels;            // CUDA programs: the learner's own kernels (empty for C++)
    // Did the learner's function return something that was compared?
    bool has_output() const {
        return verdict == Verdict::Pass || verdict == Verdict::WrongAnswer || verdict == Verdict::WrongShape ||
               verdict == Verdict::NonFinite || (verdict == Verdict::KernelRule && kernels.unwritten_count == 0);
    }
};

// A wrong answer no catalogued mistake explains still gets the first stage
// that differs, on the first failing case: from the learner's probes or
// placed recorded tensors when one differs, else worked out from the output
// alone (check/mistakes.hpp: locate_difference). `stage` is "" when neither says.
struct DifferenceLocation {
    std::string stage;
    int case_index = -1;
    int sequence = -1;         // batched exercises: the first sequence that differs
    bool from_probes = false;
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
    std::vector<ObjectProblem> object_problems;  // Problem::ObjectRefused: what the object defines that it may not
    std::vector<UnreadPart> unread_parts;        // Problem::SourceUnread: what the rewrite cannot read, by line

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
    Problem problem = Problem::None;
    int problem_case = -1;    // the case a problem is about (CaseDoesNotFitReference, CaseNeverReported)
    std::string detail;       // technical data for `problem` (a path, an OS error, a code): never prose
    std::optional<MistakeMatch> mistake;  // a failing check whose output matches a catalogued mistake
    // Where a failing check without a named mistake first differs, worked out
    // once by the runner (locate_difference reads it; views ask that, never re-judge).
    std::optional<DifferenceLocation> difference;
    KernelCause cause;        // CUDA: the failed case's kernels.cause
    // CUDA: the learner's file compiled by NVRTC for one architecture (null for
    // C++ exercises, or when the check did not get that far).
    std::shared_ptr<const ResourceReport> resources;
    // The same report while NVRTC is still compiling: the verdict does not
    // wait for it when no launch could be refused for its registers (see
    // Runner::run_with_register_counts). wait_for_resources() (runner.hpp)
    // moves it into `resources`; a window polls it (resources_ready()).
    std::shared_future<std::shared_ptr<const ResourceReport>> resources_pending;
    bool resources_ready() const;  // nothing pending, or NVRTC has finished
    std::optional<GpuSummary> gpu;  // CUDA: the same file on a real GPU, where one exists

    // Timings (ms)
    double compile_ms = 0;
    double run_ms = 0;
    double total_ms = 0;
    long cpu_ms = 0;
    long maxrss_kb = 0;
    // Which of the sandbox's protections the learner's program ran under
    // (a layer the kernel refused is reported, never silently dropped).
    sandbox_status::Protections protections;

    bool passed() const { return verdict == Verdict::Pass; }
    // Did the learner's program run on the cases (as opposed to not compiling,
    // being cancelled, or attnlab failing before it started)?
    bool ran() const {
        return verdict != Verdict::CompileError && verdict != Verdict::MissingEntry && verdict != Verdict::InternalError &&
               verdict != Verdict::Cancelled;
    }
};

}  // namespace attnlab
