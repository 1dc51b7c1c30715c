// The registry: every op, found by name. Each named op checks and converts its
// Values (row-major float tensors) into Eigen matrices, calls the functions in
// ops.hpp and converts the results back; no attention math lives in the tables,
// only layout. The ops are tables in the registry_*.cpp files beside this one
// (registry_core.cpp first), their mistakes in mistakes_*.cpp; the conversions
// and the table helpers are in registry_support.hpp.
#include "attnlab/reference/registry.hpp"

#include "registry_support.hpp"

namespace attnlab::reference {

namespace {

std::vector<Op> build_ops() {
    std::vector<Op> ops;
    support::add_core_ops(ops);
    support::add_step_ops(ops);
    support::add_batched_ops(ops);
    support::add_core_mistakes(ops);
    support::add_softmax_mistakes(ops);
    support::add_online_softmax_op(ops);
    support::add_cuda_ops(ops);
    support::add_flop_counts(ops);
    return ops;
}

}  // namespace

const std::vector<Op>& all_ops() {
    static const std::vector<Op> ops = build_ops();
    return ops;
}

const Op* find_op(const std::string& name) {
    for (const Op& op : all_ops())
        if (op.name == name) return &op;
    return nullptr;
}

std::optional<double> op_flops(const Op& op, const Inputs& inputs) {
    if (!op.flops) return std::nullopt;
    try {
        return op.flops(inputs);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> needed_elements(const Op& op, const std::string& input, const Inputs& inputs) {
    for (const PartialRead& r : op.partial_reads) {
        if (r.input != input) continue;
        try {
            return r.elements(inputs);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    const auto it = inputs.find(input);
    if (it == inputs.end() || it->second.kind != ValueKind::Tensor) return std::nullopt;
    return static_cast<double>(it->second.tensor.data.size());
}

const Mistake* find_mistake(const std::string& op_name, const std::string& id) {
    const Op* op = find_op(op_name);
    if (!op) return nullptr;
    for (const Mistake& m : op->mistakes)
        if (m.id == id) return &m;
    return nullptr;
}

}  // namespace attnlab::reference
