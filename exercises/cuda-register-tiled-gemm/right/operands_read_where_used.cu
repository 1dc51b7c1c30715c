// A correct alternative: the solution's micro-tile with its operands read from
// shared memory where they are used, inside the i and j loops (32 loads per
// step along k, as written). nvcc unrolls those loops and loads each of the 8
// numbers once into a register, and the emulator counts it so: a load that the
// same expression repeats of an element the thread has just read, with no
// barrier between, is served from a register. 8 requests for 16 FMAs, as the
// solution.
#include <attnlab/cuda.hpp>

constexpr int kBM = 64, kBN = 64, kBK = 16;  // the block's tile of C, and the step along k
constexpr int kTM = 4, kTN = 4;              // a thread's micro-tile
constexpr int kThreadsX = kBN / kTN, kThreadsY = kBM / kTM;  // 16 x 16 threads

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
// Thread (tx, ty) owns rows ty + 16·i and columns tx + 16·j of the block's
// tile (i, j = 0..3): a 4 x 4 micro-tile spread 16 apart, so the 16 threads
// of a half-warp read 16 neighbouring floats of a row of ws (no bank
// conflict) and store 16 neighbouring floats of out (coalesced).
__global__ void qkv_register_tiled(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kBM][kBK];  // rows t0.., columns k0..
    __shared__ float ws[kBK][kBN];  // rows k0.., columns n0..
    const int N = 3 * D;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kThreadsX + tx;
    const int t0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

    float acc[kTM][kTN] = {};
    for (int k0 = 0; k0 < D; k0 += kBK) {
        // 256 threads fill 64 x 16 and 16 x 64 floats: 4 of each; a 0 outside the matrices.
        for (int e = tid; e < kBM * kBK; e += kThreadsX * kThreadsY) {
            const int r = e / kBK, k = e % kBK;
            xs[r][k] = (t0 + r < T && k0 + k < D) ? x[(t0 + r) * D + k0 + k] : 0.0f;
        }
        for (int e = tid; e < kBK * kBN; e += kThreadsX * kThreadsY) {
            const int k = e / kBN, c = e % kBN;
            ws[k][c] = (k0 + k < D && n0 + c < N) ? w[(k0 + k) * N + n0 + c] : 0.0f;
        }
        __syncthreads();  // both tiles complete
        for (int k = 0; k < kBK; ++k)
            for (int i = 0; i < kTM; ++i)
                for (int j = 0; j < kTN; ++j) acc[i][j] += xs[ty + i * kThreadsY][k] * ws[k][tx + j * kThreadsX];
        __syncthreads();  // nobody reads the tiles any more
    }
    for (int i = 0; i < kTM; ++i) {
        const int t = t0 + ty + i * kThreadsY;
        for (int j = 0; j < kTN; ++j) {
            const int n = n0 + tx + j * kThreadsX;
            if (t < T && n < N) out[((n / D) * T + t) * D + n % D] = acc[i][j];
        }
    }
}

// attnlab calls this once per case: x and w_qkv are already in device memory,
// out has shape (3, T, D) and holds garbage until a kernel writes it.
void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    const dim3 block(kThreadsX, kThreadsY);
    const dim3 grid(ceil_div(3 * D, kBN), ceil_div(T, kBM));  // x: columns of C, y: rows
    qkv_register_tiled<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
