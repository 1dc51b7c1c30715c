// The resource report as JSON (attnlab check --json), with each launched
// kernel's occupancy.
#include "attnlab/core/check/gpu_resources.hpp"

#include <algorithm>

namespace attnlab {

const char* resource_status_code(ResourceReport::Status status) {
    switch (status) {
        case ResourceReport::Status::Ok: return "ok";
        case ResourceReport::Status::CompileError: return "compile_error";
        case ResourceReport::Status::Unavailable: return "unavailable";
    }
    return "unavailable";
}

namespace {

nlohmann::json kernel_json(const std::string& arch, const KernelResources& k, const std::map<std::string, LaunchShape>& launches) {
    nlohmann::json j = {{"kernel", k.kernel},
                        {"mangled", k.mangled},
                        {"registers", k.registers},
                        {"shared_bytes", k.shared_bytes},
                        {"spill_bytes", k.spill_bytes()},
                        {"spill_store_bytes", k.spill_store_bytes},
                        {"spill_load_bytes", k.spill_load_bytes},
                        {"stack_frame_bytes", k.stack_frame_bytes},
                        {"barriers", k.barriers}};
    const auto launch = launches.find(k.kernel);
    if (launch == launches.end()) return j;
    if (const std::optional<Occupancy> o = kernel_occupancy(arch, k, launch->second))
        j["occupancy"] = {{"active_blocks_per_sm", o->active_blocks_per_sm}, {"active_warps_per_sm", o->active_warps_per_sm},
                          {"max_warps_per_sm", o->max_warps_per_sm},         {"fraction", o->fraction},
                          {"limited_by", occupancy_limit_code(o->limited_by)},                     {"threads_per_block", launch->second.threads_per_block},
                          {"dynamic_shared_bytes", launch->second.dynamic_shared_bytes}};
    return j;
}

}  // namespace

nlohmann::json resources_to_json(const ResourceReport& r, const std::map<std::string, LaunchShape>& launches) {
    nlohmann::json kernels = nlohmann::json::array();
    int max_registers = 0;
    int64_t max_shared = 0, max_spill = 0;
    for (const KernelResources& k : r.kernels) {
        kernels.push_back(kernel_json(r.arch, k, launches));
        max_registers = std::max(max_registers, k.registers);
        max_shared = std::max(max_shared, k.shared_bytes);
        max_spill = std::max(max_spill, k.spill_bytes());
    }
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics)
        diagnostics.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
    return {{"status", resource_status_code(r.status)},
            {"arch", r.arch},
            {"nvrtc_version", r.nvrtc_version},
            {"registers", max_registers},
            {"shared_bytes", max_shared},
            {"spill_bytes", max_spill},
            {"kernels", kernels},
            {"diagnostics", diagnostics},
            {"log", r.log},
            {"ms", r.ms}};
}

}  // namespace attnlab
