// Wrong: treats the input as (B, H, T, hd) (the transposed layout of cuda-coalescing); expect wrong_answer, maybe a layout mistake.
#include <cuda_runtime.h>
__global__ void scores_bthd(float* out, const float* q, const float* k, int T, int H, int hd, float scale) {
    __shared__ float Qs[8][65];
    __shared__ float Ks[32][65];
    int bh = blockIdx.z, b = bh / H, h = bh % H;
    int i0 = blockIdx.y * 8, j0 = blockIdx.x * 32;
    int tid = threadIdx.y * 32 + threadIdx.x;
    for (int e = tid; e < 32 * hd; e += 256) {
        int r = e / hd, d = e % hd;
        if (r < 8 && i0 + r < T) Qs[r][d] = q[(((size_t)b * H + h) * T + i0 + r) * hd + d];
        if (j0 + r < T) Ks[r][d] = k[(((size_t)b * H + h) * T + j0 + r) * hd + d];
    }
    __syncthreads();
    int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    if (i < T && j < T) {
        float s = 0.f;
        for (int d = 0; d < hd; ++d) s += Qs[threadIdx.y][d] * Ks[threadIdx.x][d];
        out[((size_t)bh * T + i) * T + j] = s * scale;
    }
}
void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);
    dim3 grid(ceil_div(T, 32), ceil_div(T, 8), B * H);
    scores_bthd<<<grid, dim3(32, 8)>>>(out.data(), q.data(), k.data(), T, H, hd, 1.0f / sqrtf((float)hd));
}
