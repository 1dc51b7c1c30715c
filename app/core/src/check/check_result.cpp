#include "attnlab/core/check/check_result.hpp"

namespace attnlab {

// The stable codes of the check's states (--json, fixtures' "expect", message keys).

const char* verdict_code(Verdict v) {
    switch (v) {
        case Verdict::Pass: return "pass";
        case Verdict::WrongAnswer: return "wrong_answer";
        case Verdict::WrongShape: return "wrong_shape";
        case Verdict::NonFinite: return "non_finite";
        case Verdict::CompileError: return "compile_error";
        case Verdict::MissingEntry: return "missing_entry";
        case Verdict::RuntimeError: return "runtime_error";
        case Verdict::Crash: return "crash";
        case Verdict::Timeout: return "timeout";
        case Verdict::MemoryLimit: return "memory_limit";
        case Verdict::OutputLimit: return "output_limit";
        case Verdict::ProtocolError: return "protocol_error";
        case Verdict::ModifiedInput: return "modified_input";
        case Verdict::KernelFault: return "kernel_fault";
        case Verdict::KernelRule: return "kernel_rule";
        case Verdict::Cancelled: return "cancelled";
        case Verdict::InternalError: return "internal_error";
        case Verdict::NotRun: return "not_run";
    }
    return "?";
}

const char* limit_code(LimitKind k) {
    switch (k) {
        case LimitKind::None: return "none";
        case LimitKind::CpuTime: return "cpu_time";
        case LimitKind::WallTime: return "wall_time";
        case LimitKind::Memory: return "memory";
        case LimitKind::Output: return "output";
        case LimitKind::FileSize: return "file_size";
    }
    return "?";
}

const char* problem_code(Problem p) {
    switch (p) {
        case Problem::None: return "none";
        case Problem::SourceTooLarge: return "source_too_large";
        case Problem::DefinesMain: return "defines_main";
        case Problem::CannotReadSource: return "cannot_read_source";
        case Problem::ToolchainMissing: return "toolchain_missing";
        case Problem::CompilerFailed: return "compiler_failed";
        case Problem::CaseDoesNotFitReference: return "case_does_not_fit_reference";
        case Problem::CannotPrepareRun: return "cannot_prepare_run";
        case Problem::CannotStartProgram: return "cannot_start_program";
        case Problem::ChannelCorrupt: return "channel_corrupt";
        case Problem::ExitedBeforeHarness: return "exited_before_harness";
        case Problem::ExitedEarly: return "exited_early";
        case Problem::SandboxKilled: return "sandbox_killed";
        case Problem::CaseNeverReported: return "case_never_reported";
        case Problem::KernelDisagrees: return "kernel_disagrees";
        case Problem::KernelFailed: return "kernel_failed";
        case Problem::IsolationUnavailable: return "isolation_unavailable";
        case Problem::MachineResources: return "machine_resources";
        case Problem::ObjectRefused: return "object_refused";
        case Problem::CompilerOutOfTime: return "compiler_out_of_time";
        case Problem::CompilerOutOfMemory: return "compiler_out_of_memory";
        case Problem::SandboxSetup: return "sandbox_setup";
        case Problem::SourceUnread: return "source_unread";
    }
    return "?";
}

const char* unread_construct_code(UnreadConstruct c) {
    switch (c) {
        case UnreadConstruct::Launch: return "launch";
        case UnreadConstruct::SharedDeclaration: return "shared_declaration";
        case UnreadConstruct::SharedInitialiser: return "shared_initialiser";
    }
    return "?";
}

}  // namespace attnlab
