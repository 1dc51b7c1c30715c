#pragma once
// The reference side of a case: what the Eigen reference op computes from the
// case's inputs. The runner, the reference kernel, the mistake catalogue and
// the performance report all start from here (none of them from the runner).
#include <map>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// A case's arguments by parameter name, as the reference takes them.
std::map<std::string, Value> case_inputs(const Exercise& exercise, const Case& c);

// Computes the reference output and stages of one case (throws
// reference::ReferenceError when the case does not fit the op).
void compute_expected(const Exercise& exercise, const Case& c, Value& output, std::vector<NamedTensor>& stages);

}  // namespace attnlab
