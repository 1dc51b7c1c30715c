// Wrong: final reduction reads sm[0]/ss[0] with no barrier after the last tree level? No: the tree barrier is placed before the if, not after; expect shared_race.
#include <cuda_runtime.h>
#include <math.h>
#define NT 64
__global__ void softmax_block(float* out, const float* s, int T) {
    __shared__ float sm[NT], ss[NT];
    int row = blockIdx.x, i = row % T, tid = threadIdx.x;
    const float* x = s + (size_t)row * T;
    float m = -INFINITY, l = 0.f;
    for (int j = tid; j <= i; j += NT) {
        float v = x[j];
        float mn = fmaxf(m, v);
        l = l * expf(m - mn) + expf(v - mn);
        m = mn;
    }
    sm[tid] = m; ss[tid] = l;
    __syncthreads();
    for (int st = NT / 2; st > 0; st /= 2) {
        __syncthreads();
        if (tid < st) {
            float m1 = sm[tid], m2 = sm[tid + st];
            float mn = fmaxf(m1, m2);
            float l1 = (m1 == -INFINITY) ? 0.f : ss[tid] * expf(m1 - mn);
            float l2 = (m2 == -INFINITY) ? 0.f : ss[tid + st] * expf(m2 - mn);
            sm[tid] = mn; ss[tid] = l1 + l2;
        }
    }
    float M = sm[0], L = ss[0];
    for (int j = tid; j < T; j += NT)
        out[(size_t)row * T + j] = (j <= i) ? expf(x[j] - M) / L : 0.0f;
}
void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    int T = scores.size(3);
    softmax_block<<<scores.numel() / T, NT>>>(out.data(), scores.data(), T);
}
