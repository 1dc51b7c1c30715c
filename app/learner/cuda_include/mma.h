#pragma once
// CUDA's warp matrix functions (<mma.h>, namespace nvcuda::wmma) on attnlab's
// emulator, for the 16x16x16 shape: __half inputs (GCC's _Float16) and a
// float or __half accumulator. Under nvcc the toolkit's own <mma.h> takes
// this one's place.
//
// What a fragment holds is unspecified in CUDA; here lane l of the warp keeps
// elements l*8 ... l*8+7 of the 16x16 tile in row-major order (x[0..7]), so
// element-wise code over frag.x[i] works as it does on a GPU. Loads and
// stores go through the learner's pointers, so the emulator checks and
// counts each element like any other access. mma_sync gathers the warp's
// A and B tiles through a per-warp staging area between two warp
// synchronisations and gives each lane its own 8 outputs.
//
// The rules a GPU imposes are checked, each with its own fault:
//   - every wmma call is made by all 32 lanes of the warp, converged on the
//     same call (a partial warp, lanes that returned early or lanes in
//     another branch: synccheck, warp_divergence);
//   - the pointer of a load or store is 256-bit (32-byte) aligned, and ldm
//     is a multiple of 8 for __half elements and of 4 for float ones (16
//     bytes) (memcheck, misaligned_address).
#include <cstdint>

#include "attnlab/cuda_device.hpp"
#include "cuda_fp16.h"

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace detail {

constexpr int kTile = 16;
constexpr int kPerLane = kTile * kTile / 32;  // 8 elements of a 16x16 tile per lane

template <class T> constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else return "__half";
}

inline unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

[[noreturn]] inline void fault(attnlab::emu::FaultKind kind, const char* fn, const char* detail, int64_t index, const char* type,
                               int line) {
    attnlab::emu::raw::library_fault(kind, fn, detail, index, type, line);
}

// All 32 lanes of the warp, at the same call: a GPU requires it of every
// wmma function (the warp executes it as one instruction).
ATTNLAB_INLINE void require_whole_warp(const char* fn, int line) {
    const unsigned present = __ballot_sync(0xffffffffu, 1, line);
    if (present != 0xffffffffu)
        fault(attnlab::emu::FaultKind::WarpDivergence, fn, "wmma_partial_warp", int64_t(present), "", line);
    const int first = __shfl_sync(0xffffffffu, line, 0, 32, line);
    if (!__all_sync(0xffffffffu, first == line, line))
        fault(attnlab::emu::FaultKind::WarpDivergence, fn, "wmma_diverged", first, "", line);
}

template <class T> ATTNLAB_INLINE void require_aligned(const char* fn, const void* p, unsigned ldm, int line) {
    const uintptr_t off = reinterpret_cast<uintptr_t>(p) % 32;
    if (off != 0) fault(attnlab::emu::FaultKind::MisalignedAddress, fn, "32", int64_t(off), type_name<T>(), line);
    const unsigned multiple = unsigned(16 / sizeof(T));
    if (ldm % multiple != 0)
        fault(attnlab::emu::FaultKind::MisalignedAddress, fn, "ldm", int64_t(ldm), type_name<T>(), line);
}

// The warp's staging area for mma_sync: its A and B tiles, as floats, per
// warp of the block. Blocks run one at a time on an OS thread, so one area
// per OS thread serves every block it runs. Not device memory: its accesses
// are the emulator's own, not the learner's, and are not instrumented.
struct Stage {
    float a[32][kTile * kTile];
    float b[32][kTile * kTile];
};
__attribute__((no_sanitize_thread, noinline)) inline Stage& stage() {
    static thread_local Stage* s = new Stage;
    return *s;
}
__attribute__((no_sanitize_thread, noinline)) inline void stage_put(unsigned warp, unsigned lane, const float* a, const float* b) {
    Stage& s = stage();
    for (int e = 0; e < kPerLane; ++e) {
        s.a[warp][lane * kPerLane + e] = a[e];
        s.b[warp][lane * kPerLane + e] = b[e];
    }
}
// d[e] = c[e] + sum_k A[m][k]·B[k][n] for this lane's elements (m, n).
__attribute__((no_sanitize_thread, noinline)) inline void stage_multiply(unsigned warp, unsigned lane, float* d, const float* c) {
    const Stage& s = stage();
    for (int e = 0; e < kPerLane; ++e) {
        const int i = int(lane) * kPerLane + e, m = i / kTile, n = i % kTile;
        float acc = c[e];
        for (int k = 0; k < kTile; ++k) acc += s.a[warp][m * kTile + k] * s.b[warp][k * kTile + n];
        d[e] = acc;
    }
}

}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void> class fragment {
    static_assert(M == 16 && N == 16 && K == 16,
                  "attnlab's emulator implements the 16x16x16 wmma shape (fragment<..., 16, 16, 16, ...>)");
    static_assert(!std::is_same_v<Use, accumulator> || std::is_same_v<T, float> || std::is_same_v<T, __half>,
                  "an accumulator fragment holds float or __half");
    static_assert(std::is_same_v<Use, accumulator> || std::is_same_v<T, __half>,
                  "attnlab's emulator implements __half matrix_a and matrix_b fragments");
    static_assert(std::is_same_v<Use, accumulator> || std::is_same_v<Layout, row_major> || std::is_same_v<Layout, col_major>,
                  "a matrix_a or matrix_b fragment names its layout: wmma::row_major or wmma::col_major");

public:
    using element_type = T;
    static constexpr int num_elements = detail::kPerLane;
    T x[detail::kPerLane];
};

// Every element of this lane's part of the fragment set to v (the whole
// tile, since every lane calls it).
template <class Use, int M, int N, int K, class T, class L, class V>
ATTNLAB_INLINE void fill_fragment(fragment<Use, M, N, K, T, L>& f, const V& v, int line = __builtin_LINE()) {
    detail::require_whole_warp("wmma::fill_fragment", line);
    for (int e = 0; e < detail::kPerLane; ++e) f.x[e] = static_cast<T>(v);
}

// matrix_a / matrix_b: the layout is the fragment's. Element (r, c) of the
// tile is at p[r*ldm + c] (row_major) or p[c*ldm + r] (col_major).
template <class Use, class T, class L>
ATTNLAB_INLINE void load_matrix_sync(fragment<Use, 16, 16, 16, T, L>& f, const T* p, unsigned ldm, int line = __builtin_LINE()) {
    static_assert(!std::is_same_v<Use, accumulator>,
                  "an accumulator fragment is loaded with a layout: load_matrix_sync(c, p, ldm, wmma::mem_row_major)");
    detail::require_whole_warp("wmma::load_matrix_sync", line);
    detail::require_aligned<T>("wmma::load_matrix_sync", p, ldm, line);
    const unsigned lane = detail::linear_thread() % 32;
    for (int e = 0; e < detail::kPerLane; ++e) {
        const int i = int(lane) * detail::kPerLane + e, r = i / 16, c = i % 16;
        f.x[e] = std::is_same_v<L, row_major> ? p[size_t(r) * ldm + c] : p[size_t(c) * ldm + r];
    }
}

// An accumulator, with the memory layout given at the call.
template <class T>
ATTNLAB_INLINE void load_matrix_sync(fragment<accumulator, 16, 16, 16, T, void>& f, const T* p, unsigned ldm, layout_t layout,
                                     int line = __builtin_LINE()) {
    detail::require_whole_warp("wmma::load_matrix_sync", line);
    detail::require_aligned<T>("wmma::load_matrix_sync", p, ldm, line);
    const unsigned lane = detail::linear_thread() % 32;
    for (int e = 0; e < detail::kPerLane; ++e) {
        const int i = int(lane) * detail::kPerLane + e, r = i / 16, c = i % 16;
        f.x[e] = layout == mem_row_major ? p[size_t(r) * ldm + c] : p[size_t(c) * ldm + r];
    }
}

template <class T>
ATTNLAB_INLINE void store_matrix_sync(T* p, const fragment<accumulator, 16, 16, 16, T, void>& f, unsigned ldm, layout_t layout,
                                      int line = __builtin_LINE()) {
    detail::require_whole_warp("wmma::store_matrix_sync", line);
    detail::require_aligned<T>("wmma::store_matrix_sync", p, ldm, line);
    const unsigned lane = detail::linear_thread() % 32;
    for (int e = 0; e < detail::kPerLane; ++e) {
        const int i = int(lane) * detail::kPerLane + e, r = i / 16, c = i % 16;
        if (layout == mem_row_major) p[size_t(r) * ldm + c] = f.x[e];
        else p[size_t(c) * ldm + r] = f.x[e];
    }
}

// d = a·b + c over the warp's 16x16x16 tiles: products of __half values
// exactly, sums in float (then rounded to the accumulator's type).
template <class LA, class LB, class TC, class TD>
ATTNLAB_INLINE void mma_sync(fragment<accumulator, 16, 16, 16, TD, void>& d, const fragment<matrix_a, 16, 16, 16, __half, LA>& a,
                             const fragment<matrix_b, 16, 16, 16, __half, LB>& b,
                             const fragment<accumulator, 16, 16, 16, TC, void>& c, int line = __builtin_LINE()) {
    detail::require_whole_warp("wmma::mma_sync", line);
    const unsigned t = detail::linear_thread(), warp = t / 32, lane = t % 32;
    float av[detail::kPerLane], bv[detail::kPerLane], cv[detail::kPerLane], dv[detail::kPerLane];
    for (int e = 0; e < detail::kPerLane; ++e) {
        av[e] = static_cast<float>(a.x[e]);
        bv[e] = static_cast<float>(b.x[e]);
        cv[e] = static_cast<float>(c.x[e]);
    }
    detail::stage_put(warp, lane, av, bv);
    __syncwarp(0xffffffffu, line);  // every lane's A and B are staged
    detail::stage_multiply(warp, lane, dv, cv);
    __syncwarp(0xffffffffu, line);  // every lane has read them before the next mma_sync stages its own
    for (int e = 0; e < detail::kPerLane; ++e) d.x[e] = static_cast<TD>(dv[e]);
}

}  // namespace wmma
}  // namespace nvcuda
