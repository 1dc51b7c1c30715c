#pragma once
// Where a wrong answer that matches no catalogued mistake first departs from
// the reference, worked out from the learner's output alone (no probe()
// calls needed): the invertible tail of the layer is undone (· W_O, then the
// merge), and what is left is compared with the reference's own stages.
// Pure functions of values, table-tested in tests/test_mistakes_locate.cpp.
#include <string>

#include "attnlab/reference/registry.hpp"

namespace attnlab::reference {

struct StageLocation {
    // The first stage shown to differ, undoing a right · W_O: "concat" (the
    // heads hold the right numbers in the wrong places), "weights" (each
    // head's first token is right, so V and the split are: the attention
    // weights differ), "heads" (already a head's first token differs, or · W_O
    // itself is wrong), or "" when the op has no such stages or the output
    // cannot be undone (non-finite, or a singular W_O).
    std::string stage;
    int sequence = 0;  // batched ops: the first sequence that differs
};

// `op`'s output for `inputs` is `learner`; `rel_tol` is how closely an undone
// stage must equal the reference's (relative to that stage's largest value).
StageLocation locate_first_difference(const std::string& op, const Inputs& inputs, const Value& learner,
                                      double rel_tol = 1e-3);

}  // namespace attnlab::reference
