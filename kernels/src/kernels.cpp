// run_kernel_op: reference-op inputs -> kernel pipeline -> reference-shaped
// output and stages. Only layout happens here; the math is in the kernels.
#include "attnlab/kernels/kernels.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>

#include "attnlab/emu/launch.hpp"
#include "attnlab/kernels/launchers.hpp"
#include "backend.hpp"

namespace attnlab::kernels {

namespace {

using detail::BackendRun;
using detail::HostTensor;
using Inputs = std::map<std::string, Value>;

struct InputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ------------------------------------------------------------- inputs

const TensorData& tensor(const Inputs& in, const std::string& name, int rank) {
    const auto it = in.find(name);
    if (it == in.end()) throw InputError(name + ": missing input");
    if (it->second.kind != ValueKind::Tensor) throw InputError(name + ": expected a tensor");
    const TensorData& t = it->second.tensor;
    if (t.ndim() != rank)
        throw InputError(name + ": expected rank " + std::to_string(rank) + ", got shape " + shape_to_string(t.shape));
    for (int64_t d : t.shape)
        if (d < 1) throw InputError(name + ": every dimension must be at least 1, got " + shape_to_string(t.shape));
    if (int64_t(t.data.size()) != t.numel()) throw InputError(name + ": data does not match its shape");
    if (t.numel() > (int64_t(1) << 30)) throw InputError(name + ": too large for the kernels");
    return t;
}

int integer(const Inputs& in, const std::string& name) {
    const auto it = in.find(name);
    if (it == in.end()) throw InputError(name + ": missing input");
    if (it->second.kind != ValueKind::Int) throw InputError(name + ": expected an int");
    const int64_t v = it->second.int_value;
    if (v < 1 || v > (1 << 20)) throw InputError(name + ": must be a positive count, got " + std::to_string(v));
    return int(v);
}

void expect_dim(const std::string& name, const TensorData& t, int axis, int64_t want) {
    if (t.shape[axis] != want)
        throw InputError(name + ": axis " + std::to_string(axis) + " should be " + std::to_string(want) +
                         ", got shape " + shape_to_string(t.shape));
}

int heads_of(int D, int H) {
    if (D % H) throw InputError("n_heads: D = " + std::to_string(D) + " is not divisible by " + std::to_string(H));
    return H;
}

// ------------------------------------------------------------ outputs

TensorData as_tensor(const HostTensor& h, Shape shape) {
    return TensorData(std::move(shape), h.data);
}

const HostTensor& need(const BackendRun& run, const std::string& name) {
    const HostTensor* t = run.find(name);
    if (!t) throw std::logic_error("kernel pipeline produced no '" + name + "'");
    return *t;
}

// Columns [c0, c0 + width) of a row-major (rows, cols) matrix.
std::vector<float> columns(const std::vector<float>& m, int64_t rows, int64_t cols, int64_t c0, int64_t width) {
    std::vector<float> out(size_t(rows * width));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < width; ++c) out[size_t(r * width + c)] = m[size_t(r * cols + c0 + c)];
    return out;
}

// (D, D) ×3 side by side -> (D, 3D), like the reference's [w_q | w_k | w_v].
std::vector<float> side_by_side(const TensorData& a, const TensorData& b, const TensorData& c) {
    const int64_t D = a.shape[0];
    std::vector<float> out(size_t(D * 3 * D));
    for (int64_t r = 0; r < D; ++r)
        for (int part = 0; part < 3; ++part) {
            const TensorData& w = part == 0 ? a : part == 1 ? b : c;
            std::copy_n(w.data.begin() + r * D, D, out.begin() + r * 3 * D + part * D);
        }
    return out;
}

// qkv (M, 3D) -> stages Q, K, V (each `shape`) and the stacked (3, M, D) value.
void qkv_outputs(KernelRun& kr, const std::vector<float>& qkv, int64_t M, int64_t D, const Shape& shape,
                 bool make_output) {
    std::vector<float> stacked;
    const char* names[3] = {"Q", "K", "V"};
    for (int part = 0; part < 3; ++part) {
        std::vector<float> third = columns(qkv, M, 3 * D, part * D, D);
        if (make_output) stacked.insert(stacked.end(), third.begin(), third.end());
        kr.stages.push_back({names[part], TensorData(shape, std::move(third))});
    }
    if (make_output) kr.output = Value::of_tensor(TensorData({3, M, D}, std::move(stacked)));
}

int attention_version(const KernelOptions& o, int hd) {
    const bool v2_fits = hd <= emulated::attention_v2_max_head_dim();
    if (o.attention_version == 1 || o.attention_version == 2) return v2_fits ? o.attention_version : 1;
    return v2_fits ? 2 : 1;
}

// ------------------------------------------------------------- the ops

struct Context {
    const Inputs& in;
    const KernelOptions& options;
    bool gpu;
    // Runs f on the chosen backend (emulated or native function pointers).
    template <class Emu, class Gpu> BackendRun run(Emu emu_fn, Gpu gpu_fn) const { return gpu ? gpu_fn() : emu_fn(); }
};

#if ATTNLAB_HAVE_NVCC
#define ATTNLAB_ON_BACKEND(ctx, CALL) (ctx).run([&] { return detail::emulated::CALL; }, [&] { return detail::native::CALL; })
#else
#define ATTNLAB_ON_BACKEND(ctx, CALL) (ctx).run([&] { return detail::emulated::CALL; }, [&] { return detail::emulated::CALL; })
#endif

void take_launches(KernelRun& kr, BackendRun& run) {
    for (emu::LaunchReport& r : run.launches) kr.launches.push_back(std::move(r));
    run.launches.clear();
}

// Runs one pipeline; false (and launches kept) when a launch failed.
bool pipeline(KernelRun& kr, BackendRun run, BackendRun& out) {
    const bool ok = run.ok() && !run.launches.empty();
    take_launches(kr, run);
    out = std::move(run);
    return ok;
}

void op_linear(const Context& c, KernelRun& kr) {
    const TensorData& x = tensor(c.in, "x", 2);
    const TensorData& w = tensor(c.in, "w", 2);
    expect_dim("w", w, 0, x.shape[1]);
    const int M = int(x.shape[0]), K = int(x.shape[1]), N = int(w.shape[1]);
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_matmul(x.data, w.data, M, K, N)), run)) return;
    kr.output = Value::of_tensor(as_tensor(need(run, "out"), {M, N}));
}

void op_qkv(const Context& c, KernelRun& kr, bool fused) {
    const TensorData& x = tensor(c.in, "x", 2);
    const int64_t T = x.shape[0], D = x.shape[1];
    std::vector<float> w_qkv;
    if (fused) {
        const TensorData& w = tensor(c.in, "w_qkv", 2);
        expect_dim("w_qkv", w, 0, D);
        expect_dim("w_qkv", w, 1, 3 * D);
        w_qkv = w.data;
    } else {
        const TensorData* w[3];
        const char* names[3] = {"w_q", "w_k", "w_v"};
        for (int i = 0; i < 3; ++i) {
            w[i] = &tensor(c.in, names[i], 2);
            expect_dim(names[i], *w[i], 0, D);
            expect_dim(names[i], *w[i], 1, D);
        }
        w_qkv = side_by_side(*w[0], *w[1], *w[2]);
    }
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_matmul(x.data, w_qkv, int(T), int(D), int(3 * D))), run)) return;
    const HostTensor& qkv = need(run, "out");
    if (fused) kr.stages.push_back({"qkv", as_tensor(qkv, {T, 3 * D})});
    qkv_outputs(kr, qkv.data, T, D, {T, D}, true);
}

void op_split(const Context& c, KernelRun& kr, bool batched) {
    const TensorData& x = tensor(c.in, "x", batched ? 3 : 2);
    const int H = integer(c.in, "n_heads");
    const int64_t B = batched ? x.shape[0] : 1, T = x.shape[batched ? 1 : 0], D = x.shape[batched ? 2 : 1];
    heads_of(int(D), H);
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_split_heads(x.data, int(B), int(T), int(D), H)), run)) return;
    Shape shape = batched ? Shape{B, H, T, D / H} : Shape{H, T, D / H};
    kr.output = Value::of_tensor(as_tensor(need(run, "out"), shape));
}

void op_merge(const Context& c, KernelRun& kr, bool project) {
    const TensorData& h = tensor(c.in, "heads", 3);
    const int64_t H = h.shape[0], T = h.shape[1], hd = h.shape[2], D = H * hd;
    BackendRun merged;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_merge_heads(h.data, 1, int(H), int(T), int(hd))), merged)) return;
    TensorData concat = as_tensor(need(merged, "out"), {T, D});
    if (!project) {
        kr.output = Value::of_tensor(std::move(concat));
        return;
    }
    const TensorData& w_o = tensor(c.in, "w_o", 2);
    expect_dim("w_o", w_o, 0, D);
    expect_dim("w_o", w_o, 1, D);
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_matmul(concat.data, w_o.data, int(T), int(D), int(D))), run)) return;
    TensorData out = as_tensor(need(run, "out"), {T, D});
    kr.stages.push_back({"concat", std::move(concat)});
    kr.stages.push_back({"out", out});
    kr.output = Value::of_tensor(std::move(out));
}

// attention_scores / causal_attention_weights: the attention kernel's stages.
void op_weights(const Context& c, KernelRun& kr, bool scores_only) {
    const TensorData& q = tensor(c.in, "q", 3);
    const TensorData& k = tensor(c.in, "k", 3);
    if (k.shape != q.shape)
        throw InputError("k: expected the shape of q " + shape_to_string(q.shape) + ", got " + shape_to_string(k.shape));
    detail::AttentionProblem p;
    p.q = &q.data;
    p.k = &k.data;
    p.v = &k.data;  // any (H, T, hd) values: only the weights are wanted
    p.H = int(q.shape[0]);
    p.T = int(q.shape[1]);
    p.hd = int(q.shape[2]);
    p.version = attention_version(c.options, p.hd);
    p.stages = true;
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_attention(p)), run)) return;
    const Shape s{p.H, p.T, p.T};
    if (scores_only) {
        kr.output = Value::of_tensor(as_tensor(need(run, "scores"), s));
        return;
    }
    for (const char* name : {"scores", "masked", "weights"}) kr.stages.push_back({name, as_tensor(need(run, name), s)});
    kr.output = Value::of_tensor(kr.stages.back().tensor);
}

enum class Mhsa { Separate, Fused, Batched };

void op_mhsa(const Context& c, KernelRun& kr, Mhsa kind) {
    const bool batched = kind == Mhsa::Batched;
    const TensorData& x = tensor(c.in, "x", batched ? 3 : 2);
    const int64_t B = batched ? x.shape[0] : 1, T = x.shape[batched ? 1 : 0], D = x.shape[batched ? 2 : 1];
    const int H = heads_of(int(D), integer(c.in, "n_heads"));
    const int64_t hd = D / H;
    std::vector<float> w_qkv;
    if (kind == Mhsa::Fused) {
        const TensorData& w = tensor(c.in, "w_qkv", 2);
        expect_dim("w_qkv", w, 0, D);
        expect_dim("w_qkv", w, 1, 3 * D);
        w_qkv = w.data;
    } else {
        const char* names[3] = {"w_q", "w_k", "w_v"};
        for (const char* n : names) {
            expect_dim(n, tensor(c.in, n, 2), 0, D);
            expect_dim(n, tensor(c.in, n, 2), 1, D);
        }
        w_qkv = side_by_side(tensor(c.in, "w_q", 2), tensor(c.in, "w_k", 2), tensor(c.in, "w_v", 2));
    }
    const TensorData& w_o = tensor(c.in, "w_o", 2);
    expect_dim("w_o", w_o, 0, D);
    expect_dim("w_o", w_o, 1, D);

    detail::MhsaProblem p;
    p.x = &x.data;
    p.w_qkv = &w_qkv;
    p.w_o = &w_o.data;
    p.B = int(B);
    p.T = int(T);
    p.D = int(D);
    p.H = H;
    p.version = attention_version(c.options, int(hd));
    p.stages = c.options.stages;
    BackendRun run;
    if (!pipeline(kr, ATTNLAB_ON_BACKEND(c, run_mhsa(p)), run)) return;

    // Reference shapes: a leading B only for the batched op.
    auto shape = [&](Shape s) {
        if (batched) s.insert(s.begin(), B);
        return s;
    };
    qkv_outputs(kr, need(run, "qkv").data, B * T, D, shape({T, D}), false);
    if (p.stages)
        for (const char* name : {"scores", "masked", "weights"})
            kr.stages.push_back({name, as_tensor(need(run, name), shape({H, T, T}))});
    kr.stages.push_back({"heads", as_tensor(need(run, "heads"), shape({H, T, hd}))});
    kr.stages.push_back({"concat", as_tensor(need(run, "concat"), shape({T, D}))});
    kr.stages.push_back({"out", as_tensor(need(run, "out"), shape({T, D}))});
    kr.output = Value::of_tensor(kr.stages.back().tensor);
}

using OpFn = std::function<void(const Context&, KernelRun&)>;

const std::vector<std::pair<std::string, OpFn>>& op_table() {
    static const std::vector<std::pair<std::string, OpFn>> table = {
        {"linear", op_linear},
        {"qkv_projection", [](const Context& c, KernelRun& k) { op_qkv(c, k, false); }},
        {"fused_qkv", [](const Context& c, KernelRun& k) { op_qkv(c, k, true); }},
        {"split_heads", [](const Context& c, KernelRun& k) { op_split(c, k, false); }},
        {"batched_split_heads", [](const Context& c, KernelRun& k) { op_split(c, k, true); }},
        {"merge_heads", [](const Context& c, KernelRun& k) { op_merge(c, k, false); }},
        {"merge_project", [](const Context& c, KernelRun& k) { op_merge(c, k, true); }},
        {"attention_scores", [](const Context& c, KernelRun& k) { op_weights(c, k, true); }},
        {"causal_attention_weights", [](const Context& c, KernelRun& k) { op_weights(c, k, false); }},
        {"causal_mhsa", [](const Context& c, KernelRun& k) { op_mhsa(c, k, Mhsa::Separate); }},
        {"fused_causal_mhsa", [](const Context& c, KernelRun& k) { op_mhsa(c, k, Mhsa::Fused); }},
        {"batched_causal_mhsa", [](const Context& c, KernelRun& k) { op_mhsa(c, k, Mhsa::Batched); }},
    };
    return table;
}

// The report a view shows first: the failed launch, else the attention (or
// the only / last) launch.
emu::LaunchReport main_report(const std::vector<emu::LaunchReport>& launches) {
    if (launches.empty()) return {};
    for (const emu::LaunchReport& r : launches)
        if (!r.ok()) return r;
    for (const emu::LaunchReport& r : launches)
        if (r.kernel.rfind("attention", 0) == 0) return r;
    return launches.back();
}

}  // namespace

const std::vector<std::string>& kernel_ops() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& entry : op_table()) out.push_back(entry.first);
        return out;
    }();
    return names;
}

bool has_kernel(const std::string& name) {
    for (const auto& entry : op_table())
        if (entry.first == name) return true;
    return false;
}

bool built_with_nvcc() { return ATTNLAB_HAVE_NVCC != 0; }

bool gpu_available() {
#if ATTNLAB_HAVE_NVCC
    static const bool available = detail::native::device_count() > 0;
    return available;
#else
    return false;
#endif
}

std::string gpu_device_name() {
#if ATTNLAB_HAVE_NVCC
    if (gpu_available()) return detail::native::device_name();
#endif
    return "";
}

std::optional<KernelRun> run_kernel_op(const std::string& name, const std::map<std::string, Value>& inputs,
                                       const KernelOptions& options) {
    const OpFn* fn = nullptr;
    for (const auto& entry : op_table())
        if (entry.first == name) fn = &entry.second;
    if (!fn) return std::nullopt;

    KernelRun kr;
    const bool gpu = options.backend != Backend::Emulator && gpu_available();
    kr.backend = gpu ? Backend::Gpu : Backend::Emulator;
    kr.device = gpu ? gpu_device_name() : "CPU emulator";

    // One emulated launch at a time per process, its blocks on this OS thread
    // (launchers.hpp): the checks' shadow state is the process's.
    std::unique_lock<std::mutex> one_launch_at_a_time(emulated::emulator_lock(), std::defer_lock);
    if (!gpu) one_launch_at_a_time.lock();
    emu::LaunchOptions lo = emu::launch_options();
    lo.checks = options.emulator_checks;
    lo.counters = options.emulator_counters;
    lo.trace = options.trace;
    lo.trace_block = options.trace_block;
    if (options.emulator_step_limit) lo.max_steps_per_thread = options.emulator_step_limit;
    emu::ScopedLaunchOptions scoped(lo);
    try {
        (*fn)(Context{inputs, options, gpu}, kr);
    } catch (const InputError& e) {
        kr.input_error = e.what();
    } catch (const std::exception& e) {  // e.g. out of memory, a CUDA runtime error
        emu::LaunchReport r;
        r.kernel = name;
        r.fault.kind = emu::FaultKind::KernelException;
        r.fault.detail = e.what();
        kr.launches.push_back(r);
    }
    kr.report = main_report(kr.launches);
    if (!kr.ok()) {
        kr.output = Value{};
        kr.stages.clear();
    }
    return kr;
}

KernelLayout kernel_layout(const std::string& kernel) {
    if (kernel == "split_heads_v1" || kernel == "merge_heads_v1" || kernel == "matmul_tiled_v1") return {"layout.cu"};
    if (kernel == "attention_v1" || kernel == "attention_v2") return {"attention.cu"};
    return {};
}

LayoutComparison compare_attention_layouts(int B, int T, int H, int hd, int version) {
    LayoutComparison c;
    const int64_t D = int64_t(H) * hd, n = int64_t(B) * T * D;
    if (B < 1 || T < 1 || H < 1 || hd < 1 || n * 3 > (int64_t(1) << 26)) {
        c.transposed.fault.kind = c.untransposed.fault.kind = emu::FaultKind::InvalidLaunch;
        c.transposed.fault.detail = c.untransposed.fault.detail = "empty_launch";
        return c;
    }
    if (hd > emulated::attention_v2_max_head_dim()) version = 1;
    std::vector<float> values(size_t(n * 3));
    uint32_t state = 12345;  // a fixed LCG: the same figures every time
    for (float& x : values) x = float((state = state * 1664525u + 1013904223u) >> 8) / float(1 << 24) - 0.5f;
    const std::lock_guard<std::mutex> one_launch_at_a_time(emulated::emulator_lock());
    emu::LaunchOptions lo = emu::launch_options();
    emu::ScopedLaunchOptions scoped(lo);
    using emulated::DeviceFloats;
    const DeviceFloats qkv = DeviceFloats::from_host("qkv", values);
    const DeviceFloats q("q", size_t(n)), k("k", size_t(n)), v("v", size_t(n));
    const DeviceFloats out_t("out", size_t(n)), out_u("out", size_t(n));
    const int C = int(3 * D);
    for (auto [buffer, col0] : {std::pair{&q, 0}, {&k, int(D)}, {&v, int(2 * D)}})
        if (!emulated::split_heads(buffer->data(), qkv.data(), B, T, H, hd, C, col0).ok())
            return c;
    c.transposed = emulated::attention(version, out_t.data(), q.data(), k.data(), v.data(), nullptr, nullptr, nullptr,
                                       B, H, T, hd);
    const int layout[3] = {T * C, hd, C};  // (b, h, t, d) of the q third of qkv (B, T, 3, H, hd)
    const float* base = qkv.data();
    c.untransposed = emulated::attention(version, out_u.data(), base, base + D, base + 2 * D, nullptr, nullptr,
                                         nullptr, B, H, T, hd, layout);
    if (c.transposed.ok() && c.untransposed.ok()) {
        const std::vector<float> a = out_t.download(), b = out_u.download();
        for (size_t i = 0; i < a.size(); ++i)
            c.max_abs_difference = std::max(c.max_abs_difference, double(std::fabs(a[i] - b[i])));
    }
    return c;
}

BlockRole block_role(const std::string& kernel, emu::Dim3 block, int n_heads, int T) {
    BlockRole role;
    if (n_heads < 1) return role;
    if (kernel == "attention_v1") {  // grid = B·H, one block per (batch, head), every row
        role.batch = int(block.x) / n_heads;
        role.head = int(block.x) % n_heads;
        role.row_end = T;
    } else if (kernel == "attention_v2") {  // grid = (row tiles, B·H)
        role.batch = int(block.y) / n_heads;
        role.head = int(block.y) % n_heads;
        const int rows = emulated::attention_v2_rows_per_block();
        role.row_begin = std::min(T, int(block.x) * rows);
        role.row_end = std::min(T, int(block.x + 1) * rows);
    }
    return role;
}

}  // namespace attnlab::kernels
