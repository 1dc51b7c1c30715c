#include "attnlab/core/check/expected.hpp"

#include "attnlab/reference/registry.hpp"

namespace attnlab {

std::map<std::string, Value> case_inputs(const Exercise& exercise, const Case& c) {
    std::map<std::string, Value> inputs;
    for (size_t i = 0; i < exercise.params.size() && i < c.args.size(); ++i) inputs[exercise.params[i].name] = c.args[i];
    return inputs;
}

void compute_expected(const Exercise& exercise, const Case& c, Value& output, std::vector<NamedTensor>& stages) {
    const reference::Op* op = reference::find_op(exercise.reference);
    if (!op) throw reference::ReferenceError("no reference op named " + exercise.reference);
    reference::Result r = op->run(case_inputs(exercise, c));
    output = std::move(r.output);
    stages = std::move(r.stages);
}

}  // namespace attnlab
