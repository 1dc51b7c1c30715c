// Split into heads
//
// x has shape (T, D): one row per token. n_heads = H always divides D, and
// hd = D / H. Return a new tensor of shape (H, T, hd) in which head h holds
// columns h*hd ... (h+1)*hd - 1 of x:
//
//     out(h, t, c) = x(t, h*hd + c)
//
// Do not modify x.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D) -> (H, T, hd)
Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    const int64_t hd = D / n_heads;

    // TODO: build the (H, T, hd) result described above. If you are unsure
    //       where to start, `attnlab hint split-heads` shows one hint at a time.
    //
    // Curious about layouts? probe("name", t) shows any tensor next to the
    // reference, and t.strides() / t.is_contiguous() describe its memory.

    return Tensor::zeros({n_heads, T, hd});  // TODO: replace with your result
}
