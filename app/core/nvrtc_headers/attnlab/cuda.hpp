// attnlab/cuda.hpp as NVRTC sees it: the dialect of attnlab's CUDA exercises on a GPU.
#pragma once
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
template <class T> using dev_ptr = T*;
class DeviceTensor {
public:
    DeviceTensor() = default;
    // A temporary on the device, as the learner's host code makes one: DeviceTensor t("name", {B, H, T, T})
    // (NVRTC declares std::initializer_list itself).
    DeviceTensor(const char*, std::initializer_list<long long> shape) {
        for (long long d : shape)
            if (rank_ < 8) shape_[rank_++] = d;
    }
    int rank() const { return rank_; }
    long long size(int axis) const { return shape_[axis]; }
    long long numel() const { long long n = 1; for (int i = 0; i < rank_; ++i) n *= shape_[i]; return n; }
    float* data() { return data_; }
    const float* data() const { return data_; }
private:
    float* data_ = nullptr;
    long long shape_[8] = {};
    int rank_ = 0;
};
inline int ceil_div(long long a, long long b) { return b <= 0 ? 0 : int((a + b - 1) / b); }
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
