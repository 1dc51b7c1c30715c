// The resource panel's words for people: the status, each kernel's figures
// and spills, NVRTC's errors, the occupancy.
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/text/number_format.hpp"

#include "attnlab/core/text/messages.hpp"

namespace attnlab {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string kernel_text(const KernelResources& k, Lang lang) {
    std::string s = tr(lang, msg::gpu_kernel, {{"kernel", k.kernel}, {"registers", std::to_string(k.registers)},
                                            {"shared", format_count(k.shared_bytes, lang)}});
    if (k.spill_bytes() > 0)
        s += " " + tr(lang, msg::gpu_spill, {{"stores", format_count(k.spill_store_bytes, lang)}, {"loads", format_count(k.spill_load_bytes, lang)}});
    else s += " " + tr(lang, msg::gpu_no_spill);
    if (k.spill_bytes() == 0 && k.stack_frame_bytes > 0) s += " " + tr(lang, msg::gpu_stack, {{"bytes", format_count(k.stack_frame_bytes, lang)}});
    return s;
}

std::string compile_error_text(const ResourceReport& r, Lang lang) {
    std::string s = tr(lang, msg::gpu_compile_error, {{"arch", r.arch}});
    int shown = 0;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.severity != "error" && d.severity != "fatal error") continue;
        if (++shown > 5) break;  // the editor shows them all; this is a summary
        s += "\n  " + d.file + ":" + std::to_string(d.line) + ": " + d.message;
    }
    if (shown == 0) s += "\n  " + first_line(r.log);
    return s;
}

}  // namespace

std::string describe_resources(const ResourceReport& r, Lang lang) {
    switch (r.status) {
        case ResourceReport::Status::Unavailable:
            if (r.cancelled) return tr(lang, msg::gpu_cancelled);
            return tr(lang, msg::gpu_unavailable, {{"detail", first_line(r.log)}});
        case ResourceReport::Status::CompileError: return compile_error_text(r, lang);
        case ResourceReport::Status::Ok: break;
    }
    std::string s = tr(lang, msg::gpu_header, {{"arch", r.arch}, {"version", r.nvrtc_version}});
    if (r.kernels.empty()) return s + "\n  " + tr(lang, msg::gpu_no_kernels);
    for (const KernelResources& k : r.kernels) s += "\n  " + kernel_text(k, lang);
    return s;
}

std::string describe_occupancy(const Occupancy& o, Lang lang) {
    const std::string limit = tr(lang, built_key(std::string("gpu.limit.") + occupancy_limit_code(o.limited_by)), {{"max_threads", format_count(o.max_threads_per_block, lang)}});
    if (o.active_blocks_per_sm == 0) return tr(lang, msg::gpu_occupancy_none, {{"limit", limit}});
    return tr(lang, msg::gpu_occupancy,
              {{"percent", format_percent(o.fraction, lang)}, {"warps", std::to_string(o.active_warps_per_sm)},
               {"max_warps", std::to_string(o.max_warps_per_sm)}, {"blocks", std::to_string(o.active_blocks_per_sm)}, {"limit", limit}});
}

}  // namespace attnlab
