// Causal mask: hide every key that comes after its query.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// scores: (H, T, T) -> (H, T, T), future entries set to -inf
Tensor causal_mask(const Tensor& scores) {
    // clone(), not a plain copy: a Tensor copy is a view of the same storage.
    Tensor out = scores.clone();

    const int64_t H = out.shape(0);
    const int64_t T_q = out.shape(1);  // query rows
    const int64_t T_k = out.shape(2);  // key columns (equal to T_q here)

    for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < T_q; ++i) {
            // Keys 0..i stay; keys i+1.. are the future of token i.
            for (int64_t j = i + 1; j < T_k; ++j) {
                // -inf, not a big negative number: exp(-inf) is exactly 0
                // whatever the other scores are, in any float type.
                out(h, i, j) = kNegInf;
            }
        }
    }
    return out;
}
