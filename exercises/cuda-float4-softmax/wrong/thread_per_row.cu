// Wrong: one thread per row, each walking its own row with float4 loads: every
// load is 16 bytes, but the 32 lanes of a warp read 32 different rows, T floats
// apart, so a warp request touches up to 32 sectors for 512 bytes (16 sectors).
#include <attnlab/cuda.hpp>

__global__ void softmax_thread_per_row(float* out, const float* x, int T, int rows) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const long long start = (long long)row * T;
    const int head = min(int((4 - start % 4) % 4), T);
    const int quads = (T - head) / 4;
    const int tail_start = head + 4 * quads;
    const float* in = x + start;
    float* o = out + start;
    const float4* in4 = reinterpret_cast<const float4*>(in + head);
    float4* o4 = reinterpret_cast<float4*>(o + head);

    float m = -INFINITY;
    for (int j = 0; j < head; ++j) m = fmaxf(m, in[j]);
    for (int q = 0; q < quads; ++q) {
        const float4 v = in4[q];
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (int j = tail_start; j < T; ++j) m = fmaxf(m, in[j]);

    float s = 0.0f;
    for (int j = 0; j < head; ++j) s += expf(in[j] - m);
    for (int q = 0; q < quads; ++q) {
        const float4 v = in4[q];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    for (int j = tail_start; j < T; ++j) s += expf(in[j] - m);
    const float inv_sum = 1.0f / s;

    for (int j = 0; j < head; ++j) o[j] = expf(in[j] - m) * inv_sum;
    for (int q = 0; q < quads; ++q) {
        const float4 v = in4[q];
        o4[q] = make_float4(expf(v.x - m) * inv_sum, expf(v.y - m) * inv_sum, expf(v.z - m) * inv_sum, expf(v.w - m) * inv_sum);
    }
    for (int j = tail_start; j < T; ++j) o[j] = expf(in[j] - m) * inv_sum;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;
    softmax_thread_per_row<<<(rows + 127) / 128, 128>>>(out.data(), x.data(), T, rows);
}
