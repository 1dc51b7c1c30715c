// Wrong on purpose: the element count is taken from one sequence (T*D) and
// forgets the batch, so only the first sequence's heads are ever written; the
// rest of out keeps its garbage.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int n, int T, int H, int hd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int j = i % hd;
    const int t = (i / hd) % T;
    const int h = (i / (hd * T)) % H;
    const int b = i / (hd * T * H);
    out[i] = x[(b * T + t) * H * hd + h * hd + j];
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int T = x.size(1), D = x.size(2);
    const int n = T * D;  // the size of one sequence, not of the batch
    const int threads = 128;
    split_heads_kernel<<<ceil_div(n, threads), threads>>>(out.data(), x.data(), n, T, n_heads, D / n_heads);
}
