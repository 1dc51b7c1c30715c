// Ops for batched layouts, model figures and head comparisons, and the
// mistakes learners make in them.
#include "registry_support.hpp"

namespace attnlab::reference::support {

void add_batched_ops(std::vector<Op>& ops) {
    (void)ops;
}

}  // namespace attnlab::reference::support
