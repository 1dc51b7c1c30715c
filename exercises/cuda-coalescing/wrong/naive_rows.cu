// Wrong on purpose (for this exercise): right values, uncoalesced loads. One
// thread per score (i, j), lanes along j, each looping over d: at step d the
// 32 lanes of a warp read k[j, d] from 32 different key rows, hd floats apart,
// so one request touches up to 32 sectors for 32 useful floats.
#include <attnlab/cuda.hpp>

// out: (B, H, T, T)   q, k: (B, H, T, hd)
__global__ void scores_kernel(float* out, const float* q, const float* k,
                              int T, int hd, float scale) {
    // Launch layout: grid (ceil(T*T / 128), B*H), 128 threads; blockIdx.y = (b, h).
    const int bh = blockIdx.y;
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= T * T) return;
    const int i = e / T, j = e % T;
    float acc = 0.0f;
    for (int d = 0; d < hd; ++d) {
        const float qv = q[(bh * T + i) * hd + d];
        const float kv = k[(bh * T + j) * hd + d];  // lane j: its own row of k
        acc += qv * kv;
    }
    out[(bh * T + i) * T + j] = acc * scale;
}

void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float scale = 1.0f / sqrtf(static_cast<float>(hd));
    const dim3 grid(ceil_div(T * T, 128), B * H);
    scores_kernel<<<grid, 128>>>(out.data(), q.data(), k.data(), T, hd, scale);
}
