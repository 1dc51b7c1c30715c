// Attention scores before the head transpose
//
//     out[b, h, i, j] = sum over d of q[b, i, h, d] * k[b, j, h, d] / sqrt(hd)
//
// q and k are (B, T, H, hd), row-major, as the fused projection leaves them:
// element (b, t, h, d) is at ((b*T + t)*H + h)*hd + d. They are already in
// device memory. out is (B, H, T, T), every score, no mask; it holds garbage
// until a kernel writes it. attnlab calls attention_scores_untransposed once
// per case; the grid, the block and any shared memory are yours to choose.
//
// The rule: the sectors your loads and stores waste, summed over a case, at most 2x the
// least traffic the scores need (`attnlab check` prints your figure when it is over).
#include <attnlab/cuda.hpp>

// TODO: the kernel. Give it a shape comment, e.g.
// out: (B, H, T, T)   q, k: (B, T, H, hd)

void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);

    // TODO: launch your kernel(s) so that every element of out is written.

    (void)out; (void)k; (void)B; (void)T; (void)H; (void)hd;  // TODO: remove once used
}
