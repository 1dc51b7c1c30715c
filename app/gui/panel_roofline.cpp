// The Kernel view's roofline (issue 18): a log-log plot of arithmetic
// intensity (FLOP per DRAM byte) against FLOP/s for one GPU of the report's
// table — its roof (bandwidth x intensity up to the FP32 peak, and up to the
// FP16 tensor-core peak when a launch used tensor cores), the learner's
// launches as points at their estimated speed, and attnlab's own attention
// kernels v1 and v2 beside it. Everything is an estimate (performance.hpp);
// the assumptions are one click away. Reads core state only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/text/performance_words.hpp"
#include "panel_learner_kernels.hpp"  // the Kernel tab's wrapping that keeps numbers whole
#include "ui.hpp"

namespace attnlab::gui {

namespace {

struct PlotPoint {
    std::string label;
    double intensity = 0, flops_per_s = 0;
    TimeEstimate estimate;
    ImU32 colour = 0;
};

std::string si(double v, const char* unit, Lang lang) {
    const char* prefixes[] = {"", " K", " M", " G", " T", " P"};
    int p = 0;
    while (v >= 1000 && p < 5) {
        v /= 1000;
        ++p;
    }
    return format_fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2, lang) + prefixes[p] + (p ? "" : " ") + unit;
}

// A decade's tick: 100 G, 1 T (no decimals: decades are whole).
std::string decade_label(double v, Lang lang) {
    const char* prefixes[] = {"", " K", " M", " G", " T", " P"};
    int p = 0;
    while (v >= 999 && p < 5) {
        v /= 1000;
        ++p;
    }
    return v >= 1 ? format_count(static_cast<int64_t>(std::llround(v)), lang) + prefixes[p] : format_short(v, lang);
}

double decade_floor(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_ceil(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

// The plot's frame on screen: log-log axes from decade to decade.
struct PlotFrame {
    double x_lo, x_hi, y_lo, y_hi;  // intensity and FLOP/s at the edges
    float left, right, top, bottom;  // the plotting area, in screen pixels
    float X(double v) const { return left + float((std::log10(v) - std::log10(x_lo)) / (std::log10(x_hi) - std::log10(x_lo))) * (right - left); }
    float Y(double v) const { return bottom - float((std::log10(v) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))) * (bottom - top); }
};

// The decades every point and both roofs fit in.
PlotFrame plot_decades(const GpuModel& gpu, const std::vector<PlotPoint>& points, double top_flops) {
    const double ridge = gpu.fp32_flops / gpu.bandwidth;
    PlotFrame f{ridge / 1000, top_flops / gpu.bandwidth * 10, gpu.fp32_flops / 1e5, top_flops * 3, 0, 0, 0, 0};
    for (const PlotPoint& p : points) {
        if (!(p.intensity > 0) || !(p.flops_per_s > 0)) continue;
        f.x_lo = std::min(f.x_lo, p.intensity / 3);
        f.x_hi = std::max(f.x_hi, p.intensity * 3);
        f.y_lo = std::min(f.y_lo, p.flops_per_s / 3);
    }
    f.x_lo = decade_floor(f.x_lo), f.x_hi = decade_ceil(f.x_hi), f.y_lo = decade_floor(f.y_lo), f.y_hi = decade_ceil(f.y_hi);
    return f;
}

// The background, a grid line and a label at every decade, the border.
void draw_grid(ImDrawList* dl, const PlotFrame& f, ImVec2 origin, ImVec2 size, Lang lang) {
    const float em = ImGui::GetFontSize();
    const ImU32 frame = ImGui::GetColorU32(ImGuiCol_Border);
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border, 0.35f), faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->AddRectFilled(ImVec2(f.left, f.top), ImVec2(f.right, f.bottom), ImGui::GetColorU32(ImGuiCol_FrameBg, 0.5f));
    for (double v = f.x_lo; v <= f.x_hi * 1.001; v *= 10) {
        dl->AddLine(ImVec2(f.X(v), f.top), ImVec2(f.X(v), f.bottom), grid);
        const std::string label = decade_label(v, lang);
        const float w = ImGui::CalcTextSize(label.c_str()).x;  // the last decade's label kept inside the plot's right edge
        dl->AddText(ImVec2(std::min(f.X(v) - w / 2, origin.x + size.x - w), f.bottom + 2), faint, label.c_str());
    }
    for (double v = f.y_lo; v <= f.y_hi * 1.001; v *= 10) {
        dl->AddLine(ImVec2(f.left, f.Y(v)), ImVec2(f.right, f.Y(v)), grid);
        const std::string label = decade_label(v, lang);
        dl->AddText(ImVec2(f.left - ImGui::CalcTextSize(label.c_str()).x - 4, f.Y(v) - em / 2), faint, label.c_str());
    }
    dl->AddRect(ImVec2(f.left, f.top), ImVec2(f.right, f.bottom), frame);
}

// The roof: bandwidth x intensity, then the FP32 peak from the ridge on; with
// `tensor_roof`, the memory slope on up to the tensor cores' peak.
void draw_roofs(Ui& ui, ImDrawList* dl, const PlotFrame& f, const GpuModel& gpu, bool tensor_roof, double top_flops) {
    const Lang lang = ui.session.lang();
    const float em = ImGui::GetFontSize();
    const double ridge = gpu.fp32_flops / gpu.bandwidth, top_ridge = top_flops / gpu.bandwidth;
    const ImU32 roof = IM_COL32(220, 60, 60, 255);
    dl->AddLine(ImVec2(f.X(f.x_lo), f.Y(gpu.bandwidth * f.x_lo)), ImVec2(f.X(ridge), f.Y(gpu.fp32_flops)), roof, 2.0f);
    dl->AddLine(ImVec2(f.X(ridge), f.Y(gpu.fp32_flops)), ImVec2(f.X(f.x_hi), f.Y(gpu.fp32_flops)), roof, 2.0f);
    const std::string roof_label = gpu.name + ": " + si(gpu.bandwidth, "B/s", lang) + ", " + si(gpu.fp32_flops, "FLOP/s", lang);
    const float roof_w = ImGui::CalcTextSize(roof_label.c_str()).x;
    // Roof labels sit at the right end, where points are rare; the FP32 one above its
    // roof, where no FP32 launch can be, the tensor cores' one under theirs (the plot's top).
    dl->AddText(ImVec2(std::max(f.left + 4, f.right - roof_w - 4), f.Y(gpu.fp32_flops) - em - 3), roof, roof_label.c_str());
    if (!tensor_roof) return;
    const ImU32 tensor = IM_COL32(170, 90, 220, 255);
    dl->AddLine(ImVec2(f.X(ridge), f.Y(gpu.fp32_flops)), ImVec2(f.X(top_ridge), f.Y(top_flops)), tensor, 2.0f);
    dl->AddLine(ImVec2(f.X(top_ridge), f.Y(top_flops)), ImVec2(f.X(f.x_hi), f.Y(top_flops)), tensor, 2.0f);
    const std::string label = ui.t(msg::gui_roofline_tensor_roof, {{"flops", si(top_flops, "FLOP/s", lang)}});
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(std::max(f.left + 4, f.right - w - 4), f.Y(top_flops) + 3), tensor, label.c_str());
    ui.note_item("roofline_tensor_roof");
}

// The words for one point: what the tooltip and the list under the plot say.
std::string point_words(const Ui& ui, const PlotPoint& p, Lang lang) {
    return ui.t(msg::gui_roofline_point, {{"label", p.label},
                                       {"intensity", format_fixed(p.intensity, 2, lang)},
                                       {"flops_per_s", si(p.flops_per_s, "FLOP/s", lang)},
                                       {"time", format_seconds(p.estimate.seconds, lang)},
                                       {"bound", describe_bound(p.estimate, lang)}});
}

// `tensor_roof`: a launch ran on tensor cores, so their higher roof is drawn
// too; a tensor-core kernel is judged under it, not under the FP32 one.
void draw_plot(Ui& ui, const GpuModel& gpu, const std::vector<PlotPoint>& points, bool tensor_roof) {
    const Lang lang = ui.session.lang();
    tensor_roof = tensor_roof && gpu.tensor_flops > gpu.fp32_flops;
    const double top_flops = tensor_roof ? gpu.tensor_flops : gpu.fp32_flops;
    PlotFrame f = plot_decades(gpu, points, top_flops);

    const float em = ImGui::GetFontSize();
    const float width = std::max(em * 16, std::min(ImGui::GetContentRegionAvail().x, em * 34));
    const ImVec2 size(width, width * 0.6f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("roofline_plot", size);
    ui.note_item("roofline_plot");
    const bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    f.left = origin.x + em * 3.2f, f.right = origin.x + size.x - em * 0.5f;
    f.top = origin.y + em * 1.4f, f.bottom = origin.y + size.y - em * 1.6f;
    draw_grid(dl, f, origin, size, lang);
    dl->PushClipRect(ImVec2(f.left, f.top), ImVec2(f.right, f.bottom), true);
    draw_roofs(ui, dl, f, gpu, tensor_roof, top_flops);
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const PlotPoint* nearest = nullptr;
    float nearest_d2 = em * em;
    std::vector<ImRect> labels;  // where labels went: two kernels at one point get their labels one under the other
    for (const PlotPoint& p : points) {
        if (!(p.intensity > 0) || !(p.flops_per_s > 0)) continue;
        const ImVec2 at(f.X(p.intensity), f.Y(p.flops_per_s));
        dl->AddCircleFilled(at, em * 0.35f, p.colour);
        dl->AddCircle(at, em * 0.35f, text);
        const ImVec2 label_size = ImGui::CalcTextSize(p.label.c_str());
        // Right of the point; where the plot's edge would cut it, left of the
        // point, or else under it, as far right as the label fits.
        const float right_x = at.x + em * 0.5f, left_x = at.x - em * 0.5f - label_size.x;
        ImVec2 label_at(right_x, at.y - em * 0.5f);
        if (right_x + label_size.x > f.right) {
            if (left_x >= f.left) label_at.x = left_x;
            else label_at = ImVec2(std::max(f.left, f.right - label_size.x), at.y + em * 0.4f);
        }
        for (int tries = 0; tries < 6; ++tries) {
            const ImRect box(label_at, ImVec2(label_at.x + label_size.x, label_at.y + label_size.y));
            if (std::none_of(labels.begin(), labels.end(), [&](const ImRect& r) { return r.Overlaps(box); })) break;
            label_at.y += label_size.y;
        }
        labels.emplace_back(label_at, ImVec2(label_at.x + label_size.x, label_at.y + label_size.y));
        dl->AddText(label_at, p.colour, p.label.c_str());
        const ImVec2 m = ImGui::GetIO().MousePos;
        const float d2 = (m.x - at.x) * (m.x - at.x) + (m.y - at.y) * (m.y - at.y);
        if (hovered && d2 < nearest_d2) nearest = &p, nearest_d2 = d2;
    }
    dl->PopClipRect();
    const std::string x_axis = ui.t(msg::gui_roofline_axis_x);
    dl->AddText(ImVec2((f.left + f.right - ImGui::CalcTextSize(x_axis.c_str()).x) / 2, f.bottom + em * 0.75f), text, x_axis.c_str());
    dl->AddText(ImVec2(origin.x, origin.y), text, ui.t(msg::gui_roofline_axis_y).c_str());
    if (nearest) wrapped_tooltip(point_words(ui, *nearest, lang));
}

PlotPoint point(const std::string& label, double flops, double bytes, const TimeEstimate& e, ImU32 colour) {
    PlotPoint p;
    p.label = label;
    p.intensity = bytes > 0 ? flops / bytes : 0;
    p.flops_per_s = e.seconds > 0 ? flops / e.seconds : 0;
    p.estimate = e;
    p.colour = colour;
    return p;
}

// The launch's name on the plot: its kernel, numbered when it is launched more than once.
std::string launch_label(const Performance& perf, size_t i) {
    int same = 0, nth = 0;
    for (size_t k = 0; k < perf.launches.size(); ++k)
        if (perf.launches[k].kernel == perf.launches[i].kernel) {
            ++same;
            if (k <= i) ++nth;
        }
    return same > 1 ? perf.launches[i].kernel + " #" + std::to_string(nth) : perf.launches[i].kernel;
}

// A launch that does no arithmetic (a mask, a copy) has no intensity to plot:
// its bytes against the memory roof instead — how much of the GPU's bandwidth
// it would use, a bar out of the roof's full width.
void draw_bytes_bar(Ui& ui, const GpuModel& gpu, const std::string& label, int64_t bytes, const TimeEstimate& e) {
    const Lang lang = ui.session.lang();
    const double used = e.seconds > 0 ? static_cast<double>(bytes) / e.seconds : 0;  // bytes per second at the estimate
    const float em = ImGui::GetFontSize();
    const float width = std::max(em * 10, std::min(ImGui::GetContentRegionAvail().x, em * 34));
    const ImVec2 a = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(("roofline_bytes:" + label).c_str(), ImVec2(width, em));
    ui.note_item("roofline_bytes:" + label);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(a, ImVec2(a.x + width, a.y + em), ImGui::GetColorU32(ImGuiCol_FrameBg));
    const float share = static_cast<float>(std::clamp(gpu.bandwidth > 0 ? used / gpu.bandwidth : 0.0, 0.0, 1.0));
    dl->AddRectFilled(a, ImVec2(a.x + width * share, a.y + em), IM_COL32(240, 150, 40, 255));
    dl->AddRect(a, ImVec2(a.x + width, a.y + em), IM_COL32(220, 60, 60, 255), 0, 0, 2.0f);  // the memory roof: the bar's full width
    learner_kernels::wrapped(ui.t(msg::gui_roofline_bytes_point, {{"label", label},
                                                                {"bytes", format_bytes(static_cast<double>(bytes), lang)},
                                                                {"used", si(used, "B/s", lang)},
                                                                {"gpu", gpu.name},
                                                                {"roof", si(gpu.bandwidth, "B/s", lang)},
                                                                {"time", format_seconds(e.seconds, lang)},
                                                                {"bound", describe_bound(e, lang)}}));
}

void draw_gpu_selector(Ui& ui, int gpu_index) {
    const std::vector<GpuModel>& gpus = gpu_models();
    ImGui::TextUnformatted(ui.t(msg::gui_roofline_gpu).c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("##roofline_gpu", gpus[size_t(gpu_index)].name.c_str())) {
        for (int i = 0; i < int(gpus.size()); ++i)
            if (ImGui::Selectable(gpus[size_t(i)].name.c_str(), i == gpu_index)) ui.roofline_gpu = i;
        ImGui::EndCombo();
    }
    ui.note_item("roofline_gpu");
    ui.note_item("roofline_gpu:" + gpus[size_t(gpu_index)].name);
}

// Every launch of the learner's: a point where it does arithmetic, a bar of
// bytes where it does none. A launch's arithmetic is its FP32 share and what
// it did on tensor cores.
struct LaunchPoints {
    std::vector<PlotPoint> points;
    std::vector<size_t> no_arithmetic;  // launch indices
    bool tensor_cores = false;
};

LaunchPoints learner_launch_points(const Performance& perf, int gpu_index) {
    LaunchPoints out;
    for (size_t i = 0; i < perf.launches.size(); ++i) {
        const LaunchPerformance& L = perf.launches[i];
        if (size_t(gpu_index) >= L.estimates.size()) continue;
        const double flops = L.flops.value_or(0.0) + L.tensor_flops;
        out.tensor_cores = out.tensor_cores || L.tensor_flops > 0;
        if (flops > 0 && L.bytes > 0)
            out.points.push_back(point(launch_label(perf, i), flops, double(L.bytes), L.estimates[size_t(gpu_index)], IM_COL32(240, 150, 40, 255)));
        else
            out.no_arithmetic.push_back(i);
    }
    return out;
}

}  // namespace

// The GPU the roofline shows: the learner's choice, else the first of the
// report's GPUs with the architecture chosen for the resource panel, so the
// two agree until the learner picks another.
size_t shown_gpu_index(const Ui& ui) {
    if (ui.roofline_gpu >= 0 && ui.roofline_gpu < static_cast<int>(gpu_models().size())) return static_cast<size_t>(ui.roofline_gpu);
    return gpu_model_for_arch(ui.session.gpu_arch());
}

void draw_roofline(Ui& ui, const CheckResult* r) {
    ImGui::Spacing();
    if (!ImGui::CollapsingHeader((ui.t(msg::gui_roofline_title) + "###roofline").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    ui.note_item("kview_section:roofline");
    const Exercise* e = ui.session.current();
    const std::optional<Performance> perf = r && e ? check_performance(*r, *e) : std::nullopt;
    if (!perf) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_roofline_no_report).c_str());
        return;
    }
    const Lang lang = ui.session.lang();
    if (ui.scroll_to_roofline > 0) {  // for a few frames: what lies above settles its height first
        ImGui::SetScrollHereY(0.0f);
        --ui.scroll_to_roofline;
    }
    const int gpu_index = static_cast<int>(shown_gpu_index(ui));
    draw_gpu_selector(ui, gpu_index);
    const GpuModel& gpu = gpu_models()[size_t(gpu_index)];
    if (static_cast<size_t>(perf->case_index) < r->cases.size())
        learner_kernels::disabled_wrapped(ui.t(msg::gui_roofline_case, {{"n", std::to_string(perf->case_index + 1)},
                                                                     {"name", r->cases[static_cast<size_t>(perf->case_index)].name.get(lang)}}));
    ui.note_item("roofline_case");

    const LaunchPoints launches = learner_launch_points(*perf, gpu_index);
    std::vector<PlotPoint> points = launches.points;
    const std::vector<size_t>& no_arithmetic = launches.no_arithmetic;
    const bool tensor_cores = launches.tensor_cores;
    const size_t learner_points = points.size();
    const std::array<int, 4> shape = reference_shape(*e, perf->case_index);
    const ReferencePoints refs = attention_reference_points(shape[0], shape[1], shape[2], shape[3]);
    const ImU32 ref_colours[] = {IM_COL32(80, 140, 230, 255), IM_COL32(70, 190, 120, 255)};
    for (size_t i = 0; i < refs.points.size(); ++i)
        if (refs.points[i].bytes > 0 && size_t(gpu_index) < refs.points[i].estimates.size())
            points.push_back(point(refs.points[i].label, refs.points[i].flops, double(refs.points[i].bytes),
                                   refs.points[i].estimates[size_t(gpu_index)], ref_colours[i % 2]));
    // Beat your v1: the earlier kernel's launches on the same case, beside these.
    if (const VersionComparison* c = ui.session.comparison(); c && c->before)
        for (PlotPoint& p : learner_launch_points(c->before->performance, gpu_index).points) {
            p.label = c->earlier_id + ": " + p.label;
            p.colour = IM_COL32(220, 90, 170, 255);
            points.push_back(std::move(p));
        }
    // A launch without arithmetic has no point on the plot, only a bar of bytes.
    // The plot comes first when a launch of the learner's is on it (helper
    // launches' bars below it); when none is, the bars come first, where the
    // learner looks, not below a plot that does not show their kernel.
    if (!perf->flops) learner_kernels::disabled_wrapped(ui.t(msg::gui_roofline_no_flops));
    auto draw_bars = [&] {
        for (size_t i : no_arithmetic)
            if (perf->flops) draw_bytes_bar(ui, gpu, launch_label(*perf, i), perf->launches[i].bytes, perf->launches[i].estimates[size_t(gpu_index)]);
    };
    if (learner_points == 0) draw_bars();
    draw_plot(ui, gpu, points, tensor_cores);
    if (learner_points > 0) draw_bars();

    for (size_t i = 0; i < points.size(); ++i) {
        ImGui::TextWrapped("%s", point_words(ui, points[i], lang).c_str());
        if (i < learner_points) ui.note_item("roofline_point:" + points[i].label);
    }
    if (perf->measured_seconds)  // a GPU ran the same file: its own time beside the estimates
        ImGui::TextWrapped("%s", ui.t(msg::perf_measured, {{"device", perf->measured_device},
                                                        {"time", format_seconds(*perf->measured_seconds, lang)}})
                                     .c_str());
    const std::map<std::string, std::string> dims = {{"B", std::to_string(refs.B)}, {"H", std::to_string(refs.H)},
                                                     {"T", std::to_string(refs.T)}, {"hd", std::to_string(refs.hd)}};
    learner_kernels::disabled_wrapped(ui.t(refs.ready ? msg::gui_roofline_reference_shape : msg::gui_roofline_computing, dims));
    if (ImGui::TreeNodeEx((ui.t(msg::gui_roofline_assumptions) + "##roofline_assumptions").c_str(), ImGuiTreeNodeFlags_SpanAvailWidth)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", performance_assumptions(lang).c_str());
        ImGui::PopStyleColor();
        ImGui::TreePop();
    }
    ui.note_item("roofline_assumptions");
}

}  // namespace attnlab::gui
