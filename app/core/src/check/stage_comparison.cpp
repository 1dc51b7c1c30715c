#include "attnlab/core/check/stage_comparison.hpp"

#include <cmath>

#include "attnlab/core/check/compare.hpp"

namespace attnlab {

const TensorData* find_stage(const std::vector<NamedTensor>& list, const std::string& name) {
    for (const auto& nt : list)
        if (nt.name == name) return &nt.tensor;
    return nullptr;
}

std::string output_stage_name(const CaseOutcome& c) {
    if (c.expected.kind != ValueKind::Tensor) return "output";
    const TensorData& out = c.expected.tensor;
    for (auto it = c.stages.rbegin(); it != c.stages.rend(); ++it) {
        if (it->tensor.shape != out.shape || it->tensor.data.size() != out.data.size()) continue;
        // Bit-equal up to NaN: the reference records its output as its last stage.
        bool same = true;
        for (size_t k = 0; same && k < out.data.size(); ++k) {
            const float a = it->tensor.data[k], b = out.data[k];
            same = a == b || (std::isnan(a) && std::isnan(b));
        }
        if (same) return it->name;
    }
    return "output";
}

std::vector<LearnerStage> learner_stages(const CaseOutcome& c) {
    std::vector<LearnerStage> out;
    auto named = [&](const std::string& name) {
        for (const LearnerStage& l : out)
            if (l.name == name) return true;
        return false;
    };
    for (const auto& p : c.probes) out.push_back({p.name, &p.tensor, false, false, 0});
    for (const PlacedStage& p : c.placed) {
        if (p.record >= c.recorded.size() || named(p.stage)) continue;
        const RecordedTensor& r = c.recorded[p.record];
        out.push_back({p.stage, &r.tensor, false, true, r.line});
    }
    if (c.actual.kind != ValueKind::Tensor || !c.has_output()) return out;
    const std::string name = output_stage_name(c);
    if (!named(name)) out.push_back({name, &c.actual.tensor, true, false, 0});
    return out;
}

namespace {

void judge_stage(const TensorData& mine, const TensorData& ref, const Tolerance& tol, StageComparison& sc) {
    sc.learner_shape = mine.shape;
    Comparison cmp = compare_values(Value::of_tensor(mine), Value::of_tensor(ref), tol, 1);
    sc.max_abs_error = cmp.max_abs_error;
    switch (cmp.verdict) {
        case Verdict::Pass: sc.status = StageStatus::Match; break;
        case Verdict::WrongShape: sc.status = StageStatus::ShapeMismatch; break;
        default:
            sc.status = StageStatus::Mismatch;
            sc.first_bad_index = !cmp.mismatches.empty() ? cmp.mismatches[0].index : cmp.nonfinite_index;
            break;
    }
}

}  // namespace

std::vector<StageComparison> compare_stages(const CaseOutcome& c, const Tolerance& tol) {
    std::vector<StageComparison> out;
    const std::vector<LearnerStage> mine = learner_stages(c);
    auto find_mine = [&](const std::string& name) -> const LearnerStage* {
        for (const auto& l : mine)
            if (l.name == name) return &l;
        return nullptr;
    };
    for (const auto& s : c.stages) {
        StageComparison sc;
        sc.name = s.name;
        sc.reference_shape = s.tensor.shape;
        if (const LearnerStage* l = find_mine(s.name)) {
            sc.from_output = l->from_output;
            sc.from_record = l->from_record;
            sc.line = l->line;
            judge_stage(*l->tensor, s.tensor, tol, sc);
        }
        out.push_back(std::move(sc));
    }
    for (const auto& l : mine) {
        if (find_stage(c.stages, l.name)) continue;
        StageComparison sc;
        sc.name = l.name;
        sc.from_output = l.from_output;
        if (l.from_output && c.expected.kind == ValueKind::Tensor) {
            // The output with no reference stage of its own: judged against the expected output.
            sc.reference_shape = c.expected.tensor.shape;
            judge_stage(*l.tensor, c.expected.tensor, tol, sc);
        } else {
            sc.learner_shape = l.tensor->shape;
        }
        out.push_back(std::move(sc));
    }
    return out;
}

std::vector<StageComparison> compare_kernel_stages(const CaseOutcome& c, const Tolerance& tol) {
    std::vector<StageComparison> out;
    if (!c.reference_kernel) return out;
    for (const auto& s : c.stages) {
        StageComparison sc;
        sc.name = s.name;
        sc.reference_shape = s.tensor.shape;
        if (const TensorData* k = find_stage(c.reference_kernel->stages, s.name)) {
            sc.learner_shape = k->shape;
            const Comparison cmp = compare_values(Value::of_tensor(*k), Value::of_tensor(s.tensor), tol, 1);
            sc.max_abs_error = cmp.max_abs_error;
            sc.status = cmp.verdict == Verdict::Pass ? StageStatus::Match
                        : cmp.verdict == Verdict::WrongShape ? StageStatus::ShapeMismatch
                                                             : StageStatus::Mismatch;
            if (sc.status == StageStatus::Mismatch) sc.first_bad_index = !cmp.mismatches.empty() ? cmp.mismatches[0].index : cmp.nonfinite_index;
        }
        out.push_back(std::move(sc));
    }
    return out;
}

int first_divergence(const std::vector<StageComparison>& stages) {
    for (size_t i = 0; i < stages.size(); ++i)
        if (stages[i].status == StageStatus::Mismatch || stages[i].status == StageStatus::ShapeMismatch) return static_cast<int>(i);
    return -1;
}

}  // namespace attnlab
