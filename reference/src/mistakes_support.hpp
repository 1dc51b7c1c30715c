#pragma once
// Internal to the reference: what the mistake files (mistakes_*.cpp) share.
#include <vector>

#include "registry_support.hpp"

namespace attnlab::reference::support {

// How a learner's softmax shifts each row before exp.
enum class SoftmaxKind {
    Stable,            // minus the row's own max (right)
    NoMaxSubtraction,  // exp(x) straight
    MaxFromZero,       // the max starts at 0 instead of -inf: rows of large negatives underflow
    GlobalMax,         // one max for the whole tensor: rows far below it underflow
    HeadMax,           // one max per head (leading-axis slice): that head's rows far below it underflow
};

// The row softmax of x the way float learner code computes it with `kind`'s
// shift (`tensor_max` for GlobalMax): in float, so exp overflows to inf and
// underflows to 0 where theirs does, and inf/inf or 0/0 gives NaN where
// theirs does. A variant that holds NaN matches a learner's NaN there.
Matrix softmax_in_float(const Matrix& x, SoftmaxKind kind, double tensor_max = 0);

// mistakes_softmax.cpp: the softmax without its max subtraction in
// stable-softmax and why-many-heads, and the fused projection's transposed
// weight.
void add_softmax_mistakes(std::vector<Op>& ops);
// mistakes_online.cpp: the online-softmax exercise's op and its mistakes.
void add_online_softmax_op(std::vector<Op>& ops);
// mistakes_online.cpp: the online loop's mistakes as a CUDA kernel over
// (B, H, T, hd) makes them, one form per usual tile size (8 … 128 keys).
void add_online_tile_forms(Op& op);

}  // namespace attnlab::reference::support
