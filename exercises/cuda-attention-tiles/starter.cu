// Attention over key tiles: one block per (sequence, head), two passes
//
//   q, k, v, out: (B, H, T, hd), row-major in device memory; hd <= 64, T any length.
//   out[b, h, i, :] = sum over keys j = 0..i of w(i, j) · v[b, h, j, :], where
//   w(i, ·) is the softmax over j = 0..i of q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   The same result as cuda-attention, with one new constraint: a block holds
//   K and V in shared memory one tile of keys at a time (16 keys is a good
//   size), so its shared memory does not grow with T (checked: 16 KiB per
//   block at most). Two passes over the tiles are fine here: one for each
//   row's maximum, one for the weights and the weighted sum.
//   T need not be a multiple of the tile: the last tile may be partial.
//
// attnlab calls tiled_attention() once per case. q, k and v are already in
// device memory; out has its shape and holds garbage until a kernel writes it.
// Launch B·H blocks, one per (sequence, head) pair (checked); the block size,
// the tile size and the work of each thread are yours to choose.
#include <attnlab/cuda.hpp>

// TODO: the kernel. Give it a shape comment, e.g.
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   shared: one tile of K, one of V

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), to be written by your kernel.
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: launch your kernel with B·H blocks, so that every element of out is written.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: remove once used
}
