#pragma once
// Automatic stages: the learner's recorded tensors (CaseOutcome::recorded,
// what their Tensor operations made, with lines) placed among the reference's
// named stages, by shape and value — so the views can say "your tensor from
// line 8 is the scores" without a probe(). Placed once per check by the
// runner (CaseOutcome::placed); the views and the JSON only read it.
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// The reference's stages found among `recorded`, in pipeline order. A stage
// is the recorded tensor of its shape whose values equal it within `tol`; when
// none does and `mistaken` holds the named mistake's own stages (the same
// inputs computed the mistaken way), the recorded tensor equal to the
// mistake's version of it (placed, not matching). Among several, the first
// one after the previous stage's tensor is taken, so that equal stages (Q, K
// and V of identity weights) go to the tensors in the order they were made.
std::vector<PlacedStage> place_stages(const std::vector<RecordedTensor>& recorded, const std::vector<NamedTensor>& reference,
                                      const std::vector<NamedTensor>* mistaken, const Tolerance& tol);

// Every case of `result` that ran: CaseOutcome::placed, with the named
// mistake's stages (result.mistake) for the cases whose output it explains.
void place_recorded_stages(const Exercise& exercise, CheckResult& result);

}  // namespace attnlab
