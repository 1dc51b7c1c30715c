#pragma once
// The reference side of a case: what the Eigen reference op computes from the
// case's inputs. The runner, the reference kernel, the mistake catalogue and
// the performance report all start from here (none of them from the runner).
#include <cstddef>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
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

// Names one case of one exercise by what its reference side depends on: the
// exercise, its reference op and the case's encoded arguments.
std::string case_key(const Exercise& exercise, const Case& c);

// A case's reference output and stages.
struct ExpectedCase {
    Value output;
    std::vector<NamedTensor> stages;
};

// Reference sides computed once and kept, least recently used first out, while
// they hold at most `budget_bytes` of tensor data: cases never change, and at
// B = 1, H = 12, T = 1024 the reference costs a second per check and its
// 12 x 1024 x 1024 score stages 100 MB. One entry larger than the budget is
// computed and returned but not kept. Safe to share between threads.
class ExpectedCache {
public:
    explicit ExpectedCache(size_t budget_bytes) : budget_bytes_(budget_bytes) {}
    // The entry under `key`, from `compute` the first time (an exception from
    // it propagates and nothing is kept).
    std::shared_ptr<const ExpectedCase> get(const std::string& key, const std::function<ExpectedCase()>& compute);
    size_t bytes() const;
    size_t entries() const;

private:
    struct Slot {
        std::string key;
        std::shared_ptr<const ExpectedCase> value;
        size_t bytes = 0;
    };
    size_t budget_bytes_;
    mutable std::mutex mutex_;
    std::list<Slot> slots_;  // most recently used first
    size_t bytes_ = 0;
};

// Tensor bytes an ExpectedCase holds (what the cache's budget counts).
size_t expected_bytes(const ExpectedCase& e);

}  // namespace attnlab
