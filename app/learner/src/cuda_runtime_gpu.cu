// The CUDA side of a learner program on a real GPU (libattnlab_learner_gpu.a,
// built by nvcc): device tensors in cudaMalloc'ed memory, and what the harness
// reports per case: a CUDA error after the learner's launches (as a faulted
// launch) and the output elements no kernel wrote (still the 0xFF bytes the
// output was filled with). No per-access checks: those are the emulator's.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cuda.hpp"
#include "attnlab/cuda_entry.hpp"
#include "device_tensor_storage.hpp"  // DeviceTensor's members
#include "harness_hooks.hpp"

namespace attnlab {
namespace {

protocol::KernelCaseData& case_data() {
    static protocol::KernelCaseData data;
    return data;
}

std::vector<std::string>& param_names() {
    static std::vector<std::string> names;
    return names;
}

void begin_case() { case_data() = protocol::KernelCaseData{}; }

void finish_case(protocol::CaseReport& report) {
    report.has_kernel = true;
    report.kernel = std::move(case_data());
    case_data() = protocol::KernelCaseData{};
}

// A CUDA error of the case, reported like a launch the emulator stopped.
void note_cuda_error(cudaError_t error) {
    emu::LaunchReport failed;
    failed.kernel = "(the kernels of this case)";
    failed.fault.kind = emu::FaultKind::KernelException;
    failed.fault.detail = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
    case_data().launches.push_back(std::move(failed));
}

std::shared_ptr<float> device_alloc(int64_t count) {
    float* p = nullptr;
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&p), static_cast<size_t>(count > 0 ? count : 1) * sizeof(float));
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaMalloc failed: ") + cudaGetErrorString(e));
    return std::shared_ptr<float>(p, [](float* q) { cudaFree(q); });
}

constexpr uint32_t kUnwritten = 0xFFFFFFFFu;  // the bytes a new output is filled with (a NaN)

}  // namespace

namespace detail {

// Filled with the bytes 0xFF (a NaN), so elements no kernel wrote can be counted afterwards.
std::shared_ptr<float> allocate_unwritten(const std::string&, int64_t count) {
    std::shared_ptr<float> memory = device_alloc(count);
    cudaMemset(memory.get(), 0xFF, static_cast<size_t>(count) * sizeof(float));
    return memory;
}

DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape) { return DeviceTensorAccess::make(name, shape); }

DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values) {
    DeviceTensor t = DeviceTensorAccess::make(name, shape);
    const size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
    cudaMemcpy(t.data(), values.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    return t;
}

namespace {
bool output_at_exit(Slot& output);
}

void set_learner_file(const char*) {}  // nvcc's own tools name lines on a GPU

void register_cuda_entry(const char* name, int arity, ErasedFn fn, Invoker invoker, std::vector<std::string> names) {
    case_data();  // built now, before main() registers its exit handler, so it outlives that handler
    register_entry(name, arity, fn, invoker);
    param_names() = std::move(names);
    case_hooks().begin = &begin_case;
    case_hooks().finish = &finish_case;
    case_hooks().output_at_exit = &output_at_exit;
}

const std::vector<std::string>& cuda_param_names() { return param_names(); }

bool case_faulted() { return cudaPeekAtLastError() != cudaSuccess; }

namespace {
const DeviceTensor* current_output = nullptr;

// exit() in the learner's code after a fault: the case is still reported.
bool output_at_exit(Slot& output) {
    if (!current_output || !case_faulted()) return false;
    output = finish_output(*current_output);
    return true;
}

// The learner's function timed with CUDA events (the device's own clock, so
// host-side overheads stay out): recorded on the legacy default stream, which
// waits for the learner's blocking streams too, when the function starts and
// when its output is collected.
struct CaseTimer {
    cudaEvent_t start = nullptr, stop = nullptr;
    bool started = false;
    CaseTimer() {
        if (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess) start = stop = nullptr;
    }
};

CaseTimer& case_timer() {
    static CaseTimer timer;
    return timer;
}

void start_timing() {
    CaseTimer& t = case_timer();
    t.started = t.start && cudaEventRecord(t.start) == cudaSuccess;
}

int64_t stop_timing() {
    CaseTimer& t = case_timer();
    if (!t.started || cudaEventRecord(t.stop) != cudaSuccess || cudaEventSynchronize(t.stop) != cudaSuccess) return -1;
    float ms = 0;
    t.started = false;
    return cudaEventElapsedTime(&ms, t.start, t.stop) == cudaSuccess ? static_cast<int64_t>(double(ms) * 1e6) : -1;
}
}  // namespace

void set_current_output(const DeviceTensor* out) {
    current_output = out;
    if (out) start_timing();
}

Slot finish_output(const DeviceTensor& out) {
    const int64_t device_ns = stop_timing();
    cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) error = cudaGetLastError();
    if (error != cudaSuccess) note_cuda_error(error);
    std::vector<float> host(static_cast<size_t>(out.numel()));
    std::vector<uint32_t> bits(host.size(), kUnwritten);
    if (error == cudaSuccess && !host.empty())
        cudaMemcpy(host.data(), out.data(), host.size() * sizeof(float), cudaMemcpyDeviceToHost);
    if (error == cudaSuccess) std::memcpy(bits.data(), host.data(), host.size() * sizeof(float));
    protocol::KernelCaseData& data = case_data();
    if (error == cudaSuccess) data.device_time_ns = device_ns;
    for (size_t i = 0; i < bits.size(); ++i)
        if (bits[i] == kUnwritten && data.unwritten_count++ == 0) data.first_unwritten = static_cast<int64_t>(i);
    Slot s;
    s.kind = Kind::Tensor;
    s.tensor = Tensor::from_data(DeviceTensorAccess::shape(out), std::move(host));
    return s;
}

}  // namespace detail
}  // namespace attnlab
