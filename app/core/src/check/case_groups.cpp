#include "attnlab/core/check/case_groups.hpp"

#include <algorithm>
#include <numeric>

#include "attnlab/core/course/course.hpp"

namespace attnlab {

int64_t case_work(const Case& c, const Value& expected) {
    int64_t n = expected.kind == ValueKind::Tensor ? static_cast<int64_t>(expected.tensor.data.size()) : 1;
    for (const Value& v : c.args) n += v.kind == ValueKind::Tensor ? static_cast<int64_t>(v.tensor.data.size()) : 1;
    return n;
}

std::vector<std::vector<uint32_t>> case_groups(const std::vector<int64_t>& work, unsigned programs) {
    const size_t groups = std::max<size_t>(1, std::min<size_t>(programs, work.size()));
    std::vector<std::vector<uint32_t>> out(groups);
    if (groups == 1) {
        for (uint32_t k = 0; k < work.size(); ++k) out[0].push_back(k);
        return out;
    }
    std::vector<uint32_t> order(work.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return work[a] > work[b]; });
    std::vector<int64_t> load(groups, 0);
    for (const uint32_t k : order) {
        // The emptiest group first, so that no group stays empty; then the lightest.
        size_t g = 0;
        for (size_t i = 1; i < groups; ++i)
            if ((out[i].empty() && !out[g].empty()) || (out[i].empty() == out[g].empty() && load[i] < load[g])) g = i;
        out[g].push_back(k);
        load[g] += work[k];
    }
    for (auto& group : out) std::sort(group.begin(), group.end());
    return out;
}

}  // namespace attnlab
