// One matmul for Q, K and V, then a change of view.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_qkv: (D, 3D)  ->  (3, T, D): index 0 is Q, 1 is K, 2 is V
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // Column block p of the product only uses column block p of w_qkv, so
    // this one matmul is [Q | K | V].
    Tensor qkv = matmul(x, w_qkv);  // (T, 3D)
    probe("qkv", qkv);

    // Each row lists its q, k, v blocks in order: viewing it as (T, 3, D) is
    // free. Moving the block axis to the front gives (3, T, D).
    Tensor out = qkv.reshape({T, 3, D}).transpose(1, 0, 2).contiguous();
    probe("Q", out[0]);
    probe("K", out[1]);
    probe("V", out[2]);
    return out;
}
