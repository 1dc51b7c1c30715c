#pragma once
// The CUDA of attnlab's CUDA exercises. A learner's .cu file is plain CUDA
// C++: kernels take `float*`, `const float4*`, `__half*`; the host function
// uses cudaMalloc, cudaMemset, cudaMemcpy and launches with
// <<<grid, block, smem>>>. The same file compiles unchanged three ways, and
// this one header serves all three:
//   - on attnlab's CPU emulator (everywhere): attnlab compiles it with the
//     host compiler, instrumented so that every load and store of a kernel
//     is checked by the emulator (memcheck, racecheck, synccheck, initcheck)
//     and counted (sectors per request, bank conflicts);
//   - with nvcc, on a real GPU where there is one;
//   - with NVRTC, for the resource report (registers, shared memory,
//     occupancy), on a GPU's compiler, without running anything.
// Before compiling for the emulator, attnlab rewrites only, line for line:
//   kernel<<<grid, block, smem>>>(args...)   into a launch on the emulator
//   __shared__ float tile[N][M];             into the block's shared memory
//   extern __shared__ float smem[];          into the launch's dynamic shared memory
//
// What attnlab adds to CUDA, on all three:
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
//
// Its parts: what each compiler needs first; what attnlab adds to CUDA, the
// same for all three; then each compiler's own part, chosen by the macros the
// compiler itself defines (NVRTC __CUDACC_RTC__, nvcc __CUDACC__, the
// emulator's host compiler neither), so no compile needs a flag of attnlab's.

// ============================================== what each compiler needs first
#if defined(__CUDACC_RTC__)
// ---- NVRTC (the resource report)
#include <cstdint>  // attnlab's stand-in (app/core/nvrtc_headers); std::initializer_list is NVRTC's own
// NVRTC has no <cmath>/<cfloat>: the constants learners use, spelled for the device.
#define INFINITY __int_as_float(0x7f800000)
#define FLT_MAX 3.402823466e+38f
// Nor the C++ standard library: the std:: names a C++ learner writes in host
// code or kernels (the emulator's host compiler has them), on CUDA's built-ins.
namespace std {
#define ATTNLAB_STD_UNARY(name)                                                    \
    inline float name(float v) { return ::name##f(v); }                            \
    inline double name(double v) { return ::name(v); }                             \
    template <class I> double name(I v) { return ::name(static_cast<double>(v)); }
ATTNLAB_STD_UNARY(sqrt) ATTNLAB_STD_UNARY(exp) ATTNLAB_STD_UNARY(exp2) ATTNLAB_STD_UNARY(log) ATTNLAB_STD_UNARY(log2)
ATTNLAB_STD_UNARY(tanh) ATTNLAB_STD_UNARY(floor) ATTNLAB_STD_UNARY(ceil) ATTNLAB_STD_UNARY(round) ATTNLAB_STD_UNARY(fabs)
#undef ATTNLAB_STD_UNARY
inline float abs(float v) { return ::fabsf(v); }
inline double abs(double v) { return ::fabs(v); }
inline int abs(int v) { return v < 0 ? -v : v; }
inline long long abs(long long v) { return v < 0 ? -v : v; }
inline float pow(float a, float b) { return ::powf(a, b); }
inline double pow(double a, double b) { return ::pow(a, b); }
inline float fmax(float a, float b) { return ::fmaxf(a, b); }
inline double fmax(double a, double b) { return ::fmax(a, b); }
inline float fmin(float a, float b) { return ::fminf(a, b); }
inline double fmin(double a, double b) { return ::fmin(a, b); }
template <class T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
template <class T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T> struct numeric_limits;
template <> struct numeric_limits<float> {
    static constexpr float infinity() { return 1.0f / 0.0f; }
    static constexpr float max() { return 3.402823466e+38f; }
    static constexpr float lowest() { return -3.402823466e+38f; }
    static constexpr float min() { return 1.175494351e-38f; }
    static constexpr float epsilon() { return 1.192092896e-07f; }
};
template <> struct numeric_limits<double> {
    static constexpr double infinity() { return 1.0 / 0.0; }
    static constexpr double max() { return 1.7976931348623157e+308; }
    static constexpr double lowest() { return -1.7976931348623157e+308; }
    static constexpr double min() { return 2.2250738585072014e-308; }
    static constexpr double epsilon() { return 2.2204460492503131e-16; }
};
template <> struct numeric_limits<int> {
    static constexpr int max() { return 2147483647; }
    static constexpr int lowest() { return -2147483647 - 1; }
    static constexpr int min() { return -2147483647 - 1; }
};
}
#elif defined(__CUDACC__)
// ---- nvcc on a GPU: CUDA's own runtime, launches and __shared__
#include <cuda_runtime.h>

#include <initializer_list>

#include "attnlab/cuda_std.hpp"  // what the emulator gives a .cu without an include
#else
// ---- the CPU emulator: CUDA's device side as the emulator gives it (cuda_include/)
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "attnlab/cuda_device.hpp"
#endif

// ================================================ what attnlab adds to CUDA
namespace attnlab {

template <class T> using dev_ptr = T*;  // attnlab's old spelling of a device pointer: plain T* now

namespace detail {
struct DeviceStorage;        // the buffer and its name, shared by a tensor's copies (the runtime's)
struct DeviceTensorAccess;   // how the runtime builds and reads device tensors
}  // namespace detail

// A tensor in device memory, row-major. Like real device memory, host code
// cannot read or write its elements: only kernels can (on the emulator, host
// code touching it throws, as it would crash on a GPU). Copies share the
// buffer; the last one releases it.
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

namespace detail {
void set_learner_file(const char* path);  // the learner's file as compiled: the lines faults name

// In the learner's translation unit, given __BASE_FILE__ there (the file as the
// compiler was given it): the file whose lines faults name. No default: a
// default argument's macro would expand where this header is parsed, which is
// the precompiled header's own build.
struct LearnerFileRegistration {
    explicit LearnerFileRegistration(const char* file) { set_learner_file(file); }
};
}  // namespace detail

}  // namespace attnlab

// ========================================================= each compiler's own
#if defined(__CUDACC_RTC__)
// ---- NVRTC: this compile is for resources, nothing runs or links. NVRTC
// emits only the kernels and what they call: the learner's host function is
// read and type-checked (as device code, -default-device) but never emitted,
// so DeviceTensor's members need no definitions here.
// NVRTC declares cudaError_t and the device runtime's functions itself; the
// host calls a launcher makes are no-ops here (this compile is for resources).
#define cudaGetLastError() cudaSuccess
#define cudaPeekAtLastError() cudaSuccess
#define cudaDeviceSynchronize() cudaSuccess
#define cudaGetErrorString(error) ""
#define cudaGetErrorName(error) ""
#define cudaStreamSynchronize(stream) cudaSuccess
#define cudaStreamCreate(stream) cudaSuccess
#define cudaStreamCreateWithFlags(stream, flags) cudaSuccess
#define cudaStreamDestroy(stream) cudaSuccess
// (cudaMemcpyKind and cudaFuncAttribute are NVRTC's own; the host calls are no-ops here.)
#define cudaMalloc(pointer, bytes) cudaSuccess
#define cudaFree(pointer) cudaSuccess
#define cudaMemset(pointer, value, bytes) cudaSuccess
#define cudaMemcpy(to, from, bytes, kind) cudaSuccess
#define cudaFuncSetAttribute(kernel, attribute, value) cudaSuccess
namespace attnlab { namespace detail {
struct LaunchStub { template <class... A> void operator()(A&&...) const {} };
template <class Kernel> LaunchStub launch_site(const char*, Kernel, dim3, dim3, unsigned long long = 0, int = 0) { return {}; }
} }
#elif defined(__CUDACC__)
// ---- nvcc on a GPU: the runtime is CUDA's; a DeviceTensor's members are
// libattnlab_learner_gpu's (cuda_runtime_gpu.cu), which cudaMallocs its buffer.
#else
// ---- the CPU emulator: the CUDA runtime's host side, and launches.
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
// One way to run a launch's threads: body(context).
struct LaunchBody {
    void (*body)(const void*) = nullptr;
    const void* context = nullptr;
};
// Runs `checked` as every thread of a grid on the emulator (or, in a sampled
// case, the blocks it leaves out as `unchecked`, when there is one), and
// records the launch; `line` is the learner's launch (a refused launch names it).
void launch_kernel(const char* name, const void* kernel, dim3 grid, dim3 block, size_t smem, LaunchBody checked,
                   LaunchBody unchecked, int line);
template <class F> void call_body(const void* f) { (*static_cast<const F*>(f))(); }
// The kernel's unchecked copy, built without instrumentation from the same
// file (the runner links one for exercises with sampled cases); nullptr when
// the program holds none.
const void* unchecked_copy(const void* kernel);

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
        const auto copy = reinterpret_cast<void (*)(P...)>(unchecked_copy(reinterpret_cast<const void*>(kernel)));
        auto unchecked_body = [&]() { copy(args...); };
        launch_kernel(name, reinterpret_cast<const void*>(kernel), grid, block, smem, {&call_body<decltype(body)>, &body},
                      copy ? LaunchBody{&call_body<decltype(unchecked_body)>, &unchecked_body} : LaunchBody{}, line);
    }
};
template <class Kernel, class Stream = int>
KernelLaunch<Kernel> launch_site(const char* name, Kernel kernel, dim3 grid, dim3 block, size_t smem = 0, Stream = 0,
                                 int line = __builtin_LINE()) {
    return {name, kernel, grid, block, smem, line};
}

}  // namespace attnlab::detail
#endif

using attnlab::ceil_div;
using attnlab::dev_ptr;
using attnlab::DeviceTensor;
