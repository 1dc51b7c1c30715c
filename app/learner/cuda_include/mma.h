#pragma once
// CUDA's warp matrix functions (<mma.h>, namespace nvcuda::wmma) on attnlab's
// emulator, for the 16x16x16 shape: __half inputs (GCC's _Float16) with a
// float or __half accumulator, and __nv_bfloat16 inputs with a float
// accumulator (sm_80's m16n16k16 bf16 -> f32). Under nvcc the toolkit's own
// <mma.h> takes this one's place.
//
// What a fragment holds is unspecified in CUDA; here lane l of the warp keeps
// elements l*8 ... l*8+7 of the 16x16 tile in row-major order (x[0..7]), so
// element-wise code over frag.x[i] works as it does on a GPU. The work of
// each function is done by attnlab's runtime (app/learner/src/wmma.cpp),
// compiled once, not in every learner file: its loads and stores are checked
// and counted as the learner's own accesses on the learner's line, one warp
// request per element of a lane, and mma_sync gathers the warp's A and B
// tiles through a per-warp staging area between two warp synchronisations.
//
// The rules a GPU imposes are checked, each with its own fault:
//   - every wmma call is made by all 32 lanes of the warp, converged on the
//     same call (a partial warp, lanes that returned early or lanes in
//     another branch: synccheck, warp_divergence);
//   - the pointer of a load or store is 256-bit (32-byte) aligned, and ldm
//     is a multiple of 8 for __half and __nv_bfloat16 elements and of 4 for
//     float ones (16 bytes) (memcheck, misaligned_address).
// A float given to fill_fragment of a bf16 fragment is rounded as
// __float2bfloat16 rounds it (to nearest, ties to even: bfloat16_bits.hpp).
#include <cstdint>

#include "attnlab/cuda_device.hpp"
#include "attnlab/wmma_lane.hpp"
#include "cuda_bf16.h"
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
constexpr int kPerLane = 16 * 16 / 32;  // 8 elements of a 16x16 tile per lane
template <class T> constexpr attnlab::emu::raw::wmma::Element element() {
    using attnlab::emu::raw::wmma::Element;
    return std::is_same_v<T, float> ? Element::Float : std::is_same_v<T, __nv_bfloat16> ? Element::BFloat16 : Element::Half;
}
}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void> class fragment {
    static_assert(M == 16 && N == 16 && K == 16,
                  "attnlab's emulator implements the 16x16x16 wmma shape (fragment<..., 16, 16, 16, ...>)");
    static_assert(!std::is_same_v<Use, accumulator> || std::is_same_v<T, float> || std::is_same_v<T, __half>,
                  "an accumulator fragment holds float or __half");
    static_assert(std::is_same_v<Use, accumulator> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>,
                  "attnlab's emulator implements __half and __nv_bfloat16 matrix_a and matrix_b fragments");
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
    attnlab::emu::raw::wmma::fill(f.x, detail::element<T>(), static_cast<float>(v), line);
}

// matrix_a / matrix_b: the layout is the fragment's. Element (r, c) of the
// tile is at p[r*ldm + c] (row_major) or p[c*ldm + r] (col_major).
template <class Use, class T, class L>
ATTNLAB_INLINE void load_matrix_sync(fragment<Use, 16, 16, 16, T, L>& f, const T* p, unsigned ldm, int line = __builtin_LINE()) {
    static_assert(!std::is_same_v<Use, accumulator>,
                  "an accumulator fragment is loaded with a layout: load_matrix_sync(c, p, ldm, wmma::mem_row_major)");
    attnlab::emu::raw::wmma::load(f.x, detail::element<T>(), p, ldm, std::is_same_v<L, col_major>, line);
}

// An accumulator, with the memory layout given at the call.
template <class T>
ATTNLAB_INLINE void load_matrix_sync(fragment<accumulator, 16, 16, 16, T, void>& f, const T* p, unsigned ldm, layout_t layout,
                                     int line = __builtin_LINE()) {
    attnlab::emu::raw::wmma::load(f.x, detail::element<T>(), p, ldm, layout == mem_col_major, line);
}

template <class T>
ATTNLAB_INLINE void store_matrix_sync(T* p, const fragment<accumulator, 16, 16, 16, T, void>& f, unsigned ldm, layout_t layout,
                                      int line = __builtin_LINE()) {
    attnlab::emu::raw::wmma::store(p, f.x, detail::element<T>(), ldm, layout == mem_col_major, line);
}

// d = a·b + c over the warp's 16x16x16 tiles: products of __half (or
// __nv_bfloat16) values exactly, sums in float (then rounded to the
// accumulator's type). A and B hold the same type; bf16 accumulates in float.
template <class TAB, class LA, class LB, class TC, class TD>
ATTNLAB_INLINE void mma_sync(fragment<accumulator, 16, 16, 16, TD, void>& d, const fragment<matrix_a, 16, 16, 16, TAB, LA>& a,
                             const fragment<matrix_b, 16, 16, 16, TAB, LB>& b,
                             const fragment<accumulator, 16, 16, 16, TC, void>& c, int line = __builtin_LINE()) {
    static_assert(!std::is_same_v<TAB, __nv_bfloat16> || (std::is_same_v<TC, float> && std::is_same_v<TD, float>),
                  "__nv_bfloat16 fragments multiply into a float accumulator (m16n16k16 bf16 -> f32)");
    attnlab::emu::raw::wmma::mma(d.x, detail::element<TD>(), a.x, b.x, detail::element<TAB>(), c.x, detail::element<TC>(), line);
}

}  // namespace wmma
}  // namespace nvcuda
