// The lane's part of CUDA's warp matrix functions on the emulator (declared
// in app/learner/cuda_include/mma.h, whose templates only pick the element
// type and forward here). Compiled once with attnlab, not in every learner
// file: the loops over a lane's 8 elements, instrumented in the learner's
// file, cost each check a quarter of its compile.
//
// A lane l keeps elements l*8 ... l*8+7 of the 16x16 tile in row-major order.
// Its loads and stores are the learner's accesses: raw::library_access checks
// and counts them at sites of their own (the learner's call), on the
// learner's line, as the instructions a GPU would run for it: 16-byte pieces
// of the tile's rows or columns (tile_accesses).
#include <cstring>
#include <type_traits>
#include <vector>

#include "attnlab/bfloat16_bits.hpp"
#include "attnlab/emu/raw_memory.hpp"
#include "attnlab/emu/raw_runtime.hpp"
#include "attnlab/emu_device.hpp"
#include "attnlab/wmma_lane.hpp"

namespace attnlab::emu::raw::wmma {
namespace {

constexpr int kTile = 16;
constexpr int kPerLane = kTile * kTile / 32;  // 8 elements of a 16x16 tile per lane

size_t bytes_of(Element t) { return t == Element::Float ? 4 : 2; }
const char* name_of(Element t) { return t == Element::Float ? "float" : t == Element::BFloat16 ? "__nv_bfloat16" : "__half"; }

// Every __half's float, made once by the same conversion: x86-64 without
// F16C converts in software (libgcc's __extendhfsf2), a call per element that
// cost a tensor-core FlashAttention check a second.
float half_to_float(unsigned short bits) {
    static const std::vector<float> table = [] {
        std::vector<float> t(size_t{1} << 16);
        for (size_t i = 0; i < t.size(); ++i) {
            const auto b = static_cast<unsigned short>(i);
            _Float16 h;
            std::memcpy(&h, &b, sizeof h);
            t[i] = static_cast<float>(h);
        }
        return t;
    }();
    return table[bits];
}

float to_float(const void* x, Element t, int e) {
    if (t == Element::Float) return static_cast<const float*>(x)[e];
    if (t == Element::BFloat16) return bf16::to_float(static_cast<const unsigned short*>(x)[e]);
    return half_to_float(static_cast<const unsigned short*>(x)[e]);
}
// Rounded as the element type rounds a float: _Float16's conversion, or
// bf16's round to nearest even of the float's top 16 bits.
void from_float(void* x, Element t, int e, float v) {
    if (t == Element::Float) static_cast<float*>(x)[e] = v;
    else if (t == Element::BFloat16) static_cast<unsigned short*>(x)[e] = bf16::from_float(v);
    else static_cast<_Float16*>(x)[e] = static_cast<_Float16>(v);
}

unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }

// All 32 lanes of the warp, at the same call: a GPU requires it of every
// wmma function (the warp executes it as one instruction).
void require_whole_warp(const char* fn, int line) {
    if (!block_checked()) return;
    const unsigned present = __ballot_sync(0xffffffffu, 1, line);
    if (present != 0xffffffffu) library_fault(FaultKind::WarpDivergence, fn, "wmma_partial_warp", int64_t(present), "", line);
    const int first = __shfl_sync(0xffffffffu, line, 0, 32, line);
    if (!__all_sync(0xffffffffu, first == line, line)) library_fault(FaultKind::WarpDivergence, fn, "wmma_diverged", first, "", line);
}

// A 256-bit aligned pointer, and rows that start 16-byte aligned.
void require_aligned(const char* fn, const void* p, unsigned ldm, Element t, int line) {
    if (!block_checked()) return;
    const uintptr_t off = reinterpret_cast<uintptr_t>(p) % 32;
    if (off != 0) library_fault(FaultKind::MisalignedAddress, fn, "32", int64_t(off), name_of(t), line);
    if (ldm % unsigned(16 / bytes_of(t)) != 0) library_fault(FaultKind::MisalignedAddress, fn, "ldm", int64_t(ldm), name_of(t), line);
}

// Byte offset of the lane's element e in memory.
size_t offset_of(unsigned lane, int e, unsigned ldm, bool col_major, Element t) {
    const int i = int(lane) * kPerLane + e, r = i / kTile, c = i % kTile;
    return (col_major ? size_t(c) * ldm + r : size_t(r) * ldm + c) * bytes_of(t);
}

// The warp's staging area for mma: its A and B tiles, as floats, per warp of
// the block. Blocks run one at a time on an OS thread, so one area per OS
// thread serves every block it runs. Not device memory: the emulator's own.
struct Stage {
    float a[32][kTile * kTile];
    float b[32][kTile * kTile];
};
Stage& stage() {
    static thread_local Stage* s = new Stage;
    return *s;
}

// The warp's accesses of one fragment load or store, as a GPU's instructions
// move it: the tile is 16 runs of 16 elements (rows when row-major, columns
// when column-major), each run contiguous; every lane moves 16-byte pieces of
// them. A 16x16 __half tile with ldm a multiple of 16 is one request of 16
// full sectors; a float tile two. Which bytes each lane's elements come from
// is the fragment's own business (load/store below copy them element by
// element); the accesses cover exactly the same bytes.
void tile_accesses(const void* p, Element type, unsigned ldm, bool write, const void* call, int line) {
    const unsigned lane = linear_thread() % 32;
    const size_t n = bytes_of(type), per_piece = 16 / n, pieces_per_run = kTile / per_piece;
    const unsigned parts = unsigned(kTile * pieces_per_run / 32);  // 1 for __half, 2 for float
    for (unsigned part = 0; part < parts; ++part) {
        const size_t piece = part * 32 + lane, run = piece / pieces_per_run, first = piece % pieces_per_run * per_piece;
        library_access(static_cast<const char*>(p) + (run * ldm + first) * n, 16, write, call, part, line);
    }
}

}  // namespace

void fill(void* x, Element type, float value, int line) {
    require_whole_warp("wmma::fill_fragment", line);
    for (int e = 0; e < kPerLane; ++e) from_float(x, type, e, value);
}

void load(void* x, Element type, const void* p, unsigned ldm, bool col_major, int line) {
    const void* call = __builtin_return_address(0);  // in the learner's function
    require_whole_warp("wmma::load_matrix_sync", line);
    require_aligned("wmma::load_matrix_sync", p, ldm, type, line);
    tile_accesses(p, type, ldm, false, call, line);
    const unsigned lane = linear_thread() % 32;
    const size_t n = bytes_of(type);
    for (int e = 0; e < kPerLane; ++e)
        std::memcpy(static_cast<char*>(x) + e * n, static_cast<const char*>(p) + offset_of(lane, e, ldm, col_major, type), n);
}

void store(void* p, const void* x, Element type, unsigned ldm, bool col_major, int line) {
    const void* call = __builtin_return_address(0);
    require_whole_warp("wmma::store_matrix_sync", line);
    require_aligned("wmma::store_matrix_sync", p, ldm, type, line);
    tile_accesses(p, type, ldm, true, call, line);
    const unsigned lane = linear_thread() % 32;
    const size_t n = bytes_of(type);
    for (int e = 0; e < kPerLane; ++e)
        std::memcpy(static_cast<char*>(p) + offset_of(lane, e, ldm, col_major, type), static_cast<const char*>(x) + e * n, n);
}

// d[e] = c[e] + sum_k A[m][k]·B[k][n] for this lane's elements (m, n):
// products of __half or bf16 values exactly (11 or 8 significant bits each:
// a float holds the product), sums in float.
void mma(void* d, Element d_type, const void* a, const void* b, Element ab_type, const void* c, Element c_type, int line) {
    require_whole_warp("wmma::mma_sync", line);
    const unsigned t = linear_thread(), warp = t / 32, lane = t % 32;
    Stage& s = stage();
    for (int e = 0; e < kPerLane; ++e) {
        s.a[warp][lane * kPerLane + e] = to_float(a, ab_type, e);
        s.b[warp][lane * kPerLane + e] = to_float(b, ab_type, e);
    }
    float cv[kPerLane];
    for (int e = 0; e < kPerLane; ++e) cv[e] = to_float(c, c_type, e);
    __syncwarp(0xffffffffu, line);  // every lane's A and B are staged
    // The lane's 8 elements share one row m of D and are 8 neighbours n0..n0+7
    // in it. Each is still c + A[m][0]·B[0][n] + A[m][1]·B[1][n] + ... in that
    // order (the same float sums as one element at a time), but the 8 sums
    // advance together over k: 8 independent chains instead of one 128 long.
    const int m = int(lane) * kPerLane / kTile, n0 = int(lane) * kPerLane % kTile;
    float dv[kPerLane];
    for (int e = 0; e < kPerLane; ++e) dv[e] = cv[e];
    for (int k = 0; k < kTile; ++k) {
        const float a_mk = s.a[warp][m * kTile + k];
        const float* b_k = &s.b[warp][k * kTile + n0];
        for (int e = 0; e < kPerLane; ++e) dv[e] += a_mk * b_k[e];
    }
    __syncwarp(0xffffffffu, line);  // every lane has read them before the next mma stages its own
    if (lane == 0) count_tensor_flops(2 * kTile * kTile * kTile);
    for (int e = 0; e < kPerLane; ++e) from_float(d, d_type, e, dv[e]);
}

}  // namespace attnlab::emu::raw::wmma
