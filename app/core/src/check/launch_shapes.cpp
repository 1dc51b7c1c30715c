#include "attnlab/core/check/launch_shapes.hpp"

#include <algorithm>

namespace attnlab {

// Per kernel, the launch that asks most of an SM (the largest block, then the
// most dynamic shared memory) over every case: the occupancy a learner should
// plan for, not the smallest case's.
namespace {

void keep_largest(std::map<std::string, LaunchShape>& shapes, const std::string& kernel, const LaunchShape& shape) {
    auto [it, fresh] = shapes.emplace(kernel, shape);
    if (!fresh && std::make_pair(shape.threads_per_block, shape.dynamic_shared_bytes) >
                      std::make_pair(it->second.threads_per_block, it->second.dynamic_shared_bytes))
        it->second = shape;
}

// A kernel's name without namespaces and template arguments: how a launch
// (`tile<TILE>`, `ns::k`) and NVRTC (`tile<16>`, `ns::k`) both start.
std::string base_kernel_name(const std::string& name) {
    std::string base = name.substr(0, name.find('<'));
    if (const size_t colon = base.rfind("::"); colon != std::string::npos) base = base.substr(colon + 2);
    base.erase(std::remove(base.begin(), base.end(), ' '), base.end());
    return base;
}

}  // namespace

std::map<std::string, LaunchShape> learner_launch_shapes(const CheckResult& r) {
    std::map<std::string, LaunchShape> shapes;  // by the launch's name, as the learner wrote it
    for (const CaseOutcome& c : r.cases)
        for (const emu::LaunchReport& L : c.kernels.launches)
            keep_largest(shapes, L.kernel, {static_cast<int>(L.block.count()), static_cast<int64_t>(L.dynamic_shared_bytes), c.index});
    if (!r.resources) return shapes;
    // NVRTC's name of a kernel launched under another spelling (a named
    // template argument, a namespace): the launches of the same kernel.
    std::map<std::string, LaunchShape> by_nvrtc_name;
    for (const KernelResources& k : r.resources->kernels) {
        if (shapes.count(k.kernel)) continue;
        for (const auto& [launch, shape] : shapes)
            if (base_kernel_name(launch) == base_kernel_name(k.kernel)) keep_largest(by_nvrtc_name, k.kernel, shape);
    }
    shapes.insert(by_nvrtc_name.begin(), by_nvrtc_name.end());
    return shapes;
}

}  // namespace attnlab
