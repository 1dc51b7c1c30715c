// The same kernels built by nvcc, run on a real GPU when one is present. Only
// compiled when CMake found nvcc; kernels.cpp calls in here only when
// device_count() > 0.
#include "../attention/layout.cu"
#include "../attention/attention.cu"

#include <memory>
#include <stdexcept>

#include "backend.hpp"

namespace attnlab::kernels::detail::native {

namespace K = ::attnlab::kernels::native;

// cudaMalloc'd floats, freed with the last copy. A failed allocation or copy
// throws; kernels.cpp turns that into a reported fault.
struct Buffer {
    std::shared_ptr<float> data;
    size_t count = 0;
};

inline void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

inline Buffer alloc(const char*, size_t count) {
    float* p = nullptr;
    if (count) check(cudaMalloc(&p, count * sizeof(float)), "cudaMalloc");
    return Buffer{std::shared_ptr<float>(p, [](float* q) { if (q) cudaFree(q); }), count};
}
inline Buffer upload(const char* name, const std::vector<float>& values) {
    Buffer b = alloc(name, values.size());
    if (b.count) check(cudaMemcpy(b.data.get(), values.data(), b.count * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    return b;
}
inline std::vector<float> download(const Buffer& b) {
    std::vector<float> out(b.count);
    check(cudaDeviceSynchronize(), "kernel");
    if (b.count) check(cudaMemcpy(out.data(), b.data.get(), b.count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return out;
}
inline float* ptr(const Buffer& b) { return b.data.get(); }

#include "pipeline.inl"

int device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
    return n;
}

std::string device_name() {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "GPU";
    return prop.name;
}

}  // namespace attnlab::kernels::detail::native
