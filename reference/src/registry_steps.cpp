// Ops for the step-by-step exercises: projections, scaled scores, softmax,
// weighted sum, and the mistakes learners make in them.
#include "registry_support.hpp"

namespace attnlab::reference::support {

void add_step_ops(std::vector<Op>& ops) {
    (void)ops;
}

}  // namespace attnlab::reference::support
