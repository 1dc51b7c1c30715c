// The CUDA side of a learner program (libattnlab_learner_cuda.a): device
// tensors, the launch log of the running case, and what the harness reports
// about it (every launch with its fault, counters and trace; output elements
// never written).
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cuda.hpp"
#include "harness_hooks.hpp"

namespace attnlab {
namespace {

using Limits = protocol::ProtocolLimits;

struct CaseLog {
    protocol::KernelCaseData data;
    size_t trace_events = 0;  // traced so far in this case (the protocol carries a bounded number)
    cudaError_t last_error = cudaSuccess;
};

CaseLog& case_log() {
    static CaseLog log;
    return log;
}

std::vector<std::string>& param_names() {
    static std::vector<std::string> names;
    return names;
}

void begin_case() { case_log() = CaseLog{}; }

void finish_case(protocol::CaseReport& report) {
    report.has_kernel = true;
    report.kernel = std::move(case_log().data);
    case_log() = CaseLog{};
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + ")";
}

int64_t element_count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

}  // namespace

DeviceTensor::DeviceTensor(std::string name, std::vector<int64_t> shape)
    : name_(name), shape_(std::move(shape)), buffer_(std::move(name), static_cast<size_t>(element_count(shape_))) {}

DeviceTensor::DeviceTensor(std::string name, std::vector<int64_t> shape, const std::vector<float>& values)
    : DeviceTensor(std::move(name), std::move(shape)) {
    buffer_.upload(values);
}

int64_t DeviceTensor::size(int axis) const {
    if (axis < 0 || axis >= rank())
        throw std::out_of_range(name_ + ".size(" + std::to_string(axis) + "): " + name_ + " has shape " + shape_text(shape_) +
                                ", so the axis must be 0.." + std::to_string(rank() - 1));
    return shape_[static_cast<size_t>(axis)];
}

int64_t DeviceTensor::numel() const { return element_count(shape_); }

cudaError_t cudaGetLastError() {
    const cudaError_t e = case_log().last_error;
    case_log().last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return case_log().last_error; }
cudaError_t cudaDeviceSynchronize() { return case_log().last_error; }
const char* cudaGetErrorString(cudaError_t error) {
    return error == cudaSuccess ? "no error" : "unspecified launch failure (see attnlab's verdict for the fault)";
}

namespace detail {

bool launches_stopped() {
    const auto& launches = case_log().data.launches;
    return !launches.empty() && !launches.back().ok();
}

// One OS thread: a case's launches run the same way every time, and the
// sandbox's process limit never meets the emulator's thread pool. When the
// Kernel view asked for it (--trace-kernels), every block is traced until the
// case's share of the protocol's trace budget is spent; a plain check records
// nothing (tracing costs most of a traced run). Loops with memory accesses
// stop after 2^22 steps per thread (the sandbox's CPU limit is the backstop
// for the others).
emu::LaunchOptions case_launch_options() {
    emu::LaunchOptions o;
    o.threads = 1;
    const size_t left = Limits::max_trace_events - std::min<size_t>(case_log().trace_events, Limits::max_trace_events);
    o.trace = harness_options().trace_kernels && left > 0;
    o.trace_all_blocks = true;
    o.trace_limit = left;
    o.max_steps_per_thread = 1ull << 22;
    return o;
}

// Past the protocol's number of launches, clean ones are not kept; a faulted
// one takes the last place (the verdict and the later no-op launches need it).
void record_launch(emu::LaunchReport report) {
    CaseLog& log = case_log();
    if (!report.ok()) log.last_error = cudaErrorLaunchFailure;
    if (log.data.launches.size() >= Limits::max_launches) {
        if (report.ok()) return;
        log.trace_events -= log.data.launches.back().trace.size();
        log.data.launches.pop_back();
    }
    log.trace_events += report.trace.size();
    log.data.launches.push_back(std::move(report));
}

namespace {
bool output_at_exit(Slot& output);
}

void register_cuda_entry(const char* name, int arity, ErasedFn fn, Invoker invoker, std::vector<std::string> names) {
    case_log();  // built now, before main() registers its exit handler, so it outlives that handler
    register_entry(name, arity, fn, invoker);
    param_names() = std::move(names);
    case_hooks().begin = &begin_case;
    case_hooks().finish = &finish_case;
    case_hooks().output_at_exit = &output_at_exit;
    emu::detail::refuse_host_access(true);  // as on a GPU: only kernels touch device memory
}

const std::vector<std::string>& cuda_param_names() { return param_names(); }

bool case_faulted() { return launches_stopped(); }

namespace {
const DeviceTensor* current_output = nullptr;

// exit() in the learner's code after a fault: the case is still reported.
bool output_at_exit(Slot& output) {
    if (!current_output || !case_faulted()) return false;
    output = finish_output(*current_output);
    return true;
}
}  // namespace

void set_current_output(const DeviceTensor* out) { current_output = out; }

Slot finish_output(const DeviceTensor& out) {
    Slot s;
    s.kind = Kind::Tensor;
    s.tensor = Tensor::from_data(out.shape(), out.buffer_.download());
    protocol::KernelCaseData& data = case_log().data;
    for (size_t i = 0; i < out.buffer_.size(); ++i) {
        if (out.buffer_.written(i)) continue;
        if (data.unwritten_count++ == 0) data.first_unwritten = static_cast<int64_t>(i);
    }
    return s;
}

}  // namespace detail
}  // namespace attnlab
