#include "attnlab/core/check/kernel_versions.hpp"

#include <algorithm>

#include "attnlab/core/check/runner.hpp"  // wait_for_resources

namespace attnlab {

namespace {

bool same_param(const ParamSpec& a, const ParamSpec& b) { return a.name == b.name && a.kind == b.kind && a.shape == b.shape; }

bool same_params(const std::vector<ParamSpec>& a, const std::vector<ParamSpec>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same_param);
}

}  // namespace

bool same_kernel_interface(const Exercise& earlier, const Exercise& current) {
    // Only kernels the learner writes have launches to compare; the entry's
    // name (causal_attention, flash_attention) is free.
    if (earlier.runtime != current.runtime || !current.profile().learner_writes_kernels) return false;
    if (earlier.reference.empty() || earlier.reference != current.reference) return false;
    return same_params(earlier.params, current.params) && same_param(earlier.output, current.output) &&
           earlier.returns.kind == current.returns.kind && earlier.returns.shape == current.returns.shape;
}

std::vector<const Exercise*> earlier_versions(const Course& course, const Exercise& current) {
    std::vector<const Exercise*> out;
    for (const Exercise& e : course.exercises) {
        if (e.id == current.id) return out;
        if (same_kernel_interface(e, current)) out.push_back(&e);
    }
    return {};  // `current` is not in this course: it has no place to be later than anything
}

Exercise version_on_case(const Exercise& earlier, const Exercise& current, int case_index) {
    Exercise v = earlier;
    v.cases = {current.cases.at(static_cast<size_t>(case_index))};
    v.limits = current.limits;
    v.tolerance = current.tolerance;
    v.derived_case_names = current.derived_case_names;
    v.kernel_rules = KernelRules{};
    v.mistakes.clear();
    v.fixtures.clear();
    return v;
}

std::optional<VersionFigures> version_figures(const CheckResult& r, const Exercise& exercise, int case_index) {
    std::optional<Performance> perf = case_performance(r, exercise, case_index);
    if (!perf) return std::nullopt;
    VersionFigures f;
    f.performance = std::move(*perf);
    for (const emu::LaunchReport& L : r.cases[static_cast<size_t>(case_index)].kernels.launches) f.counters.add(L.counters);
    f.launches = static_cast<int>(r.cases[static_cast<size_t>(case_index)].kernels.launches.size());
    return f;
}

namespace {

// Waves summed over launches: each launch fills the GPU anew.
double waves(const Performance& p, size_t gpu) {
    double w = 0;
    for (const LaunchPerformance& L : p.launches)
        if (gpu < L.estimates.size()) w += L.estimates[gpu].waves;
    return w;
}

double estimate_field(const Performance& p, size_t gpu, double TimeEstimate::*field) {
    return gpu < p.estimates.size() ? p.estimates[gpu].*field : 0;
}

}  // namespace

std::vector<VersionRow> version_rows(const VersionFigures& before, const VersionFigures& after, size_t gpu) {
    const Performance &b = before.performance, &a = after.performance;
    const emu::LaunchCounters &cb = before.counters, &ca = after.counters;
    std::vector<VersionRow> rows = {
        {"estimated_time", estimate_field(b, gpu, &TimeEstimate::seconds), estimate_field(a, gpu, &TimeEstimate::seconds), Better::Lower},
        {"dram_bytes", estimate_field(b, gpu, &TimeEstimate::dram_bytes), estimate_field(a, gpu, &TimeEstimate::dram_bytes), Better::Lower},
        {"requested_bytes", double(b.bytes), double(a.bytes), Better::Lower},
        {"traffic_ratio", b.traffic_ratio, a.traffic_ratio, Better::Lower},
    };
    if (b.intensity || a.intensity) rows.push_back({"intensity", b.intensity.value_or(0), a.intensity.value_or(0), Better::Higher});
    if (b.tensor_flops > 0 || a.tensor_flops > 0) rows.push_back({"tensor_flops", b.tensor_flops, a.tensor_flops, Better::Higher});
    const std::vector<VersionRow> counters = {
        {"launches", double(before.launches), double(after.launches), Better::Neither},
        {"blocks", double(cb.blocks), double(ca.blocks), Better::Neither},
        {"threads", double(cb.threads), double(ca.threads), Better::Neither},
        {"waves", waves(b, gpu), waves(a, gpu), Better::Neither},
        {"global_load_requests", double(cb.global_load_requests), double(ca.global_load_requests), Better::Lower},
        {"sectors_per_load_request", cb.sectors_per_load_request(), ca.sectors_per_load_request(), Better::Lower},
        {"global_reloaded_bytes", double(cb.global_reloaded_bytes), double(ca.global_reloaded_bytes), Better::Lower},
        {"shared_load_requests", double(cb.shared_load_requests), double(ca.shared_load_requests), Better::Neither},
        {"shared_bank_conflicts", double(cb.shared_bank_conflicts), double(ca.shared_bank_conflicts), Better::Lower},
        {"barriers", double(cb.barriers), double(ca.barriers), Better::Neither},
    };
    rows.insert(rows.end(), counters.begin(), counters.end());
    return rows;
}

VersionComparison compare_versions(const Exercise& current, const CheckResult& current_result, const Exercise& earlier_on_case,
                                   CheckResult earlier_result, int case_index) {
    wait_for_resources(earlier_result);  // its registers give the estimate's occupancy
    VersionComparison c;
    c.earlier_id = earlier_on_case.id;
    c.current_id = current.id;
    c.case_index = case_index;
    c.after = version_figures(current_result, current, case_index);
    c.before = version_figures(earlier_result, earlier_on_case, 0);  // the one case it ran
    if (c.before) c.before->performance.case_index = case_index;
    c.earlier_result = std::move(earlier_result);
    return c;
}

}  // namespace attnlab
