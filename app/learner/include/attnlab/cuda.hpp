#pragma once
// The CUDA of attnlab's CUDA exercises on the CPU emulator. A learner's .cu
// file is plain CUDA C++: kernels take `float*`, `const float4*`, `__half*`;
// the host function uses cudaMalloc, cudaMemset, cudaMemcpy and launches
// with <<<grid, block, smem>>>. attnlab compiles it with the host compiler,
// instrumented so that every load and store of a kernel is checked by the
// emulator (memcheck, racecheck, synccheck, initcheck) and counted (sectors
// per request, bank conflicts). Before compiling, attnlab rewrites only, line
// for line:
//   kernel<<<grid, block, smem>>>(args...)   into a launch on the emulator
//   __shared__ float tile[N][M];             into the block's shared memory
//   extern __shared__ float smem[];          into the launch's dynamic shared memory
// The same file compiles unchanged with nvcc (attnlab's gpu_include/attnlab/cuda.hpp).
//
// What attnlab adds to CUDA, on both:
//   DeviceTensor     a tensor in device memory: size(axis), numel(), data() (a float*)
//   ceil_div(a, b)   blocks needed to cover a elements with b threads each
// The entry point attnlab calls is a host function `void f(DeviceTensor& out,
// const DeviceTensor& x, ..., int n_heads)`: the inputs are already on the
// device and `out` has the expected shape, holding garbage until a kernel
// writes it (elements no kernel wrote are reported).
//
// This header and what it includes are compiled with every check of a
// learner's file, so it stays light: no <string>, <vector>, <functional> or
// <stdexcept>, which nvcc does not give a .cu file either (together they
// cost every compile about a tenth of a second, in the templates they
// instantiate). The entry point's glue, which needs them, is cuda_entry.hpp,
// compiled once per exercise into its own object.
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attnlab/cuda_device.hpp"

namespace attnlab {

template <class T> using dev_ptr = T*;  // attnlab's old spelling of a device pointer: plain T* now

namespace detail {
struct DeviceStorage;        // the buffer and its name, shared by a tensor's copies (cuda_runtime.cpp)
struct DeviceTensorAccess;   // how the runtime builds and reads device tensors
}  // namespace detail

// A tensor in (emulated) device memory, row-major. Like real device memory,
// host code cannot read or write its elements: only kernels can (host code
// touching it throws, as it would crash on a GPU). Copies share the buffer;
// the last one releases it.
class DeviceTensor {
public:
    static constexpr int kMaxRank = 8;
    DeviceTensor() = default;
    // A temporary on the device, as host code makes one: DeviceTensor t("scores", {B, H, T, T}).
    // Allocated and never written (like cudaMalloc): every element reads as garbage.
    DeviceTensor(const char* name, std::initializer_list<int64_t> shape);
    DeviceTensor(const DeviceTensor& other);
    DeviceTensor& operator=(const DeviceTensor& other);
    ~DeviceTensor();

    int rank() const { return rank_; }
    int64_t size(int axis) const;  // throws std::out_of_range naming the tensor and the axis
    int64_t numel() const {
        int64_t n = 1;
        for (int i = 0; i < rank_; ++i) n *= shape_[i];
        return n;
    }
    float* data() { return data_; }
    const float* data() const { return data_; }

private:
    friend struct detail::DeviceTensorAccess;
    detail::DeviceStorage* storage_ = nullptr;
    float* data_ = nullptr;
    int64_t shape_[kMaxRank] = {};
    int rank_ = 0;
};

// Blocks of `b` threads needed to cover `a` elements.
inline int ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : static_cast<int>((a + b - 1) / b); }

}  // namespace attnlab

// ------------------------------------------------------------ CUDA runtime
// The host-side calls, with CUDA's names, codes and messages. A launch that
// faulted makes the case's later launches do nothing, as a sticky error would.
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorAssert = 710,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719,
};
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};
enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
struct CUstream_st;
typedef CUstream_st* cudaStream_t;

cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
// Streams: the emulator runs every launch in order, so a stream is a name.
constexpr unsigned cudaStreamDefault = 0, cudaStreamNonBlocking = 1;
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaFree(void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemsetAsync(void* p, int value, size_t bytes, cudaStream_t stream = nullptr);

namespace attnlab::detail {
// Called from the learner's own line (the wrappers below are inlined into
// it), so a leak names the learner's cudaMalloc.
// `elem_size` and `type`: what reports count the buffer in (a `__half*`
// buffer's indices are halves); float for a `void**` (CUDA C's
// `cudaMalloc((void**)&p, bytes)`).
cudaError_t cuda_malloc(void** p, size_t bytes, size_t elem_size = 4, const char* type = "float");
// The name reports give an element ("" where English has no plural for it).
template <class T> constexpr const char* allocation_type_name() {
    if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, int>) return "int";
    else return "";
}
cudaError_t cuda_memset(void* p, int value, size_t bytes);
cudaError_t set_function_attribute(const void* kernel, int attribute, int value);
}  // namespace attnlab::detail

__attribute__((always_inline)) inline cudaError_t cudaMalloc(void** p, size_t bytes) { return attnlab::detail::cuda_malloc(p, bytes); }
template <class T> __attribute__((always_inline)) inline cudaError_t cudaMalloc(T** p, size_t bytes) {
    return attnlab::detail::cuda_malloc(reinterpret_cast<void**>(p), bytes, sizeof(T), attnlab::detail::allocation_type_name<T>());
}
__attribute__((always_inline)) inline cudaError_t cudaMemset(void* p, int value, size_t bytes) {
    return attnlab::detail::cuda_memset(p, value, bytes);
}
template <class T> cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attribute, int value) {
    return attnlab::detail::set_function_attribute(reinterpret_cast<const void*>(kernel), attribute, value);
}

namespace attnlab::detail {

bool launches_stopped();  // a launch of this case faulted
// Runs `body(context)` as every thread of a grid on the emulator, and records
// the launch; `line` is the learner's launch (a refused launch names it).
void launch_kernel(const char* name, const void* kernel, dim3 grid, dim3 block, size_t smem, void (*body)(const void*),
                   const void* context, int line);
template <class F> void call_body(const void* f) { (*static_cast<const F*>(f))(); }

// kernel<<<grid, block, smem, stream>>>(args...) after attnlab's rewrite. The
// launch takes exactly the kernel's parameters, so a wrong argument count or
// type is an error on the learner's launch line, as nvcc says it.
template <class Kernel> struct KernelLaunch;
template <class... P> struct KernelLaunch<void (*)(P...)> {
    const char* name;
    void (*kernel)(P...);
    dim3 grid, block;
    size_t smem;
    int line;
    void operator()(P... args) const {
        if (launches_stopped()) return;
        // Instrumented like every function of the learner's object (the check
        // refuses one that is not): its reads of the arguments are the
        // launching thread's stack, which the hooks pass over at once.
        auto body = [&]() { kernel(args...); };
        launch_kernel(name, reinterpret_cast<const void*>(kernel), grid, block, smem, &call_body<decltype(body)>, &body, line);
    }
};
template <class Kernel, class Stream = int>
KernelLaunch<Kernel> launch_site(const char* name, Kernel kernel, dim3 grid, dim3 block, size_t smem = 0, Stream = 0,
                                 int line = __builtin_LINE()) {
    return {name, kernel, grid, block, smem, line};
}

void set_learner_file(const char* path);  // the learner's file as compiled: the lines faults name

// In the learner's translation unit, given __BASE_FILE__ there (the file as the
// compiler was given it): the file whose lines faults name. No default: a
// default argument's macro would expand where this header is parsed, which is
// the precompiled header's own build.
struct LearnerFileRegistration {
    explicit LearnerFileRegistration(const char* file) { set_learner_file(file); }
};

}  // namespace attnlab::detail

using attnlab::ceil_div;
using attnlab::dev_ptr;
using attnlab::DeviceTensor;
