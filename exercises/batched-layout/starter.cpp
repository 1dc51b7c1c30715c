// Batched layout: (B, T, D) -> (B, H, T, hd)
//
// Split every sequence of the batch into heads, the batch axis staying first:
//
//     out(b, h, t, j) = x(b, t, h*hd + j),   hd = D / n_heads
//
// Head h of sequence b takes columns h*hd ... (h+1)*hd - 1 of that sequence.
// Return a row-major (contiguous) tensor, so that each (sequence, head) pair
// is one unbroken block of T*hd numbers.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (B, T, D) -> (B, H, T, hd)
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0);
    const int64_t T = x.shape(1);
    const int64_t D = x.shape(2);
    const int64_t hd = D / n_heads;

    // TODO: build the (B, H, T, hd) tensor described above.
    //       t.strides() and t.is_contiguous() show the layout of any tensor t.

    return Tensor::zeros({B, n_heads, T, hd});  // TODO: replace with your result
}
