// Wrong: blockDim 256 but the final warp stage sums only the first 4 warp partials (hard-coded from a 128-thread version); expect wrong_answer.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void rowsum_cg(float* out, const float* x, int N) {
    extern __shared__ float warp_sums[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* row = x + (size_t)blockIdx.x * N;
    float v = 0.f;
    for (int j = threadIdx.x; j < N; j += blockDim.x) v += row[j];
    for (int o = warp.size() / 2; o > 0; o /= 2) v += warp.shfl_down(v, o);
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int nw = 4;
        float s = warp.thread_rank() < nw ? warp_sums[warp.thread_rank()] : 0.f;
        for (int o = 16; o > 0; o /= 2) s += warp.shfl_down(s, o);
        if (warp.thread_rank() == 0) out[blockIdx.x] = s;
    }
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    int N = x.size(3); int rows = out.numel();
    const int threads = 256;
    rowsum_cg<<<rows, threads, (threads / 32) * sizeof(float)>>>(out.data(), x.data(), N);
}
