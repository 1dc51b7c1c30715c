// Every launch of attnlab's own kernels on the courses' cases, as one JSON
// document on stdout: for each exercise whose reference op has a kernel, each
// case's launches on the emulator (checks, counters and stages on) with their
// shape, every counter, the whole fault and a hash of each output and stage;
// then the attention layouts comparison at the bench's shape, v1 and v2.
// Keys are sorted and nothing timed or machine-dependent is written, so two
// runs of one build print the same bytes and two builds can be diffed
// (scripts/compare_checks.py --kernels BUILD_A BUILD_B COURSE_DIR...).
//   attnlab-kernel-dump COURSE_DIR...
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/kernels/kernels.hpp"

using namespace attnlab;
using json = nlohmann::json;  // std::map underneath: keys come out sorted

namespace {

json dim3_json(const emu::Dim3& d) { return {d.x, d.y, d.z}; }

const char* space_name(emu::MemorySpace space) {
    switch (space) {
    case emu::MemorySpace::Global: return "global";
    case emu::MemorySpace::Shared: return "shared";
    case emu::MemorySpace::Local: return "local";
    }
    return "unknown";
}

json fault_json(const emu::Fault& f) {
    json groups = json::array();
    for (const emu::ThreadGroup& g : f.groups)
        groups.push_back({{"what", emu::thread_activity_code(g.what)}, {"line", g.line}, {"threads", g.threads}});
    return {{"kind", emu::fault_code(f.kind)},
            {"block", dim3_json(f.block)},
            {"thread", dim3_json(f.thread)},
            {"line", f.line},
            {"space", space_name(f.space)},
            {"is_write", f.is_write},
            {"buffer", f.buffer},
            {"index", f.index},
            {"size", f.size},
            {"element_type", f.element_type},
            {"other_block", dim3_json(f.other_block)},
            {"other_thread", dim3_json(f.other_thread)},
            {"other_is_write", f.other_is_write},
            {"other_line", f.other_line},
            {"groups", groups},
            {"detail", f.detail}};
}

// wall_seconds is left out: it is the machine's, not the kernel's.
json launch_json(const emu::LaunchReport& r) {
    json counters = json::object();
    for_each_counter(r.counters, [&](const char* name, int64_t value) { counters[name] = value; });
    return {{"kernel", r.kernel},
            {"grid", dim3_json(r.grid)},
            {"block", dim3_json(r.block)},
            {"dynamic_shared_bytes", r.dynamic_shared_bytes},
            {"fault", fault_json(r.fault)},
            {"counters", counters},
            {"trace_events", r.trace.size()},
            {"trace_truncated", r.trace_truncated}};
}

// FNV-1a over the floats' bytes: any changed bit of any element shows.
std::string fnv1a_hex(const std::vector<float>& values) {
    uint64_t h = 14695981039346656037ull;
    for (float v : values) {
        unsigned char bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    return hex;
}

json tensor_json(const TensorData& t) {
    double max_abs = 0;
    for (float v : t.data) max_abs = std::max(max_abs, std::fabs(double(v)));  // NaN is not taken: the hash shows it
    return {{"shape", t.shape}, {"fnv1a", fnv1a_hex(t.data)}, {"max_abs", max_abs}};
}

json value_json(const Value& v) {
    switch (v.kind) {
    case ValueKind::Tensor: return tensor_json(v.tensor);
    case ValueKind::Int: return {{"int", v.int_value}};
    case ValueKind::Float: return {{"float", v.float_value}};
    }
    return nullptr;
}

json case_json(const Exercise& e, const Case& c) {
    kernels::KernelOptions options;
    options.backend = kernels::Backend::Emulator;  // a GPU has no checks or counters
    options.stages = options.emulator_checks = options.emulator_counters = true;
    options.emulator_step_limit = uint64_t{1} << 22;  // as the check's CUDA column (reference_kernel.cpp)
    try {
        const std::optional<kernels::KernelRun> run = kernels::run_kernel_op(e.reference, case_inputs(e, c), options);
        if (!run) return {{"no_kernel", true}};
        json launches = json::array(), stages = json::object();
        for (const emu::LaunchReport& r : run->launches) launches.push_back(launch_json(r));
        for (const NamedTensor& s : run->stages) stages[s.name] = tensor_json(s.tensor);
        return {{"input_error", run->input_error},
                {"ok", run->ok()},
                {"report", launch_json(run->report)},
                {"launches", launches},
                {"output", run->ok() ? value_json(run->output) : json(nullptr)},
                {"stages", stages}};
    } catch (const std::exception& ex) {
        return {{"exception", ex.what()}};
    }
}

json course_json(const std::string& dir) {
    const Course course = load_course(dir);
    json exercises = json::object();
    for (const Exercise& e : course.exercises) {
        if (!kernels::has_kernel(e.reference)) continue;
        json cases = json::array();
        for (const Case& c : e.cases) cases.push_back(case_json(e, c));
        exercises[e.id] = {{"op", e.reference}, {"cases", cases}};
    }
    json broken = json::array();
    for (const auto& [id, why] : course.broken) broken.push_back(id);
    return {{"exercises", exercises}, {"broken", broken}};
}

json layouts_json(int version) {
    const kernels::LayoutComparison cmp = kernels::compare_attention_layouts(1, 128, 12, 64, version);
    return {{"shape", {{"B", 1}, {"T", 128}, {"H", 12}, {"hd", 64}}},
            {"transposed", launch_json(cmp.transposed)},
            {"untransposed", launch_json(cmp.untransposed)},
            {"max_abs_difference", cmp.max_abs_difference}};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: attnlab-kernel-dump COURSE_DIR...\n");
        return 2;
    }
    try {
        json courses = json::object();
        for (int i = 1; i < argc; ++i) courses[argv[i]] = course_json(argv[i]);
        const json dump = {{"courses", courses}, {"layouts", {{"v1", layouts_json(1)}, {"v2", layouts_json(2)}}}};
        std::cout << dump.dump(1) << '\n';
    } catch (const std::exception& ex) {  // a course that does not load (CourseError)
        std::fprintf(stderr, "attnlab-kernel-dump: %s\n", ex.what());
        return 1;
    }
    return 0;
}
