// Mistakes catalogued for the core ops: split_heads, causal_mask,
// merge_project, causal_mhsa.
#include "registry_support.hpp"

namespace attnlab::reference::support {

void add_core_mistakes(std::vector<Op>& ops) {
    (void)ops;
}

}  // namespace attnlab::reference::support
