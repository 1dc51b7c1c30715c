// Wrong on purpose: one block per query row and one thread per key, with a
// fixed block of 256 threads and no loop, so a row longer than the block
// (T = 257) keeps its last keys unwritten. Every row up to T = 256 is right.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 256;  // enough for every row the small cases have

// out, scores: (B, H, T, T); block r owns row r of the B*H*T rows.
__global__ void mask_rows(float* out, const float* scores, int T) {
    const int row = blockIdx.x % T;  // the query, inside its (T, T) slice
    const int j = threadIdx.x;       // the key: one per thread, none past the block
    if (j >= T) return;
    const long long k = (long long)blockIdx.x * T + j;
    out[k] = j > row ? -INFINITY : scores[k];
}

void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.size(0) * scores.size(1) * T;
    mask_rows<<<rows, kThreads>>>(out.data(), scores.data(), T);
}
