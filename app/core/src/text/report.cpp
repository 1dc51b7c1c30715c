#include "attnlab/core/text/report.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "attnlab/common/protocol.hpp"  // ProtocolLimits: the probes a case keeps
#include "attnlab/core/base/install_layout.hpp"  // the CUDA headers a learner's .cu may include
#include "attnlab/core/check/compiler.hpp"  // kMaxSourceBytes
#include "attnlab/core/check/diagnostics.hpp"  // missing_header
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/launch_shapes.hpp"
#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/named_messages.hpp"
#include "attnlab/core/check/mistakes.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/check/stage_comparison.hpp"  // learner_stages: the line of a placed stage
#include "attnlab/core/check/verdict.hpp"  // case_rule_values: the multiply-adds the shared-load rule weighed
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/core/text/protection_words.hpp"
#include "attnlab/core/base/util.hpp"

namespace attnlab {

namespace {

// The reference kernel's fault in the learner's language (launch_words.cpp
// words it); an input the kernel refused is internal and stays as its detail.
std::string kernel_fault_text(const CheckResult& r, Lang lang) {
    if (r.problem_case < 0 || r.problem_case >= static_cast<int>(r.cases.size())) return r.detail;
    const auto& kernel = r.cases[static_cast<size_t>(r.problem_case)].reference_kernel;
    if (!kernel || kernel->fault.kind == emu::FaultKind::None) return "`" + r.detail + "`";
    return describe_fault(kernel->fault, lang);
}

}  // namespace

// One thing the learner's object may not define, in words, under the name the
// learner wrote (demangled).
std::string object_problem_text(const ObjectProblem& p, Lang lang) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(p.symbol.c_str(), nullptr, nullptr, &status);
    const std::string name = status == 0 && demangled ? demangled : p.symbol;
    std::free(demangled);
    MessageKey key = msg::object_reserved_name;
    switch (p.kind) {
        case ObjectProblemKind::LibraryName: key = msg::object_library_name; break;
        case ObjectProblemKind::ReservedName: key = msg::object_reserved_name; break;
        case ObjectProblemKind::RunsBeforeHarness: key = msg::object_runs_before_harness; break;
        case ObjectProblemKind::NotInstrumented: key = msg::object_not_instrumented; break;
    }
    return tr(lang, key, {{"name", name}, {"owner", p.owner}});
}

std::string unread_part_text(const UnreadPart& part, Lang lang) {
    return tr(lang, built_key(std::string("source.unread.") + unread_construct_code(part.construct)), {{"line", std::to_string(part.line)}});
}

std::string problem_text(const CheckResult& r, Lang lang) {
    if (r.problem == Problem::None) return "";
    std::map<std::string, std::string> args = {
        {"detail", r.detail}, {"code", std::to_string(r.exit_code)}, {"case", std::to_string(r.problem_case + 1)}};
    if (r.problem == Problem::KernelFailed) args["fault"] = kernel_fault_text(r, lang);
    if (r.problem == Problem::IsolationUnavailable) args["detail"] = isolation_refusal_text(r.protections, lang);
    if (r.problem == Problem::SourceTooLarge) args["limit"] = whole_megabytes(kMaxSourceBytes);
    if (r.problem == Problem::CompilerOutOfTime) args["seconds"] = format_number(r.limit_value, lang);
    if (r.problem == Problem::CompilerOutOfMemory) args["megabytes"] = format_count(static_cast<int64_t>(r.limit_value), lang);
    return tr(lang, built_key(std::string("problem.") + problem_code(r.problem)), args);
}

std::string cuda_backend_text(const KernelOutcome& k, Lang lang) {
    return k.backend == KernelBackend::Gpu ? tr(lang, msg::cuda_backend_gpu, {{"device", k.device}}) : tr(lang, msg::cuda_backend_emulator);
}

std::string explain_cuda(const CheckResult& r, Lang lang) {
    const KernelOutcome* first = nullptr;
    bool all_ok = true;
    double worst = 0;
    int count = 0;
    for (const auto& c : r.cases) {
        if (!c.reference_kernel) continue;
        if (!first) first = &*c.reference_kernel;
        all_ok = all_ok && c.reference_kernel->ok;
        worst = std::max(worst, c.reference_kernel->max_abs_error_vs_reference);
        ++count;
    }
    if (!first) return "";
    bool faulted = false;
    for (const auto& c : r.cases)
        faulted = faulted || (c.reference_kernel && (!c.reference_kernel->fault_code.empty() || !c.reference_kernel->input_error.empty()));
    const std::string backend = cuda_backend_text(*first, lang);
    if (faulted) return tr(lang, msg::explain_cuda_faulted, {{"backend", backend}});
    if (!all_ok) return tr(lang, msg::explain_cuda_failed, {{"backend", backend}});
    return tr(lang, count == 1 ? msg::explain_cuda_agrees_one : msg::explain_cuda_agrees,
              {{"backend", backend}, {"count", format_count(count, lang)}, {"max_error", format_number(worst, lang)}});
}

std::string verdict_title(Verdict v, Lang lang) { return tr(lang, built_key(std::string("verdict.") + verdict_code(v))); }

std::string verdict_title(Verdict v, const KernelCause& cause, Lang lang) {
    if (v == Verdict::KernelRule && cause.rule == KernelRuleCause::MemoryLeak) return tr(lang, msg::verdict_kernel_rule_memory_leak);
    return verdict_title(v, lang);
}

std::string format_index(const std::vector<int64_t>& index, const std::vector<std::string>& dims, Lang lang) {
    std::string s = "(";
    for (size_t i = 0; i < index.size(); ++i) {
        if (i) s += ", ";
        if (i < dims.size() && dims.size() == index.size()) {
            const std::string key = "dim." + dims[i];
            s += (has_message(lang, key) ? tr(lang, built_key(key)) : dims[i]) + " ";
        }
        s += std::to_string(index[i]);
    }
    return s + ")";
}

namespace {

std::string describe_value(const Value& v) {
    switch (v.kind) {
        case ValueKind::Tensor: return "tensor " + shape_to_string(v.tensor.shape);
        case ValueKind::Int: return "int";
        case ValueKind::Float: return "float";
    }
    return "?";
}

// "4 [one head (H = 1), T = 33]": brackets, since case names have parentheses of their own.
std::string case_label(const CaseOutcome& c, Lang lang) {
    return tr(lang, msg::explain_case_label, {{"n", std::to_string(c.index + 1)}, {"name", c.name.get(lang)}});
}

std::string scalar_text(const Value& v, Lang lang) {
    if (v.kind == ValueKind::Int) return format_count(v.int_value, lang);
    if (v.kind == ValueKind::Float) return format_number(v.float_value, lang);
    return shape_to_string(v.tensor.shape);
}

std::string size_text(double bytes, Lang lang) { return format_fixed(bytes / (1024.0 * 1024.0), 1, lang) + " MB"; }

std::string dim3_text(const emu::Dim3& d) {
    if (d.z > 1) return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
    if (d.y > 1) return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ")";
    return std::to_string(d.x);
}

// The learner's launch that faulted, with the emulator's own words for the
// fault (block, thread, line, buffer and index, in the learner's language).
std::string explain_learner_kernel_fault(const CaseOutcome& c, Lang lang, const std::string& label) {
    for (size_t i = 0; i < c.kernels.launches.size(); ++i) {
        const emu::LaunchReport& L = c.kernels.launches[i];
        if (L.ok()) continue;
#if ATTNLAB_HAVE_KERNELS
        const std::string detail = describe_fault(L.fault, lang);
#else
        const std::string detail = std::string(emu::sanitizer_tool(L.fault.kind)) + ": " + fault_name(emu::fault_code(L.fault.kind), lang);
#endif
        return tr(lang, msg::explain_learner_kernel_fault,
                  {{"case", label}, {"kernel", L.kernel}, {"launch", std::to_string(i + 1)}, {"grid", dim3_text(L.grid)},
                   {"block", dim3_text(L.block)}, {"detail", detail}});
    }
    return tr(lang, msg::explain_kernel_fault, {{"case", label}, {"detail", fault_name(c.kernels.cause.code(), lang)}});
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
    std::vector<int64_t> index(shape.size(), 0);
    for (size_t k = shape.size(); k-- > 0;) {
        if (shape[k] <= 0) break;
        index[k] = flat % shape[k];
        flat /= shape[k];
    }
    return index;
}

int first_launch_with_blocks_other_than(const std::vector<emu::LaunchReport>& launches, int64_t blocks) {
    for (size_t i = 0; i < launches.size(); ++i)
        if (static_cast<int64_t>(launches[i].grid.count()) != blocks) return int(i);
    return -1;
}

// A rule's measured figure, two decimals; three when it lies just past its
// bound, which it must not print as ("1.00× ... at most 1×", "160.00 ... at least 160").
std::string rule_figure(const LearnerKernels& k, Lang lang) {
    const bool near_bound = k.rule_value > k.rule_limit ? k.rule_value < k.rule_limit * 1.01 : k.rule_value > k.rule_limit * 0.99;
    return format_fixed(k.rule_value, near_bound ? 3 : 2, lang);
}

// The figure with what it is made of: the requests the launches made and the
// multiply-adds the case needs, from the same expression the check weighed.
std::string explain_shared_loads_not_reused(const CaseOutcome& c, const Exercise& ex, Lang lang, const std::string& label) {
    const LearnerKernels& k = c.kernels;
    int64_t requests = 0;
    for (const emu::LaunchReport& L : k.launches) requests += L.counters.shared_load_requests;
    const KernelRules::SharedLoadsPerFma& rule = ex.kernel_rules.max_shared_load_requests_per_warp_fma;
    int64_t fmas = 0;
    if (c.index >= 0 && size_t(c.index) < ex.cases.size())
        fmas = case_rule_values(ex.kernel_rules, case_names(ex.params, {ex.cases[size_t(c.index)]}, ex.derived_case_names).front()).fmas;
    return tr(lang, msg::explain_kernel_rule_shared_loads_not_reused,
              {{"case", label}, {"value", rule_figure(k, lang)}, {"limit", format_number(k.rule_limit, lang)},
               {"requests", format_count(requests, lang)}, {"fmas", format_count(fmas, lang)}, {"expr", rule.fmas},
               {"warp_fmas", fmas % 32 == 0 ? format_count(fmas / 32, lang) : format_fixed(double(fmas) / 32.0, 1, lang)}});
}

std::string explain_kernel_rule(const CaseOutcome& c, const Exercise& ex, Lang lang, const std::string& label) {
    const LearnerKernels& k = c.kernels;
    if (k.cause.rule == KernelRuleCause::OutputNotWritten) {
        if (k.launches.empty()) return tr(lang, msg::explain_kernel_rule_no_launch, {{"case", label}, {"name", ex.output.name}});
        // Set by cudaMemset or cudaMemcpy: not the thread count, but where the
        // values came from (the exercise checks what a kernel computes).
        const MessageKey key = k.host_set_count > 0 ? msg::explain_kernel_rule_output_set_by_host : msg::explain_kernel_rule_output_not_written;
        return tr(lang, key,
                  {{"case", label}, {"count", format_count(k.unwritten_count, lang)}, {"total", format_number(k.rule_limit, lang)},
                   {"name", ex.output.name},
                   {"index", format_index(unravel(k.first_unwritten, c.expected.tensor.shape), ex.returns.dims, lang)}});
    }
    if (k.cause.rule == KernelRuleCause::MemoryLeak)
        return tr(lang, msg::explain_kernel_rule_memory_leak,
                  {{"case", label}, {"count", format_count(k.leaked_buffers, lang)}, {"bytes", format_count(static_cast<int64_t>(k.leaked_bytes), lang)},
                   {"line", std::to_string(k.first_leak_line)}});
    if (k.cause.rule == KernelRuleCause::BlockCount) {
        const int launch = first_launch_with_blocks_other_than(k.launches, static_cast<int64_t>(k.rule_limit));
        return tr(lang, msg::explain_kernel_rule_block_count,
                  {{"case", label}, {"grid", launch >= 0 ? dim3_text(k.launches[size_t(launch)].grid) : "?"},
                   {"blocks", format_count(static_cast<int64_t>(k.rule_value), lang)}, {"required", format_count(static_cast<int64_t>(k.rule_limit), lang)},
                   {"expr", ex.kernel_rules.blocks_per_launch}});
    }
    if (k.cause.rule == KernelRuleCause::SharedLoadsNotReused) return explain_shared_loads_not_reused(c, ex, lang, label);
    const std::string variant = k.rule_name == "max_wasted_sector_ratio" ? ".wasted" : "";
    const bool in_bytes = k.cause.rule == KernelRuleCause::SharedMemoryOverBudget || k.cause.rule == KernelRuleCause::InputsReloaded;
    const std::string value = in_bytes ? format_count(static_cast<int64_t>(k.rule_value), lang) : rule_figure(k, lang);
    // A rule that takes advice: the exercise's own words, else attnlab's general ones.
    const auto own = ex.rule_advice.find(k.cause.code());
    const std::string advice = !rule_takes_advice(k.cause.rule) ? ""
                               : own != ex.rule_advice.end() ? own->second.get(lang)
                                                             : tr(lang, built_key("explain.kernel_rule." + k.cause.code() + ".advice"));
    return tr(lang, built_key("explain.kernel_rule." + k.cause.code() + variant),
              {{"case", label}, {"value", value}, {"limit", format_number(k.rule_limit, lang)}, {"advice", advice}});
}

std::string explain_case(const CheckResult& r, const CaseOutcome& c, const Exercise& ex, Lang lang) {
    const std::string label = case_label(c, lang);
    switch (c.verdict) {
        case Verdict::WrongShape:
            if (!c.unsent_shape.empty())  // too large to send back: only its shape came
                return tr(lang, msg::explain_wrong_shape,
                          {{"case", label},
                           {"expected", c.expected.kind == ValueKind::Tensor ? shape_to_string(c.expected.tensor.shape) : describe_value(c.expected)},
                           {"actual", c.unsent_shape}});
            if (c.actual.kind != c.expected.kind || c.actual.kind != ValueKind::Tensor)
                return tr(lang, msg::explain_wrong_kind, {{"case", label}, {"expected", describe_value(c.expected)}, {"actual", describe_value(c.actual)}});
            return tr(lang, msg::explain_wrong_shape,
                      {{"case", label}, {"expected", shape_to_string(c.expected.tensor.shape)}, {"actual", shape_to_string(c.actual.tensor.shape)}});
        case Verdict::WrongAnswer: {
            if (c.expected.kind != ValueKind::Tensor)
                return tr(lang, msg::explain_scalar_mismatch, {{"case", label}, {"actual", scalar_text(c.actual, lang)}, {"expected", scalar_text(c.expected, lang)}});
            std::string s = tr(lang, msg::explain_wrong_answer,
                               {{"case", label},
                                {"count", format_count(c.mismatch_count, lang)},
                                {"total", format_count(c.expected.tensor.numel(), lang)},
                                {"max_error", format_number(c.max_abs_error, lang)},
                                {"atol", format_short(ex.tolerance.atol, lang)},
                                {"rtol", format_short(ex.tolerance.rtol, lang)}});
            for (const Mismatch& m : c.mismatches) {
                s += "\n  - " + tr(lang, m.masked ? msg::explain_mismatch_masked : msg::explain_mismatch,
                                   {{"index", format_index(m.index, ex.returns.dims, lang)},
                                    {"actual", format_number(m.actual, lang)},
                                    {"expected", format_number(m.expected, lang)}});
            }
            if (c.one_sided_count > 0) s += "\n" + tr(lang, msg::explain_one_sided, {{"count", format_count(c.one_sided_count, lang)}});
            return s;
        }
        case Verdict::NonFinite:
            return tr(lang, msg::explain_non_finite,
                      {{"case", label},
                       {"value", format_number(c.nonfinite_value, lang)},
                       {"index", format_index(c.nonfinite_index, ex.returns.dims, lang)},
                       {"expected", format_number(c.nonfinite_expected, lang)},
                       {"hint", ex.non_finite_hint.en.empty() ? tr(lang, msg::explain_non_finite_hint) : ex.non_finite_hint.get(lang)}});
        case Verdict::RuntimeError:
            if (c.exception_type == "attnlab::emu::HostAccessError")  // a CUDA host function touched device memory
                return tr(lang, msg::explain_host_device_access, {{"case", label}, {"what", c.exception_what}});
            return tr(lang, msg::explain_runtime_error, {{"case", label}, {"type", c.exception_type}, {"what", c.exception_what}});
        case Verdict::MemoryLimit:
            return tr(lang, msg::explain_memory_limit, {{"case", label}, {"limit", format_count(ex.limits.memory_mb, lang)}});
        case Verdict::Crash: {
            std::string s = r.crashed_before_entry ? tr(lang, msg::explain_crash_static, {{"signal", r.signal_name}})
                                                   : tr(lang, msg::explain_crash, {{"case", label}, {"signal", r.signal_name}});
            // A runtime may explain a signal its own way (the emulator's fibers:
            // a segfault is most often a thread's small stack overflowing).
            const std::string hint_key = std::string("explain.crash.") + ex.profile().message_prefix + r.signal_name;
            if (has_message(lang, hint_key))
                s += " " + tr(lang, built_key(hint_key), {{"stack_kib", std::to_string(emu::LaunchLimits::emulated_thread_stack_bytes / 1024)}});
            return s;
        }
        case Verdict::Timeout: {
            const std::string secs = format_number(r.limit_value, lang);
            if (r.crashed_before_entry) return tr(lang, msg::explain_timeout_static, {{"seconds", secs}});
            std::string s = tr(lang, r.limit == LimitKind::CpuTime ? msg::explain_timeout_cpu : msg::explain_timeout_wall, {{"case", label}, {"seconds", secs}});
            // A runtime may say why a right program can be slow there (the emulator).
            const std::string hint_key = std::string("explain.timeout.") + ex.profile().message_prefix + "hint";
            if (has_message(lang, hint_key)) s += " " + tr(lang, built_key(hint_key));
            return s;
        }
        case Verdict::OutputLimit:
            return tr(lang, r.limit == LimitKind::FileSize ? msg::explain_file_size_limit : msg::explain_output_limit,
                      {{"limit", format_number(r.limit_value, lang)}});
        case Verdict::ProtocolError: return tr(lang, msg::explain_protocol_error, {{"detail", problem_text(r, lang)}});
        case Verdict::ModifiedInput: return tr(lang, msg::explain_modified_input, {{"case", label}, {"name", c.modified_input}});
        case Verdict::KernelFault: return explain_learner_kernel_fault(c, lang, label);
        case Verdict::KernelRule: return explain_kernel_rule(c, ex, lang, label);
        default: return "";
    }
}

}  // namespace

// A failure no case is to blame for: before the harness started, or after
// every case had reported (a destructor, an atexit handler, a stray thread).
std::string explain_without_case(const CheckResult& r, Lang lang) {
    const std::string secs = format_number(r.limit_value, lang);
    switch (r.verdict) {
        case Verdict::Crash:
            return tr(lang, r.crashed_before_entry ? msg::explain_crash_static : msg::explain_after_crash, {{"signal", r.signal_name}});
        case Verdict::Timeout:
            if (r.crashed_before_entry) return tr(lang, msg::explain_timeout_static, {{"seconds", secs}});
            return tr(lang, r.limit == LimitKind::CpuTime ? msg::explain_after_timeout_cpu : msg::explain_after_timeout_wall, {{"seconds", secs}});
        case Verdict::OutputLimit:
            return tr(lang, r.limit == LimitKind::FileSize ? msg::explain_file_size_limit : msg::explain_output_limit, {{"limit", secs}});
        case Verdict::ProtocolError: return tr(lang, msg::explain_protocol_error, {{"detail", problem_text(r, lang)}});
        default: return "";
    }
}

std::string explain_mistake(const CheckResult& r, Lang lang) {
    if (!r.mistake) return "";
    std::string s = tr(lang, msg::explain_mistake, {{"title", r.mistake->title.get(lang)}, {"message", r.mistake->message.get(lang)}});
    // Point at the Stages view only where the reference records stages.
    const bool has_stages = !r.cases.empty() && !r.cases.front().stages.empty();
    if (!r.mistake->stage.empty() && has_stages) s += " " + tr(lang, msg::explain_mistake_stage, {{"stage", r.mistake->stage}});
    // Automatic stages: where in the learner's file that stage was computed.
    if (r.failed_case >= 0 && static_cast<size_t>(r.failed_case) < r.cases.size())
        for (const LearnerStage& l : learner_stages(r.cases[static_cast<size_t>(r.failed_case)]))
            if (l.from_record && l.name == r.mistake->stage) s += " " + tr(lang, msg::explain_stage_line, {{"stage", l.name}, {"line", std::to_string(l.line)}});
    return s;
}


namespace {

// The CUDA headers attnlab puts beside a learner's .cu on the emulator, as
// <name> (a folder's: <folder/name>), sorted; attnlab's own are left out.
std::string cuda_headers_text() {
    std::vector<std::string> names;
    std::error_code ec;
    const fs::path dir = InstallLayout::current().cuda_include_dir;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string rel = it->path().lexically_relative(dir).generic_string();
        if (it->is_regular_file(ec) && it->path().extension() == ".h" && rel.rfind("attnlab/", 0) != 0) names.push_back(rel);
    }
    std::sort(names.begin(), names.end());
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "<" : ", <") + n + ">";
    return text;
}

}  // namespace

// A header the compiler could not find: what a file may include here, by runtime.
std::string missing_header_text(const std::string& header, const Exercise& ex, Lang lang) {
    const std::string key = std::string("explain.compile.missing_header.") + ex.profile().code;
    if (!has_message(lang, key)) return "";
    return tr(lang, built_key(key), {{"header", header}, {"headers", ex.runtime == Runtime::Cuda ? cuda_headers_text() : std::string()}});
}

std::string explain_detail(const CheckResult& r, const Exercise& ex, Lang lang) {
    std::string s;
    auto add = [&](const std::string& line) {
        if (!line.empty()) s += (s.empty() ? "" : "\n") + line;
    };
    switch (r.verdict) {
        case Verdict::Pass: {
            double worst = 0;
            for (const auto& c : r.cases) worst = std::max(worst, c.max_abs_error);
            add(tr(lang, msg::explain_pass, {{"count", format_count(static_cast<int64_t>(r.cases.size()), lang)}, {"max_error", format_number(worst, lang)}}));
            break;
        }
        case Verdict::CompileError:
            if (r.problem == Problem::SourceTooLarge) {
                add(tr(lang, msg::explain_source_too_large, {{"size", size_text(r.limit_value, lang)}, {"limit", whole_megabytes(kMaxSourceBytes)}}));
                break;
            }
            if (r.problem == Problem::DefinesMain) add(tr(lang, msg::explain_defines_main));
            if (r.problem == Problem::SourceUnread) {
                add(tr(lang, msg::explain_source_unread));
                for (const UnreadPart& p : r.unread_parts) add("  " + unread_part_text(p, lang));
                break;
            }
            if (r.problem == Problem::ObjectRefused) {
                add(tr(lang, msg::explain_object_refused));
                for (const ObjectProblem& p : r.object_problems) add("  " + object_problem_text(p, lang));
                break;
            }
            if (r.problem == Problem::CompilerOutOfTime || r.problem == Problem::CompilerOutOfMemory) {
                const bool time = r.problem == Problem::CompilerOutOfTime;
                add(tr(lang, time ? msg::explain_compiler_out_of_time : msg::explain_compiler_out_of_memory,
                       {{"seconds", format_number(r.limit_value, lang)}, {"megabytes", format_count(static_cast<int64_t>(r.limit_value), lang)}}) +
                    " " + tr(lang, msg::explain_compiler_limit));
            } else {
                add(tr(lang, msg::explain_compile_error));
            }
            {
                int shown = 0;
                for (const Diagnostic& d : r.diagnostics) {
                    if (d.severity != "error" && d.severity != "fatal error") continue;
                    add("  " + d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message);
                    if (!d.context.empty()) {
                        std::string ctx = d.context;
                        if (ctx.back() == '\n') ctx.pop_back();
                        add(ctx);
                    }
                    if (++shown == 5) break;
                }
                if (shown == 0) add(r.compiler_output.substr(0, 4000));
            }
            if (const std::string header = missing_header(r.diagnostics); !header.empty()) add(missing_header_text(header, ex, lang));
            break;
        case Verdict::MissingEntry: add(tr(lang, msg::explain_missing_entry, {{"signature", r.missing_entry_signature}})); break;
        case Verdict::Cancelled: add(tr(lang, msg::explain_cancelled)); break;
        case Verdict::InternalError: add(tr(lang, msg::explain_internal_error, {{"detail", problem_text(r, lang)}})); break;
        default:
            if (r.failed_case >= 0) add(explain_case(r, r.cases[static_cast<size_t>(r.failed_case)], ex, lang));
            else add(explain_without_case(r, lang));
            break;
    }
    add(explain_mistake(r, lang));
    if (!r.mistake && r.verdict != Verdict::Pass) add(explain_difference(ex, r, lang));
    return s;
}

std::string explain_gpu(const CheckResult& r, Lang lang) {
    if (!r.gpu) return "";
    const GpuSummary& g = *r.gpu;
    if (g.status == GpuRunStatus::CompileFailed) return tr(lang, msg::gpu_run_compile_failed, {{"device", g.device}, {"detail", g.detail}});
    if (g.first_disagreeing >= 0) {
        const std::string what = g.cause.empty() ? verdict_title(g.verdict, lang) : fault_name(g.cause.code(), lang);
        return tr(lang, msg::gpu_run_disagrees, {{"device", g.device}, {"case", std::to_string(g.first_disagreeing + 1)}, {"what", what},
                                               {"detail", g.detail.empty() ? "" : " (" + g.detail + ")"}});
    }
    if (g.status == GpuRunStatus::RunFailed) return tr(lang, msg::gpu_run_run_failed, {{"device", g.device}, {"detail", g.detail}});
    return tr(lang, msg::gpu_run_agrees, {{"device", g.device}, {"count", format_count(g.agreeing, lang)}, {"max_error", format_number(g.max_abs_error, lang)}});
}

std::string explain_difference(const Exercise& exercise, const CheckResult& result, Lang lang) {
    const DifferenceLocation where = locate_difference(exercise, result);
    if (where.stage.empty()) return "";
    if (where.from_probes) return tr(lang, msg::explain_difference_probed, {{"stage", where.stage}});
    const std::string in_sequence =
        where.sequence >= 0 ? tr(lang, msg::explain_difference_in_sequence, {{"sequence", std::to_string(where.sequence)}}) : "";
    // The stages reference::locate_first_difference names from the output alone.
    static const NamedMessage kWorkedBack[] = {
        {"concat", msg::explain_difference_concat}, {"weights", msg::explain_difference_weights}, {"heads", msg::explain_difference_heads}};
    const MessageKey* key = message_named(kWorkedBack, where.stage);
    return key ? tr(lang, *key, {{"case", std::to_string(where.case_index + 1)}, {"in_sequence", in_sequence}}) : "";
}

std::string explain_backends(const CheckResult& r, const Exercise& ex, Lang lang) {
    std::string s;
    // Beside a verdict on the learner's values, or when the kernel is the problem.
    // Not in a CUDA exercise: there the learner's own kernels are the CUDA, and
    // "CUDA agrees with the reference" (attnlab's kernel) would read as theirs.
    const bool reference_kernel_news = r.ran() && !ex.profile().learner_writes_kernels;
    if (reference_kernel_news || r.problem == Problem::KernelDisagrees || r.problem == Problem::KernelFailed) s = explain_cuda(r, lang);
    if (const std::string gpu = explain_gpu(r, lang); !gpu.empty()) s += (s.empty() ? "" : "\n") + gpu;
    return s;
}

namespace {

// The first case whose probe() records went past the protocol's limits.
std::string explain_probes_dropped(const CheckResult& r, Lang lang) {
    for (const CaseOutcome& c : r.cases)
        if (c.probes_dropped > 0)
            return tr(lang, msg::explain_probes_dropped,
                      {{"case", std::to_string(c.index + 1)},
                       {"count", format_count(c.probes_dropped, lang)},
                       {"max_probes", format_count(protocol::ProtocolLimits::max_probes, lang)},
                       {"max_size", whole_megabytes(protocol::ProtocolLimits::max_probe_bytes)}});
    return "";
}

}  // namespace

namespace {
// Which blocks of a sampled case were checked: "" for a case that checked every block.
std::string explain_sampled_case(const CaseOutcome& c, Lang lang) {
    int64_t blocks = 0, unchecked = 0;
    for (const emu::LaunchReport& L : c.kernels.launches) {
        blocks += L.counters.blocks;
        unchecked += L.counters.unchecked_blocks;
    }
    if (unchecked == 0) return {};
    return "    " + tr(lang, msg::explain_case_sampled, {{"checked", format_count(blocks - unchecked, lang)}, {"unchecked", format_count(unchecked, lang)}});
}
}  // namespace

std::string explain(const CheckResult& r, const Exercise& ex, Lang lang) {
    std::string s = verdict_title(r.verdict, r.cause, lang);
    auto add = [&](const std::string& line) {
        if (!line.empty()) s += "\n" + line;
    };
    add(explain_detail(r, ex, lang));
    add(explain_backends(r, ex, lang));
    const bool ran = r.ran();
    if (ran && !r.cases.empty()) {
        for (const auto& c : r.cases) {
            add("  " + tr(lang, msg::explain_case_line, {{"n", std::to_string(c.index + 1)}, {"name", c.name.get(lang)}, {"verdict", verdict_title(c.verdict, c.kernels.cause, lang)}}));
            add(explain_sampled_case(c, lang));
        }
        add(explain_probes_dropped(r, lang));
    }
    if (ran && (!r.stdout_text.empty() || !r.stderr_text.empty())) {
        add(tr(lang, msg::explain_stdout));
        std::string out = r.stdout_text + r.stderr_text;
        if (out.size() > 2000) out = out.substr(0, 2000);
        if (!out.empty() && out.back() == '\n') out.pop_back();
        add(out);
        if (r.output_truncated || r.stdout_text.size() + r.stderr_text.size() > 2000) add(tr(lang, msg::explain_truncated));
    }
    return s;
}


std::string explain_resources(const CheckResult& r, Lang lang) {
    if (!r.resources) return "";
    std::string s = describe_resources(*r.resources, lang);
    const auto shapes = learner_launch_shapes(r);
    for (const KernelResources& k : r.resources->kernels) {
        const auto shape = shapes.find(k.kernel);
        if (shape == shapes.end()) continue;
        if (const std::optional<Occupancy> o = kernel_occupancy(r.resources->arch, k, shape->second))
            s += "\n  " + tr(lang, msg::explain_occupancy_of, {{"kernel", k.kernel}, {"threads", std::to_string(shape->second.threads_per_block)}}) +
                 " " + describe_occupancy(*o, lang);
    }
    return s;
}

}  // namespace attnlab
