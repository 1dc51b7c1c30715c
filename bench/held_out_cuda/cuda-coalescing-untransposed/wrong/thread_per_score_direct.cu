// Wrong: one thread per score reading q/k straight from global with lanes over keys j (stride D apart); values right; expect uncoalesced_loads.
#include <cuda_runtime.h>
__global__ void scores_naive(float* out, const float* q, const float* k, int B, int T, int H, int hd, float scale) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)B * H * T * T) return;
    int j = idx % T, i = (idx / T) % T, h = (idx / ((long long)T * T)) % H, b = idx / ((long long)T * T * H);
    float s = 0.f;
    for (int d = 0; d < hd; ++d)
        s += q[(((size_t)b * T + i) * H + h) * hd + d] * k[(((size_t)b * T + j) * H + h) * hd + d];
    out[idx] = s * scale;
}
void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);
    scores_naive<<<ceil_div(out.numel(), 128), 128>>>(out.data(), q.data(), k.data(), B, T, H, hd, 1.0f / sqrtf((float)hd));
}
