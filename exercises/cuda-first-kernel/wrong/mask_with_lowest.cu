// Wrong on purpose: future keys get -FLT_MAX (numeric_limits<float>::lowest()), a finite number, instead of -inf.
#include <attnlab/cuda.hpp>

#include <cfloat>

// out, scores: (B, H, T, T), n = B*H*T*T elements.
// out[b, h, i, j] = scores[b, h, i, j] if j <= i, else -inf.
__global__ void mask_kernel(float* out, const float* scores, int T, long long n) {
    // Launch layout: a 1-D grid of 1-D blocks; global thread i owns out[i].
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;  // the last block sticks out past the end: those threads do nothing

    // Each (T, T) slice is T*T consecutive floats, each row T of them:
    // peel off the key (the column) first, then the query (the row).
    const int j = (int)(i % T);
    const int row = (int)((i / T) % T);
    out[i] = j > row ? -FLT_MAX : scores[i];  // a future key is hidden; its score is never read
}

// attnlab calls this once per case: scores is already in device memory, out
// has the same shape and holds garbage until a kernel writes it.
void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const long long n = scores.numel();  // B*H*T*T: every slice, not just one
    const int threads = 256;             // a multiple of the warp size, 32
    const int blocks = ceil_div(n, threads);
    mask_kernel<<<blocks, threads>>>(out.data(), scores.data(), T, n);
}
