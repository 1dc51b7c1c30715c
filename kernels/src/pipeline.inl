// The host side of every kernel op, written once for both backends. Included
// inside namespace attnlab::kernels::detail::<backend> after that backend
// defines:
//   Buffer                                    device memory holding floats
//   Buffer upload(const char*, const std::vector<float>&)
//   Buffer alloc(const char*, size_t)         never-written memory
//   std::vector<float> download(const Buffer&)
//   float* ptr(const Buffer&)                 its device address
// and the launchers of kernels/attention/*.cu are in scope as `K::...`.

// Collects launch reports; the first failed launch stops the pipeline.
struct Launches {
    BackendRun& run;
    bool add(emu::LaunchReport r) {
        run.launches.push_back(std::move(r));
        return run.launches.back().ok();
    }
};

inline void keep(BackendRun& run, const char* name, std::vector<int64_t> shape, const Buffer& b) {
    run.tensors.push_back({name, std::move(shape), download(b)});
}

BackendRun run_matmul(const std::vector<float>& a, const std::vector<float>& w, int M, int K_, int N) {
    BackendRun run;
    Launches l{run};
    Buffer da = upload("a", a), dw = upload("w", w), dout = alloc("out", size_t(M) * N);
    if (l.add(K::matmul(ptr(dout), ptr(da), ptr(dw), M, N, K_))) keep(run, "out", {M, N}, dout);
    return run;
}

BackendRun run_split_heads(const std::vector<float>& x, int B, int T, int D, int H) {
    BackendRun run;
    Launches l{run};
    const int hd = D / H;
    Buffer dx = upload("x", x), dout = alloc("out", x.size());
    if (l.add(K::split_heads(ptr(dout), ptr(dx), B, T, H, hd, D, 0))) keep(run, "out", {B, H, T, hd}, dout);
    return run;
}

BackendRun run_merge_heads(const std::vector<float>& heads, int B, int H, int T, int hd) {
    BackendRun run;
    Launches l{run};
    Buffer dh = upload("heads", heads), dout = alloc("out", heads.size());
    if (l.add(K::merge_heads(ptr(dout), ptr(dh), B, T, H, hd))) keep(run, "out", {B, T, H * hd}, dout);
    return run;
}

// Attention on device-resident q, k, v (B, H, T, hd); adds heads (+ stages).
inline bool attention_on_device(Launches& l, const Buffer& q, const Buffer& k, const Buffer& v, Buffer& heads,
                                int B, int H, int T, int hd, int version, bool stages) {
    const size_t n_scores = stages ? size_t(B) * H * T * T : 0;
    Buffer scores = alloc("scores", n_scores), masked = alloc("masked", n_scores),
           weights = alloc("weights", n_scores);
    const bool ok = l.add(K::attention(version, ptr(heads), ptr(q), ptr(k), ptr(v),
                                       stages ? ptr(scores) : nullptr, stages ? ptr(masked) : nullptr,
                                       stages ? ptr(weights) : nullptr, B, H, T, hd));
    if (!ok) return false;
    if (stages) {
        keep(l.run, "scores", {B, H, T, T}, scores);
        keep(l.run, "masked", {B, H, T, T}, masked);
        keep(l.run, "weights", {B, H, T, T}, weights);
    }
    keep(l.run, "heads", {B, H, T, hd}, heads);
    return true;
}

BackendRun run_attention(const AttentionProblem& p) {
    BackendRun run;
    Launches l{run};
    Buffer q = upload("q", *p.q), k = upload("k", *p.k), v = upload("v", *p.v);
    Buffer heads = alloc("heads", p.q->size());
    attention_on_device(l, q, k, v, heads, p.B, p.H, p.T, p.hd, p.version, p.stages);
    return run;
}

// x·W_qkv -> split Q, K, V into heads -> attention -> merge -> ·W_O.
BackendRun run_mhsa(const MhsaProblem& p) {
    BackendRun run;
    Launches l{run};
    const int B = p.B, T = p.T, D = p.D, H = p.H, hd = D / H, M = B * T;
    const size_t n = size_t(M) * D;
    Buffer x = upload("x", *p.x), w_qkv = upload("w_qkv", *p.w_qkv);
    Buffer qkv = alloc("qkv", n * 3);
    if (!l.add(K::matmul(ptr(qkv), ptr(x), ptr(w_qkv), M, 3 * D, D))) return run;
    keep(run, "qkv", {M, 3 * D}, qkv);
    Buffer q = alloc("q", n), k = alloc("k", n), v = alloc("v", n);
    if (!l.add(K::split_heads(ptr(q), ptr(qkv), B, T, H, hd, 3 * D, 0))) return run;
    if (!l.add(K::split_heads(ptr(k), ptr(qkv), B, T, H, hd, 3 * D, D))) return run;
    if (!l.add(K::split_heads(ptr(v), ptr(qkv), B, T, H, hd, 3 * D, 2 * D))) return run;
    Buffer heads = alloc("heads", n);
    if (!attention_on_device(l, q, k, v, heads, B, H, T, hd, p.version, p.stages)) return run;
    Buffer concat = alloc("concat", n);
    if (!l.add(K::merge_heads(ptr(concat), ptr(heads), B, T, H, hd))) return run;
    keep(run, "concat", {B, T, D}, concat);
    if (!p.w_o) return run;
    Buffer w_o = upload("w_o", *p.w_o), out = alloc("out", n);
    if (!l.add(K::matmul(ptr(out), ptr(concat), ptr(w_o), M, D, D))) return run;
    keep(run, "out", {B, T, D}, out);
    return run;
}
