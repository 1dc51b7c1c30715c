#pragma once
// The Eigen reference, seen from the runner: a registry of named operations
// that take named Values and return a Value plus named intermediate stages.
// This header has no Eigen include on purpose: the core and CLI only need this.
//
// An exercise names one op in its metadata ("reference": "causal_mhsa"); the
// exercise's entry-point parameters must match the op's parameters by name and
// kind. The runner knows only this schema, never an exercise by name.
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"

namespace attnlab::reference {

struct Param {
    std::string name;   // e.g. "x", "n_heads"
    ValueKind kind;     // tensor / int / float
    std::string shape;  // documentation only, e.g. "(T, D)"; "" for scalars
};

struct Result {
    Value output;
    // Named intermediates, in pipeline order, e.g. Q, K, V, scores, masked,
    // weights, heads, concat, out. Empty for ops that have none.
    std::vector<NamedTensor> stages;
};

using Inputs = std::map<std::string, Value>;

// A mistake learners really make, written as a variant of an op: the same
// inputs, the op's computation with that one thing done wrong. When a check
// fails, the runner evaluates the exercise's catalogued mistakes on the failing
// case; an output that matches a variant within tolerance names the mistake.
// Computed, never pattern-matched on source text. The words for the learner
// live with the course (exercises/mistakes/<id>.json), keyed by `id`.
struct Mistake {
    std::string id;     // stable, e.g. "scale_sqrt_d"
    std::string stage;  // the first stage where the variant departs, e.g. "scores"
    std::function<Result(const Inputs&)> run;
};

// How many elements of input `input` the op must read at least.
struct PartialRead {
    std::string input;     // the param's name: "scores"
    std::string formula;   // in words, for `attnlab dev ops`: "B·H·T·(T+1)/2 (the visible scores)"
    std::function<double(const Inputs&)> elements;
};

struct Op {
    std::string name;
    std::string summary;           // one line, English, for authors (`attnlab dev ops`)
    std::vector<Param> params;
    ValueKind returns = ValueKind::Tensor;
    std::string returns_shape;     // documentation only, e.g. "(H, T, hd)"
    std::function<Result(const Inputs&)> run;
    std::vector<Mistake> mistakes;  // catalogued variants (may be empty)
    // The floating-point operations the op needs on these inputs (a multiply
    // and an add count 2; exp, max and a division 1 each), for the performance
    // report's arithmetic intensity: the emulator counts accesses, never
    // arithmetic. Empty: not known (the report says so). Throws
    // ReferenceError for inputs that do not fit, like `run`.
    std::function<double(const Inputs&)> flops;
    std::string flops_formula;     // the same in words, for `attnlab dev ops` ("2·B·H·T·T·hd")
    // Inputs the op needs only part of, for the least DRAM traffic a kernel
    // can move (the performance report's "least traffic"): a causal mask
    // never needs the future scores. Every other tensor input is needed whole.
    std::vector<PartialRead> partial_reads;
};


// Thrown when inputs do not fit the op (wrong rank, D not divisible by H, a
// missing input...). The message names the input and the expected shape.
class ReferenceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

const std::vector<Op>& all_ops();
const Op* find_op(const std::string& name);  // nullptr when unknown
// op.flops(inputs), or nullopt when the op has no count or the inputs do not fit.
std::optional<double> op_flops(const Op& op, const Inputs& inputs);
// The elements of input `input` the op must read at least (every element
// unless the op declares a PartialRead for it); nullopt when the inputs do
// not fit the declared count.
std::optional<double> needed_elements(const Op& op, const std::string& input, const Inputs& inputs);
// The mistake `id` of op `op_name`; nullptr when either is unknown.
const Mistake* find_mistake(const std::string& op_name, const std::string& id);

}  // namespace attnlab::reference
