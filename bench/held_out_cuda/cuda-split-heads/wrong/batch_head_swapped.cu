// Wrong: b and h swapped in the output index (b*H+h written as h*B+b); expect batch_head_swapped.
#include <cuda_runtime.h>
__global__ void split3d(float* __restrict__ out, const float* __restrict__ x, int T, int H, int hd, int B) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;   // column within head
    int t = blockIdx.y * blockDim.y + threadIdx.y;   // token
    int bh = blockIdx.z;
    int b = bh / H, h = bh % H;
    if (j >= hd || t >= T) return;
    out[(((size_t)h * B + b) * T + t) * hd + j] = x[((size_t)b * T + t) * (H * hd) + h * hd + j];
}
void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    int B = x.size(0), T = x.size(1), D = x.size(2), hd = D / n_heads;
    dim3 block(32, 8);
    dim3 grid((hd + 31) / 32, (T + 7) / 8, B * n_heads);
    split3d<<<grid, block>>>(out.data(), x.data(), T, n_heads, hd, B);
}
