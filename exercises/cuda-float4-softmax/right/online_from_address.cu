// Correct: one warp per row, the head found from the row's address (how far
// it is to the next multiple of 16 bytes), and max and sum in one pass over
// the row (the online softmax, as llm.c's softmax_forward_kernel5 does): two
// passes over the row instead of three.
#include <attnlab/cuda.hpp>

// Running (max, sum of exp(x - max)) of a lane, with one more number.
__device__ void add(float& m, float& s, float v) {
    const float new_m = fmaxf(m, v);
    s = s * expf(m - new_m) + expf(v - new_m);
    m = new_m;
}

__global__ void softmax_online(float* out, const float* x, int T, int rows) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* in = x + (size_t)row * T;
    float* o = out + (size_t)row * T;
    const int to_boundary = int((16 - reinterpret_cast<size_t>(in) % 16) % 16) / 4;  // floats
    const int head = min(to_boundary, T);
    const int quads = (T - head) / 4;
    const int tail_start = head + 4 * quads;
    const float4* in4 = reinterpret_cast<const float4*>(in + head);
    float4* o4 = reinterpret_cast<float4*>(o + head);

    float m = -INFINITY, s = 0.0f;  // a lane with no number keeps (-inf, 0)
    if (lane < head) add(m, s, in[lane]);
    for (int q = lane; q < quads; q += 32) {
        const float4 v = in4[q];
        add(m, s, v.x);
        add(m, s, v.y);
        add(m, s, v.z);
        add(m, s, v.w);
    }
    if (tail_start + lane < T) add(m, s, in[tail_start + lane]);
    // Combine the lanes' pairs: each sum rescaled to the larger max.
    for (int offset = 16; offset > 0; offset /= 2) {
        const float other_m = __shfl_xor_sync(0xffffffff, m, offset);
        const float other_s = __shfl_xor_sync(0xffffffff, s, offset);
        const float new_m = fmaxf(m, other_m);
        s = (s == 0.0f ? 0.0f : s * expf(m - new_m)) + (other_s == 0.0f ? 0.0f : other_s * expf(other_m - new_m));
        m = new_m;
    }
    const float inv_sum = 1.0f / s;

    if (lane < head) o[lane] = expf(in[lane] - m) * inv_sum;
    for (int q = lane; q < quads; q += 32) {
        const float4 v = in4[q];
        o4[q] = make_float4(expf(v.x - m) * inv_sum, expf(v.y - m) * inv_sum, expf(v.z - m) * inv_sum, expf(v.w - m) * inv_sum);
    }
    if (tail_start + lane < T) o[tail_start + lane] = expf(in[tail_start + lane] - m) * inv_sum;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;
    softmax_online<<<(rows + 7) / 8, 256>>>(out.data(), x.data(), T, rows);
}
