// Fixture for batched-layout (wrong/batch_head_axes_permuted).
// Mistake: the head axis is moved to the front instead of second, so the
// result is (H, B, T, hd): batch and head swapped. Only a case with B = H has
// the expected shape; the verdict names the swap from every case that returns.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    return x.reshape({B, T, n_heads, D / n_heads}).transpose(2, 0, 1, 3).contiguous();
}
