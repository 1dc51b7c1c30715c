#pragma once
// What a CUDA check's verdict names besides the values: the fault the
// emulator stopped a launch at, or a rule the launches broke. Fixtures name a
// cause by its code ("shared_race", "output_not_written"); --json carries the
// code; everything else compares the enums.
#include <optional>
#include <string>

#include "attnlab/common/launch_report.hpp"

namespace attnlab {

// The rules a CUDA exercise's launches are held to besides faults.
enum class KernelRuleCause {
    None,
    OutputNotWritten,        // output elements no kernel wrote
    UncoalescedLoads,        // global loads wasting sectors (or over the sectors-per-request bound)
    UncoalescedStores,       // the same for stores
    MemoryLeak,              // cudaMalloc'd and never freed
    SharedMemoryOverBudget,  // more shared memory per block than the exercise allows
    InputsReloaded,          // a block loaded the same global element twice
    BlockCount,              // a launch whose grid is not the exercise's block count
    GlobalReadsNotReused,    // far more global bytes read than the operation needs (no on-chip reuse)
    NarrowLoads,             // fewer bytes per global load request than 4-byte loads can exceed (no float4)
    NarrowStores,            // the same for stores
    TensorCoresUnderused,    // fewer of the operation's FLOPs through wmma::mma_sync than the exercise asks
    SharedLoadsNotReused,    // more shared load requests per FMA than a micro-tile in registers makes
};
inline constexpr KernelRuleCause kLastKernelRuleCause = KernelRuleCause::SharedLoadsNotReused;

inline const char* rule_cause_code(KernelRuleCause cause) {  // stable: fixtures, --json, message keys
    switch (cause) {
        case KernelRuleCause::None: return "";
        case KernelRuleCause::OutputNotWritten: return "output_not_written";
        case KernelRuleCause::UncoalescedLoads: return "uncoalesced_loads";
        case KernelRuleCause::UncoalescedStores: return "uncoalesced_stores";
        case KernelRuleCause::MemoryLeak: return "memory_leak";
        case KernelRuleCause::SharedMemoryOverBudget: return "shared_memory_over_budget";
        case KernelRuleCause::InputsReloaded: return "inputs_reloaded";
        case KernelRuleCause::BlockCount: return "block_count";
        case KernelRuleCause::GlobalReadsNotReused: return "global_reads_not_reused";
        case KernelRuleCause::NarrowLoads: return "narrow_loads";
        case KernelRuleCause::NarrowStores: return "narrow_stores";
        case KernelRuleCause::TensorCoresUnderused: return "tensor_cores_underused";
        case KernelRuleCause::SharedLoadsNotReused: return "shared_loads_not_reused";
    }
    return "?";
}

struct KernelCause {
    emu::FaultKind fault = emu::FaultKind::None;   // Verdict::KernelFault
    KernelRuleCause rule = KernelRuleCause::None;  // Verdict::KernelRule
    static KernelCause of_fault(emu::FaultKind kind) { return {kind, KernelRuleCause::None}; }
    static KernelCause of_rule(KernelRuleCause cause) { return {emu::FaultKind::None, cause}; }
    bool empty() const { return fault == emu::FaultKind::None && rule == KernelRuleCause::None; }
    std::string code() const { return fault != emu::FaultKind::None ? emu::fault_code(fault) : rule_cause_code(rule); }
    bool operator==(const KernelCause& o) const { return fault == o.fault && rule == o.rule; }
    bool operator!=(const KernelCause& o) const { return !(*this == o); }
};

// The rules whose explanation is a measurement followed by advice that an
// exercise may give in its own words (exercise.json "rule_advice"): the
// general advice fits the operation the rule was written for (a GEMM's
// tiles), an exercise's own fits its kernel (a causal early exit).
inline bool rule_takes_advice(KernelRuleCause cause) { return cause == KernelRuleCause::GlobalReadsNotReused; }

// The cause a code names (a fixture's "expect"); nullopt when it names none.
inline std::optional<KernelCause> kernel_cause_from_code(const std::string& code) {
    for (int k = static_cast<int>(emu::FaultKind::BarrierDivergence); k <= static_cast<int>(emu::kLastFaultKind); ++k)
        if (code == emu::fault_code(static_cast<emu::FaultKind>(k))) return KernelCause::of_fault(static_cast<emu::FaultKind>(k));
    for (int r = static_cast<int>(KernelRuleCause::OutputNotWritten); r <= static_cast<int>(kLastKernelRuleCause); ++r)
        if (code == rule_cause_code(static_cast<KernelRuleCause>(r))) return KernelCause::of_rule(static_cast<KernelRuleCause>(r));
    return std::nullopt;
}

}  // namespace attnlab
