#include "attnlab/core/check/expected.hpp"

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/base/util.hpp"
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

std::string case_key(const Exercise& exercise, const Case& c) {
    return exercise.id + "/" + exercise.reference + "/" + hex64(hash64(protocol::encode_cases({c.args})));
}

size_t expected_bytes(const ExpectedCase& e) {
    size_t bytes = e.output.tensor.data.size() * sizeof(float);
    for (const NamedTensor& s : e.stages) bytes += s.tensor.data.size() * sizeof(float);
    return bytes;
}

std::shared_ptr<const ExpectedCase> ExpectedCache::get(const std::string& key, const std::function<ExpectedCase()>& compute) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = slots_.begin(); it != slots_.end(); ++it)
            if (it->key == key) {
                slots_.splice(slots_.begin(), slots_, it);
                return it->value;
            }
    }
    // Outside the lock: another exercise's check need not wait for this one.
    // Two checks of one case may both compute it; the first kept wins.
    auto value = std::make_shared<const ExpectedCase>(compute());
    const size_t bytes = expected_bytes(*value);
    if (bytes > budget_bytes_) return value;
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Slot& s : slots_)
        if (s.key == key) return s.value;
    slots_.push_front({key, value, bytes});
    bytes_ += bytes;
    while (bytes_ > budget_bytes_) {
        bytes_ -= slots_.back().bytes;
        slots_.pop_back();
    }
    return value;
}

size_t ExpectedCache::bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
}

size_t ExpectedCache::entries() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return slots_.size();
}

}  // namespace attnlab
