#pragma once
// A live measurement for the experiments page: the Q/K/V projections done
// per head (3·H small matmuls, X · W_Q^h with W_Q^h of (D, hd)) versus fused
// (one X · W_QKV with W_QKV of (D, 3D)). Same arithmetic, different shapes:
// the fused matmul keeps the CPU's vector units and caches busier.
namespace attnlab::reference {

struct ProjectionTiming {
    double per_head_ms = 0;  // median over repeats, all 3·H matmuls
    double fused_ms = 0;     // median over repeats, the single fused matmul
    int per_head_matmuls = 0;
    int fused_matmuls = 1;
};

// x: (tokens, d_model) in float; d_model % heads must be 0 (else throws ReferenceError).
ProjectionTiming time_projections(int tokens, int d_model, int heads, int repeats);

}  // namespace attnlab::reference
