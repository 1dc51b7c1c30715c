// Split into heads
//
// Cut every token vector of x into n_heads chunks of hd = D / n_heads numbers
// and give each chunk (a "head") its own leading index:
//
//     out(h, t, c) = x(t, h*hd + c)
//
// Head h takes columns h*hd ... (h+1)*hd - 1.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D) -> (H, T, hd)
Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    const int64_t hd = D / n_heads;

    // TODO 1: view x as (T, H, hd) with reshape. Each row of D numbers becomes
    //         H rows of hd numbers; no data moves.

    // TODO 2: move the head axis to the front with transpose(1, 0, 2):
    //         (T, H, hd) -> (H, T, hd). Still a view: only strides change.

    // TODO 3: return a contiguous() copy so that each head's (T, hd) block is
    //         one row-major slab, ready for the matmuls that follow.
    //
    // Curious? probe("after transpose", t) shows any tensor next to the
    // reference, and t.strides() / t.is_contiguous() tell you the layout.

    return Tensor::zeros({n_heads, T, hd});  // TODO: replace with your result
}
