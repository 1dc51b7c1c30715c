#include "attnlab/core/text/performance_words.hpp"

#include <cmath>

#include "attnlab/core/check/roofline.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/number_format.hpp"

namespace attnlab {

// ---- words --------------------------------------------------------------------

std::string format_seconds(double s, Lang lang) {
    auto three = [&](double v) { return format_fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2, lang); };
    if (!(s > 0) || !std::isfinite(s)) return "0 s";
    if (s < 1e-6) return three(s * 1e9) + " ns";
    if (s < 1e-3) return three(s * 1e6) + " \xC2\xB5s";
    if (s < 1) return three(s * 1e3) + " ms";
    return three(s) + " s";
}

namespace {

MessageKey bound_key(const TimeEstimate& e) {
    if (e.bound == PerfBound::Compute && e.tensor_cores) return msg::perf_bound_compute_tensor;
    return built_key(std::string("perf.bound.") + perf_bound_code(e.bound));
}

}  // namespace

std::string describe_bound(const TimeEstimate& e, Lang lang) { return tr(lang, bound_key(e)); }

// 1,536 B / 12.3 KB / 4.5 MB / 1.2 GB (decimal units, like bandwidths).
std::string format_bytes(double b, Lang lang) {
    if (b < 1e3) return format_count(static_cast<int64_t>(b), lang) + " B";
    if (b < 1e6) return format_fixed(b / 1e3, 1, lang) + " KB";
    if (b < 1e9) return format_fixed(b / 1e6, 1, lang) + " MB";
    return format_fixed(b / 1e9, 2, lang) + " GB";
}

namespace {

std::string format_flops(double f, Lang lang) {
    if (f < 1e3) return format_count(static_cast<int64_t>(f), lang) + " FLOP";
    if (f < 1e6) return format_fixed(f / 1e3, 1, lang) + " KFLOP";
    if (f < 1e9) return format_fixed(f / 1e6, 1, lang) + " MFLOP";
    return format_fixed(f / 1e9, 2, lang) + " GFLOP";
}

}  // namespace

std::string performance_assumptions(Lang lang) {
    std::string gpus;
    for (const GpuModel& g : gpu_models())
        gpus += (gpus.empty() ? "" : "; ") + g.name + " (" + g.arch + ", " + std::to_string(g.sms) + " SMs, " +
                format_number(g.bandwidth / 1e9, lang) + " GB/s, FP32 " + format_number(g.fp32_flops / 1e12, lang) +
                " TFLOP/s, FP16 tensor " + format_number(g.tensor_flops / 1e12, lang) + " TFLOP/s, L2 " +
                format_number(g.l2_bytes / (1024 * 1024), lang) + " MB)";
    return tr(lang, msg::perf_assumptions, {{"gpus", gpus}});
}

std::string describe_performance(const Performance& p, Lang lang) {
    std::string s = tr(lang, msg::perf_header, {{"case", std::to_string(p.case_index + 1)}});
    s += "\n  " + tr(lang, msg::perf_traffic, {{"bytes", format_bytes(double(p.bytes), lang)},
                                            {"min_bytes", format_bytes(double(p.min_bytes), lang)},
                                            {"ratio", format_fixed(p.traffic_ratio, 2, lang)}});
    if (p.flops)
        s += "\n  " + tr(lang, msg::perf_flops, {{"flops", format_flops(*p.flops, lang)},
                                              {"intensity", format_fixed(p.intensity.value_or(0), 2, lang)}});
    else s += "\n  " + tr(lang, msg::perf_flops_unknown);
    if (p.tensor_flops > 0) s += "\n  " + tr(lang, msg::perf_tensor_flops, {{"flops", format_flops(p.tensor_flops, lang)}});
    s += "\n  " + tr(lang, msg::perf_estimate_header);
    for (size_t g = 0; g < p.estimates.size(); ++g) {
        const TimeEstimate& e = p.estimates[g];
        s += "\n    " + tr(lang, msg::perf_estimate, {{"gpu", e.gpu}, {"time", format_seconds(e.seconds, lang)},
                                                  {"bound", describe_bound(e, lang)},
                                                  {"waves", format_fixed(e.waves, 2, lang)},
                                                  {"occupancy", format_percent(std::round(e.achieved_occupancy * 100) / 100, lang)}});
        if (e.bound == PerfBound::TooFewBlocks)
            s += " " + tr(lang, msg::perf_fill, {{"percent", format_percent(std::round(e.fill * 1000) / 1000, lang)}});
        if (g < p.caches.size()) {
            const CacheEstimate& c = p.caches[g];
            s += "\n      " + tr(lang, msg::perf_cache, {{"dram", format_bytes(c.dram_bytes(), lang)},
                                                      {"ratio", format_fixed(p.min_bytes > 0 ? c.dram_bytes() / double(p.min_bytes) : 0, 2, lang)},
                                                      {"l1", format_percent(std::round(c.l1_hit_rate() * 100) / 100, lang)},
                                                      {"l2", format_percent(std::round(c.l2_hit_rate() * 100) / 100, lang)}});
        }
    }
    if (p.measured_seconds)
        s += "\n  " + tr(lang, msg::perf_measured, {{"device", p.measured_device}, {"time", format_seconds(*p.measured_seconds, lang)}});
    s += "\n  " + performance_assumptions(lang);
    return s;
}

namespace {

nlohmann::json estimates_json(const std::vector<TimeEstimate>& estimates, const std::vector<CacheEstimate>& caches, int64_t min_bytes) {
    nlohmann::json a = nlohmann::json::array();
    for (size_t g = 0; g < estimates.size(); ++g) {
        const TimeEstimate& e = estimates[g];
        nlohmann::json j = {{"gpu", e.gpu}, {"seconds", e.seconds}, {"bound", perf_bound_code(e.bound)}, {"memory_seconds", e.memory_seconds},
                            {"compute_seconds", e.compute_seconds}, {"fill", e.fill}, {"blocks_per_sm", e.blocks_per_sm},
                            {"waves", e.waves}, {"achieved_occupancy", e.achieved_occupancy},
                            {"roof", e.tensor_cores ? "tensor_fp16" : "fp32"}, {"dram_bytes", e.dram_bytes}};
        if (g < caches.size()) {
            const CacheEstimate& c = caches[g];
            j["l1_hit_rate"] = c.l1_hit_rate();
            j["l2_hit_rate"] = c.l2_hit_rate();
            j["dram_ratio"] = min_bytes > 0 ? c.dram_bytes() / double(min_bytes) : 0.0;
        }
        a.push_back(std::move(j));
    }
    return a;
}

nlohmann::json optional_number(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}  // namespace

nlohmann::json performance_to_json(const Performance& p, Lang lang) {
    nlohmann::json launches = nlohmann::json::array();
    for (const LaunchPerformance& L : p.launches)
        launches.push_back({{"kernel", L.kernel}, {"blocks", L.demand.blocks}, {"threads_per_block", L.demand.threads_per_block},
                            {"registers_known", L.resources_known}, {"bytes", L.bytes}, {"flops", optional_number(L.flops)},
                            {"tensor_flops", L.tensor_flops}, {"estimates", estimates_json(L.estimates, L.caches, 0)}});
    nlohmann::json j = {{"case", p.case_index},
                        {"bytes", p.bytes},
                        {"min_bytes", p.min_bytes},
                        {"traffic_ratio", p.traffic_ratio},
                        {"flops", optional_number(p.flops)},
                        {"intensity", optional_number(p.intensity)},
                        {"tensor_flops", p.tensor_flops},
                        {"estimates", estimates_json(p.estimates, p.caches, p.min_bytes)},
                        {"launches", launches},
                        {"assumptions", performance_assumptions(lang)}};
    if (p.measured_seconds) j["measured"] = {{"device", p.measured_device}, {"seconds", *p.measured_seconds}};
    return j;
}

}  // namespace attnlab
