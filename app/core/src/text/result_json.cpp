#include "attnlab/core/text/report.hpp"

#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/launch_shapes.hpp"
#include "attnlab/core/check/mistakes.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/base/util.hpp"

// check --json: a result as data, with the same words as the text beside them.
namespace attnlab {

namespace {

// Automatic stages: every tensor the learner's Tensor operations made, with
// its line, and the reference stages placed among them.
void add_recorded_stages(const CaseOutcome& c, nlohmann::json& cj) {
    if (c.recorded.empty() && c.recorded_dropped == 0) return;
    nlohmann::json recorded = nlohmann::json::array();
    for (const RecordedTensor& t : c.recorded)
        recorded.push_back({{"line", t.line}, {"op", tensor_op_code(t.op)}, {"shape", t.tensor.shape}});
    nlohmann::json stages = nlohmann::json::array();
    for (const PlacedStage& p : c.placed) {
        if (p.record >= c.recorded.size()) continue;
        const RecordedTensor& t = c.recorded[p.record];
        stages.push_back({{"stage", p.stage}, {"line", t.line}, {"op", tensor_op_code(t.op)}, {"matches", p.matches}});
        recorded[p.record]["stages"].push_back(p.stage);
    }
    cj["recorded_stages"] = std::move(stages);
    cj["recorded"] = std::move(recorded);
    if (c.recorded_dropped) cj["recorded_dropped"] = c.recorded_dropped;
}

}  // namespace

namespace {

nlohmann::json value_json(const Value& v) {
    switch (v.kind) {
        case ValueKind::Tensor: {
            nlohmann::json data = nlohmann::json::array();
            for (float f : v.tensor.data) {
                if (std::isfinite(f)) data.push_back(f);
                else data.push_back(std::isnan(f) ? "nan" : (f < 0 ? "-inf" : "inf"));
            }
            return {{"kind", "tensor"}, {"shape", v.tensor.shape}, {"data", data}};
        }
        case ValueKind::Int: return {{"kind", "int"}, {"value", v.int_value}};
        case ValueKind::Float: return {{"kind", "float"}, {"value", v.float_value}};
    }
    return {};
}

}  // namespace

namespace {

// Every counter of a launch, and the two averages the coalescing rules judge.
nlohmann::json launch_counters_json(const emu::LaunchCounters& counters) {
    nlohmann::json j = {{"sectors_per_load_request", counters.sectors_per_load_request()},
                        {"sectors_per_store_request", counters.sectors_per_store_request()}};
    emu::for_each_counter(counters, [&](const char* name, int64_t value) { j[name] = value; });
    return j;
}

// A CUDA program's case: its launches (shape, fault, the counters the rules
// and the Kernel view read) and what the verdict named.
nlohmann::json learner_kernel_json(const CaseOutcome& c) {
    const LearnerKernels& k = c.kernels;
    nlohmann::json launches = nlohmann::json::array();
    for (const emu::LaunchReport& L : k.launches) {
        nlohmann::json lj = {{"kernel", L.kernel},
                             {"grid", {L.grid.x, L.grid.y, L.grid.z}},
                             {"block", {L.block.x, L.block.y, L.block.z}},
                             {"dynamic_shared_bytes", L.dynamic_shared_bytes},
                             {"fault", L.ok() ? nlohmann::json() : nlohmann::json({{"code", emu::fault_code(L.fault.kind)},
                                                                                  {"tool", emu::sanitizer_tool(L.fault.kind)},
                                                                                  {"block", {L.fault.block.x, L.fault.block.y, L.fault.block.z}},
                                                                                  {"thread", {L.fault.thread.x, L.fault.thread.y, L.fault.thread.z}},
                                                                                  {"line", L.fault.line}})},
                             {"counters", launch_counters_json(L.counters)}};
        launches.push_back(std::move(lj));
    }
    nlohmann::json j = {{"launches", launches}, {"unwritten", k.unwritten_count}};
    if (!k.cause.empty()) j["cause"] = k.cause.code();
    if (c.verdict == Verdict::KernelRule && k.cause.rule != KernelRuleCause::OutputNotWritten)
        j["rule"] = {{"name", k.rule_name}, {"value", k.rule_value}, {"limit", k.rule_limit}};
    return j;
}

}  // namespace

nlohmann::json to_json(const CheckResult& r, const Exercise& ex, Lang lang) {
    nlohmann::json j;
    j["exercise"] = r.exercise_id;
    j["verdict"] = verdict_code(r.verdict);
    j["title"] = verdict_title(r.verdict, r.cause, lang);
    j["message"] = explain(r, ex, lang);
    j["failed_case"] = r.failed_case;
    j["timing_ms"] = {{"compile", r.compile_ms}, {"run", r.run_ms}, {"total", r.total_ms}, {"cpu", r.cpu_ms}};
    j["compile_cached"] = r.compile_cached;
    if (r.signal) j["signal"] = r.signal_name;
    if (r.limit != LimitKind::None) j["limit"] = {{"kind", limit_code(r.limit)}, {"value", r.limit_value}};
    if (r.ran() || r.problem == Problem::IsolationUnavailable) {
        // Which protections the program ran under (or were missing, so it never ran): "applied", "not_asked",
        // "disabled" (an ATTNLAB_NO_* switch) or "refused" (with the errno).
        static const char* const states[] = {"not_asked", "applied", "disabled", "refused"};
        nlohmann::json p = nlohmann::json::object();
        for (sandbox_status::Layer l : sandbox_status::kLayers) {
            const auto& layer = r.protections[l];
            p[sandbox_status::layer_code(l)] = {{"state", states[static_cast<int>(layer.state)]}, {"errno", layer.error}};
        }
        j["protections"] = p;
    }
    if (!r.cause.empty()) j["cause"] = r.cause.code();
    if (r.resources) j["resources"] = resources_to_json(*r.resources, learner_launch_shapes(r));
    if (const std::optional<Performance> perf = check_performance(r, ex)) j["performance"] = performance_to_json(*perf, lang);
    if (r.gpu)
        j["gpu"] = {{"device", r.gpu->device}, {"status", gpu_run_status_code(r.gpu->status)}, {"cases", r.gpu->cases}, {"agreeing", r.gpu->agreeing},
                    {"first_disagreeing_case", r.gpu->first_disagreeing}, {"verdict", verdict_code(r.gpu->verdict)}, {"cause", r.gpu->cause.code()},
                    {"max_abs_error_vs_reference", r.gpu->max_abs_error}, {"detail", r.gpu->detail},
                    {"compile_ms", r.gpu->compile_ms}, {"run_ms", r.gpu->run_ms}};
    if (r.problem != Problem::None) j["problem"] = {{"code", problem_code(r.problem)}, {"message", problem_text(r, lang)}, {"detail", r.detail}};
    if (!r.object_problems.empty()) {
        j["object_problems"] = nlohmann::json::array();
        for (const ObjectProblem& p : r.object_problems)
            j["object_problems"].push_back({{"kind", object_problem_code(p.kind)}, {"symbol", p.symbol}, {"owner", p.owner},
                                            {"message", object_problem_text(p, lang)}});
    }
    if (!r.unread_parts.empty()) {
        j["unread_parts"] = nlohmann::json::array();
        for (const UnreadPart& p : r.unread_parts)
            j["unread_parts"].push_back({{"construct", unread_construct_code(p.construct)}, {"line", p.line}, {"message", unread_part_text(p, lang)}});
    }
    if (!r.mistake && r.verdict != Verdict::Pass)
        if (const DifferenceLocation d = locate_difference(ex, r); !d.stage.empty()) j["first_differing_stage"] = d.stage;
    if (r.mistake)
        j["mistake"] = {{"id", r.mistake->id}, {"stage", r.mistake->stage}, {"title", r.mistake->title.get(lang)},
                        {"message", r.mistake->message.get(lang)}};
    j["diagnostics"] = nlohmann::json::array();
    for (const auto& d : r.diagnostics)
        j["diagnostics"].push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
    j["cases"] = nlohmann::json::array();
    for (const auto& c : r.cases) {
        nlohmann::json cj = {{"index", c.index}, {"name", c.name.get(lang)}, {"verdict", verdict_code(c.verdict)},
                             {"max_abs_error", c.max_abs_error}, {"mismatch_count", c.mismatch_count}};
        if (c.verdict != Verdict::NotRun) cj["actual_shape"] = c.actual.kind == ValueKind::Tensor ? nlohmann::json(c.actual.tensor.shape) : nlohmann::json();
        if (c.expected.kind == ValueKind::Tensor) cj["expected_shape"] = c.expected.tensor.shape;
        cj["mismatches"] = nlohmann::json::array();
        for (const auto& m : c.mismatches)
            cj["mismatches"].push_back({{"index", m.index}, {"actual", format_number(m.actual)}, {"expected", format_number(m.expected)}, {"masked", m.masked}});
        if (!c.exception_what.empty()) cj["exception"] = {{"type", c.exception_type}, {"what", c.exception_what}};
        if (!c.modified_input.empty()) cj["modified_input"] = c.modified_input;
        if (c.one_sided_count) cj["one_sided_count"] = c.one_sided_count;
        cj["probes"] = nlohmann::json::array();
        for (const auto& p : c.probes) cj["probes"].push_back({{"name", p.name}, {"shape", p.tensor.shape}});
        add_recorded_stages(c, cj);
        if (c.verdict != Verdict::NotRun && c.actual.kind != ValueKind::Tensor) cj["actual"] = value_json(c.actual);
        if (!c.kernels.launches.empty() || !c.kernels.cause.empty()) cj["kernel"] = learner_kernel_json(c);
        if (c.reference_kernel)
            cj["cuda"] = {{"backend", kernel_backend_code(c.reference_kernel->backend)},
                          {"device", c.reference_kernel->device},
                          {"max_abs_error_vs_reference", c.reference_kernel->max_abs_error_vs_reference},
                          {"ok", c.reference_kernel->ok}};
        cj["expected"] = c.expected.kind == ValueKind::Tensor ? nlohmann::json({{"kind", "tensor"}, {"shape", c.expected.tensor.shape}}) : value_json(c.expected);
        j["cases"].push_back(cj);
    }
    j["stdout"] = r.stdout_text;
    j["stderr"] = r.stderr_text;
    return j;
}

}  // namespace attnlab
