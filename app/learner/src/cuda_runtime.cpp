// The CUDA side of a learner program (libattnlab_learner_cuda.a): device
// tensors and cudaMalloc'd buffers in the emulator's checked device memory,
// CUDA's host calls, the launch log of the running case, and what the
// harness reports about it (every launch with its fault, counters and trace;
// output elements no kernel wrote; buffers never freed).
//
// This file is compiled without instrumentation: only the learner's own .cu
// is, so attnlab's copies in and out of device memory are not kernel accesses.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cuda.hpp"
#include "attnlab/cuda_entry.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/emu/raw_runtime.hpp"
#include "attnlab/common/register_file.hpp"
#include "device_tensor_storage.hpp"  // DeviceTensor's members
#include "harness_hooks.hpp"

namespace attnlab {
namespace {

using Limits = protocol::ProtocolLimits;
namespace raw = emu::raw;

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

// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, n), per kernel.
std::map<const void*, int>& dynamic_shared_opt_in() {
    static std::map<const void*, int> opt_in;
    return opt_in;
}

// What every kernel may take without asking, and the most the chosen
// architecture gives one block with cudaFuncSetAttribute (attnlab passes it:
// sm_80 163 KiB, sm_89 99 KiB, sm_90 227 KiB).
constexpr uint64_t kDefaultDynamicShared = 48 * 1024;
uint64_t max_dynamic_shared() { return detail::harness_options().max_dynamic_shared; }

void begin_case() {
    case_log() = CaseLog{};
    dynamic_shared_opt_in().clear();
}

void note_leaks(protocol::KernelCaseData& data) {
    for (const raw::Leak& leak : raw::release_learner_allocations()) {
        if (data.leaked_buffers++ == 0) {
            data.first_leak_name = leak.name;
            data.first_leak_line = leak.line;
        }
        data.leaked_bytes += static_cast<int64_t>(leak.bytes);
    }
}

void finish_case(protocol::CaseReport& report) {
    note_leaks(case_log().data);
    report.has_kernel = true;
    report.kernel = std::move(case_log().data);
    case_log() = CaseLog{};
}

cudaError_t fail(cudaError_t e) {
    if (case_log().last_error == cudaSuccess) case_log().last_error = e;
    return e;
}

// A sticky error (a fault in a kernel) is returned by every later call, as on a GPU.
cudaError_t sticky() { return detail::launches_stopped() ? case_log().last_error : cudaSuccess; }

cudaError_t error_of(const emu::Fault& f) {
    switch (f.kind) {
    case emu::FaultKind::OutOfBounds: return cudaErrorIllegalAddress;
    case emu::FaultKind::MisalignedAddress: return cudaErrorMisalignedAddress;
    case emu::FaultKind::DeviceAssert: return cudaErrorAssert;
    case emu::FaultKind::InvalidLaunch:
        if (f.detail.rfind("shared_", 0) == 0) return cudaErrorInvalidValue;
        if (f.detail == "too_many_registers" || f.detail == "launch_bounds_exceeded") return cudaErrorLaunchOutOfResources;
        return cudaErrorInvalidConfiguration;
    default: return cudaErrorLaunchFailure;
    }
}

}  // namespace

// ------------------------------------------------------------ device tensors

namespace detail {

std::shared_ptr<float> allocate_unwritten(const std::string& name, int64_t count) {
    void* p = raw::allocate(static_cast<size_t>(count) * sizeof(float), name, 0, false, sizeof(float), "float");
    if (!p) throw std::bad_alloc();
    return std::shared_ptr<float>(static_cast<float*>(p), [](float* q) { raw::release(q); });
}

DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape) { return DeviceTensorAccess::make(name, shape); }

DeviceTensor device_tensor(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& values) {
    DeviceTensor t = DeviceTensorAccess::make(name, shape);
    const size_t n = std::min(values.size(), static_cast<size_t>(t.numel()));
    if (n == 0) return t;
    const raw::DeviceMemoryWindow window;
    std::memcpy(t.data(), values.data(), n * sizeof(float));
    raw::host_wrote(t.data(), n * sizeof(float));
    return t;
}

}  // namespace detail

namespace detail {

cudaError_t cuda_malloc(void** p, size_t bytes, size_t elem_size, const char* type) {
    if (!p) return fail(cudaErrorInvalidValue);
    const int line = raw::line_of_return_address(__builtin_return_address(0));  // in the learner's function
    *p = raw::allocate(bytes, "cudaMalloc:" + std::to_string(line), line, true, elem_size, type);
    return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t cuda_memset(void* p, int value, size_t bytes) {
    if (bytes == 0) return sticky();
    if (!raw::is_device_pointer(p) || !raw::is_device_pointer(static_cast<char*>(p) + bytes - 1)) return fail(cudaErrorInvalidValue);
    const raw::DeviceMemoryWindow window;
    std::memset(p, value, bytes);
    raw::host_wrote(p, bytes);
    return sticky();
}

cudaError_t set_function_attribute(const void* kernel, int attribute, int value) {
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || static_cast<uint64_t>(value) > max_dynamic_shared()) return fail(cudaErrorInvalidValue);
        dynamic_shared_opt_in()[kernel] = value;
    }
    return cudaSuccess;
}

bool launches_stopped() {
    const auto& launches = case_log().data.launches;
    return !launches.empty() && !launches.back().ok();
}

namespace {

// A launch's blocks run one after another on this OS thread (the emulator's
// way), so a case's launches run the same way every time. When the
// Kernel view asked for it (--trace-kernels), every block is traced until the
// case's share of the protocol's trace budget is spent; a plain check records
// nothing (tracing costs most of a traced run). Loops with memory accesses
// stop after 2^22 steps per thread (the sandbox's CPU limit is the backstop
// for the others). Nothing a learner can name changes these.
// A re-run for one block the Kernel view asked for (--trace-case/--trace-launch/
// --trace-block): the launch with that index in the case records that block
// alone, so the whole trace budget goes to it; the others record nothing.
void focus_trace_on_one_block(emu::LaunchOptions& o, emu::Dim3 grid) {
    const HarnessOptions& h = harness_options();
    if (h.trace_case < 0 || !o.trace) return;
    const uint64_t block = h.trace_block;
    o.trace_all_blocks = false;
    o.trace = case_log().data.launches.size() == h.trace_launch && block < grid.count();
    o.trace_block = {unsigned(block % grid.x), unsigned(block / grid.x % grid.y), unsigned(block / grid.x / grid.y)};
}

emu::LaunchOptions case_launch_options(emu::Dim3 grid) {
    emu::LaunchOptions o;
    const size_t left = Limits::max_trace_events - std::min<size_t>(case_log().trace_events, Limits::max_trace_events);
    o.trace = harness_options().trace_kernels && left > 0;
    o.trace_all_blocks = true;
    o.trace_limit = left;
    focus_trace_on_one_block(o, grid);
    o.max_steps_per_thread = 1ull << 22;
    // A sampled case checks the grid's first and last block, unless the
    // Kernel view asked to record one block of it: every block is checked then.
    const bool one_block_recorded = o.trace && !o.trace_all_blocks;
    o.checked_blocks = harness_options().sampled && !one_block_recorded ? emu::CheckedBlocks::FirstAndLast : emu::CheckedBlocks::All;
    o.max_dynamic_shared = max_dynamic_shared();
    return o;
}

// Past the protocol's number of launches, clean ones are not kept; a faulted
// one takes the last place (the verdict and the later no-op launches need it).
void record_launch(emu::LaunchReport report) {
    CaseLog& log = case_log();
    if (!report.ok()) log.last_error = error_of(report.fault);
    if (log.data.launches.size() >= Limits::max_launches) {
        if (report.ok()) return;
        log.trace_events -= log.data.launches.back().trace.size();
        log.data.launches.pop_back();
    }
    log.trace_events += report.trace.size();
    log.data.launches.push_back(std::move(report));
}

// A GPU refuses more than 48 KiB of dynamic shared memory unless the kernel
// opted in with cudaFuncSetAttribute.
bool refused_shared_memory(const void* kernel, size_t smem, emu::Fault& f) {
    if (smem <= kDefaultDynamicShared || smem > max_dynamic_shared()) return false;  // above the maximum: the emulator says so
    const auto it = dynamic_shared_opt_in().find(kernel);
    if (it != dynamic_shared_opt_in().end() && static_cast<uint64_t>(it->second) >= smem) return false;
    f.kind = emu::FaultKind::InvalidLaunch;
    f.detail = "shared_needs_opt_in";
    f.size = static_cast<int64_t>(smem);
    f.index = static_cast<int64_t>(kDefaultDynamicShared);
    return true;
}

// A GPU refuses a block whose threads need more registers than an SM has
// (register_file.hpp): NVRTC's count per thread.
bool refused_registers(const char* name, dim3 block, emu::Fault& f) {
    const auto& known = harness_options().kernel_registers;
    const auto it = known.find(name);
    const int64_t threads = int64_t(block.x) * block.y * block.z;
    if (it == known.end() || !block_exceeds_register_file(it->second, threads)) return false;
    f.kind = emu::FaultKind::InvalidLaunch;
    f.detail = "too_many_registers";
    f.size = registers_per_block(it->second, threads);
    f.index = kRegistersPerSm;
    return true;
}

// Static __shared__ arrays are sized when compiled: ptxas refuses more than
// 48 KiB of them, and a block cannot have more shared memory (static and
// dynamic) than its architecture gives even after opting in. The emulator
// learns the static bytes a kernel uses as it runs, so the launch is marked
// refused after the fact.
void refuse_static_shared(emu::LaunchReport& report) {
    const int64_t static_bytes = report.counters.static_shared_bytes;
    const int64_t total = static_bytes + static_cast<int64_t>(report.dynamic_shared_bytes);
    emu::Fault& f = report.fault;
    if (static_bytes > static_cast<int64_t>(kDefaultDynamicShared)) {
        f.detail = "shared_static_too_large";
        f.size = static_bytes;
        f.index = static_cast<int64_t>(kDefaultDynamicShared);
    } else if (total > static_cast<int64_t>(max_dynamic_shared())) {
        f.detail = "shared_above_arch";
        f.size = total;
        f.index = static_cast<int64_t>(max_dynamic_shared());
    } else {
        return;
    }
    f.kind = emu::FaultKind::InvalidLaunch;
}

}  // namespace

// Each function of the learner's object beside its unchecked copy: a table
// the runner's link adds for an exercise with sampled cases (compiler.cpp),
// absent otherwise (the linker then leaves both bounds null).
struct UncheckedCopy {
    const void* checked;
    const void* unchecked;
};
extern "C" const UncheckedCopy __start_attnlab_unchecked_copies[] __attribute__((weak, visibility("hidden")));
extern "C" const UncheckedCopy __stop_attnlab_unchecked_copies[] __attribute__((weak, visibility("hidden")));

const void* unchecked_copy(const void* kernel) {
    if (!harness_options().sampled) return nullptr;
    for (const UncheckedCopy* c = __start_attnlab_unchecked_copies; c && c < __stop_attnlab_unchecked_copies; ++c)
        if (c->checked == kernel) return c->unchecked;
    return nullptr;
}

void launch_kernel(const char* name, const void* kernel, dim3 grid, dim3 block, size_t smem, LaunchBody checked,
                   LaunchBody unchecked, int line) {
    if (launches_stopped()) return;
    emu::Fault refused;
    refused.line = line;
    if (refused_shared_memory(kernel, smem, refused) || refused_registers(name, block, refused)) {
        emu::LaunchReport report;
        report.kernel = name;
        report.grid = grid;
        report.block = block;
        report.dynamic_shared_bytes = smem;
        report.fault = std::move(refused);
        record_launch(std::move(report));
        return;
    }
    emu::ScopedLaunchOptions options(case_launch_options(grid));
    emu::LaunchReport report;
    {
        const raw::DeviceMemoryWindow window;  // open to the kernel's threads, closed again to the host after
        std::function<void()> unchecked_body;
        if (unchecked.body) unchecked_body = [unchecked] { unchecked.body(unchecked.context); };
        report = emu::launch_function(name, grid, block, smem, [checked] { checked.body(checked.context); }, std::move(unchecked_body));
    }
    if (report.ok()) refuse_static_shared(report);
    // A refused launch (its configuration, or a bound the kernel declares)
    // names the learner's launch.
    if (report.fault.kind == emu::FaultKind::InvalidLaunch && report.fault.line == 0) report.fault.line = line;
    record_launch(std::move(report));
}

namespace {
bool output_at_exit(Slot& output);

// Host code that reached device memory by a path the instrumentation does not
// see (the C library's memcpy, say) hits a page closed to the host
// (raw_runtime.hpp): that SIGSEGV becomes the case's verdict, as an
// instrumented access's does. Any other SIGSEGV keeps its default action.
void on_segv(int, siginfo_t* info, void*) {
    const std::string buffer = raw::in_kernel() ? std::string() : raw::device_memory_fault(info->si_addr);
    if (buffer.empty()) {
        ::signal(SIGSEGV, SIG_DFL);
        return;  // the access faults again, as it would have without this handler
    }
    const int line = raw::learner_line_on_stack();
    fail_running_case("attnlab::emu::HostAccessError",
                      "device buffer '" + buffer + "' read or written by host code (outside any kernel)" +
                          (line > 0 ? ", line " + std::to_string(line) : std::string(", inside a library call (memcpy, say)")));
}

void catch_host_touches_of_device_memory() {
    static char alternate_stack[64 * 1024];  // the handler runs even where the stack is what failed
    stack_t ss{};
    ss.ss_sp = alternate_stack;
    ss.ss_size = sizeof alternate_stack;
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = &on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGSEGV, &sa, nullptr);
}
}

void register_cuda_entry(const char* name, int arity, ErasedFn fn, Invoker invoker, std::vector<std::string> names) {
    case_log();  // built now, before main() registers its exit handler, so it outlives that handler
    register_entry(name, arity, fn, invoker);
    param_names() = std::move(names);
    case_hooks().begin = &begin_case;
    case_hooks().finish = &finish_case;
    case_hooks().output_at_exit = &output_at_exit;
    case_hooks().all_reported = &emu::leave_state_to_exit;
    case_hooks().record_tensor_ops = false;
    raw::refuse_host_access(true);  // as on a GPU: only kernels touch device memory
    emu::set_host_fault_handler(&fail_running_case);
    catch_host_touches_of_device_memory();
}

void set_learner_file(const char* path) { raw::set_learner_source(path); }

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
    const size_t n = static_cast<size_t>(out.numel());
    std::vector<float> values(n);
    if (n) {
        const raw::DeviceMemoryWindow window;
        std::memcpy(values.data(), out.data(), n * sizeof(float));
    }
    Slot s;
    s.kind = Kind::Tensor;
    s.tensor = Tensor::from_data(DeviceTensorAccess::shape(out), std::move(values));
    protocol::KernelCaseData& data = case_log().data;
    int64_t first = -1;
    data.unwritten_count = raw::not_kernel_written(out.data(), n, sizeof(float), first, &data.host_set_count);
    data.first_unwritten = first;
    return s;
}

}  // namespace detail
}  // namespace attnlab

// ------------------------------------------------------ the rest of CUDA's API

cudaError_t cudaGetLastError() {
    auto& log = attnlab::case_log();
    const cudaError_t e = log.last_error;
    if (!attnlab::detail::launches_stopped()) log.last_error = cudaSuccess;  // a sticky error stays
    return e;
}
cudaError_t cudaPeekAtLastError() { return attnlab::case_log().last_error; }
cudaError_t cudaDeviceSynchronize() { return attnlab::sticky(); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return attnlab::sticky(); }
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
    static int one_stream;  // every launch runs in order: one handle serves every stream
    if (!stream) return cudaErrorInvalidValue;
    *stream = reinterpret_cast<cudaStream_t>(&one_stream);
    return attnlab::sticky();
}
cudaError_t cudaStreamDestroy(cudaStream_t) { return attnlab::sticky(); }

const char* cudaGetErrorName(cudaError_t error) {
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorAssert: return "cudaErrorAssert";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    }
    return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    }
    return "unknown error";
}

cudaError_t cudaFree(void* p) {
    if (!p) return attnlab::sticky();
    if (!attnlab::raw::allocation_bytes(p) || !attnlab::raw::release(p)) return attnlab::fail(cudaErrorInvalidDevicePointer);
    return attnlab::sticky();
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    namespace raw = attnlab::emu::raw;
    if (bytes == 0) return attnlab::sticky();
    const bool dst_device = raw::is_device_pointer(dst) && raw::is_device_pointer(static_cast<char*>(dst) + bytes - 1);
    const bool src_device = raw::is_device_pointer(src) && raw::is_device_pointer(static_cast<const char*>(src) + bytes - 1);
    if (kind == cudaMemcpyDefault) kind = cudaMemcpyKind((src_device ? 2 : 0) + (dst_device ? 1 : 0) == 3 ? 3 : src_device ? 2 : dst_device ? 1 : 0);
    const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (kind > cudaMemcpyDefault) return attnlab::fail(cudaErrorInvalidMemcpyDirection);
    if (want_dst != dst_device || want_src != src_device) return attnlab::fail(cudaErrorInvalidValue);
    const raw::DeviceMemoryWindow window;
    std::memmove(dst, src, bytes);
    if (kind == cudaMemcpyDeviceToDevice) raw::copy_flags(dst, src, bytes);
    else if (kind == cudaMemcpyHostToDevice) raw::host_wrote(dst, bytes);
    return attnlab::sticky();
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t) {
    return attnlab::detail::cuda_memset(p, value, bytes);
}

// assert() in a kernel stops the kernel (cudaErrorAssert on a GPU); in host
// code it is the C library's: a message, then abort.
extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line, const char* function) noexcept {
    if (attnlab::emu::raw::in_kernel()) attnlab::emu::raw::device_assert_failed(assertion, line);
    std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function ? function : "?", assertion);
    std::abort();
}
