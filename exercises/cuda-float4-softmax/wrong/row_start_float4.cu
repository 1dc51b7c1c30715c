// Wrong: as llm.c's softmax_forward_kernel5, which asserts T % 4 == 0, the float4s
// start at the row's first float. Row 1 starts at float T: with T = 6 that is
// byte 24, not a multiple of 16, and its first float4 load is misaligned.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;  // 128 threads: four rows per block

// Where row `row` of T floats meets 16-byte boundaries. x and out come from
// cudaMalloc, so they start at a multiple of 256 bytes, and float k of them
// is 16-byte aligned exactly when k % 4 == 0. The row starts at float row·T.
struct RowSplit {
    int head;   // floats before the row's first aligned float: 0 to 3
    int quads;  // whole float4s from there on
    int tail;   // floats after the last whole float4: 0 to 3
};

__device__ RowSplit split_row(long long row, int T) {
    RowSplit s;
    s.head = 0;  // assumes every row starts on a 16-byte boundary
    s.quads = (T - s.head) / 4;
    s.tail = T - s.head - 4 * s.quads;
    return s;
}

__device__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
    return v;
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
    return v;
}

// out, x: (B, H, T), one row of T scores per (b, h).
// out[b, h, j] = exp(x_j - m) / sum_k exp(x_k - m), m the row's maximum.
__global__ void softmax_float4_kernel(float* out, const float* x, int T, int rows) {
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;  // the whole warp shares the row, so it leaves together

    const RowSplit sp = split_row(row, T);
    const float* in = x + (size_t)row * T;
    float* o = out + (size_t)row * T;
    const float4* in4 = reinterpret_cast<const float4*>(in + sp.head);  // aligned: row·T + head is a multiple of 4
    float4* o4 = reinterpret_cast<float4*>(o + sp.head);
    const int tail_start = sp.head + 4 * sp.quads;

    // 1. The row's maximum: every lane a float4 of every 32 (lane, lane + 32,
    //    ...), then lanes 0..head-1 the head and lanes 0..tail-1 the tail.
    float m = -INFINITY;
    for (int q = lane; q < sp.quads; q += 32) {
        const float4 v = in4[q];
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    if (lane < sp.head) m = fmaxf(m, in[lane]);
    if (lane < sp.tail) m = fmaxf(m, in[tail_start + lane]);
    m = warp_max(m);

    // 2. The sum of exp(x - m): every term <= 1, the maximum's own term 1.
    float s = 0.0f;
    for (int q = lane; q < sp.quads; q += 32) {
        const float4 v = in4[q];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    if (lane < sp.head) s += expf(in[lane] - m);
    if (lane < sp.tail) s += expf(in[tail_start + lane] - m);
    const float inv_sum = 1.0f / warp_sum(s);

    // 3. The weights, stored the way they were read.
    for (int q = lane; q < sp.quads; q += 32) {
        const float4 v = in4[q];
        o4[q] = make_float4(expf(v.x - m) * inv_sum, expf(v.y - m) * inv_sum, expf(v.z - m) * inv_sum, expf(v.w - m) * inv_sum);
    }
    if (lane < sp.head) o[lane] = expf(in[lane] - m) * inv_sum;
    if (lane < sp.tail) o[tail_start + lane] = expf(in[tail_start + lane] - m) * inv_sum;
}

// attnlab calls this once per case: x is already in device memory, out has
// shape (B, H, T) and holds garbage until a kernel writes it.
void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;  // B * H
    const int blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    softmax_float4_kernel<<<blocks, 32 * kWarpsPerBlock>>>(out.data(), x.data(), T, rows);
}
