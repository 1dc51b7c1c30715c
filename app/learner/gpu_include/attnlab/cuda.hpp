#pragma once
// The CUDA of attnlab's CUDA exercises on a real GPU: the same names as the
// emulator's attnlab/cuda.hpp (app/learner/include), so one learner .cu file
// compiles with nvcc unchanged. Here `dev_ptr<T>` is a plain `T*`, launches
// and `__shared__` are nvcc's own, and a DeviceTensor owns cudaMalloc'ed
// memory. attnlab uses this header only where a GPU and nvcc exist; the
// emulator is what checks the kernels everywhere (faults, counters).
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/entry.hpp"

namespace attnlab {

template <class T> using dev_ptr = T*;

// A tensor in device memory, row-major.
class DeviceTensor {
public:
    DeviceTensor() = default;
    // Allocated and never written: every element holds the bytes 0xFF (a NaN),
    // so elements no kernel wrote can be counted afterwards.
    DeviceTensor(std::string name, std::vector<int64_t> shape);
    // Allocated and filled from host values.
    DeviceTensor(std::string name, std::vector<int64_t> shape, const std::vector<float>& values);

    int rank() const { return static_cast<int>(shape_.size()); }
    int64_t size(int axis) const;  // throws std::out_of_range naming the tensor and the axis
    int64_t numel() const;
    const std::vector<int64_t>& shape() const { return shape_; }
    const std::string& name() const { return name_; }
    float* data() { return memory_.get(); }
    const float* data() const { return memory_.get(); }

private:
    std::string name_;
    std::vector<int64_t> shape_;
    std::shared_ptr<float> memory_;  // cudaFree'd with the last copy
};

// Blocks of `b` threads needed to cover `a` elements.
inline int ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : static_cast<int>((a + b - 1) / b); }

namespace detail {

void register_cuda_entry(const char* name, int arity, ErasedFn fn, Invoker invoker, std::vector<std::string> names);
DeviceTensor device_input(const std::vector<Slot>& args, int i);
DeviceTensor device_output(const std::vector<Slot>& args);  // args[0]: the expected output's shape
Slot finish_output(const DeviceTensor& out);  // synchronises, notes a CUDA error, downloads, counts unwritten elements

template <class T> T cuda_argument(const std::vector<Slot>& args, int i) {
    if constexpr (std::is_same_v<T, DeviceTensor>) return device_input(args, i);
    else return argument<T>(args, i);
}

template <class... A, size_t... I>
Slot invoke_cuda(void (*f)(DeviceTensor&, A...), const std::vector<Slot>& args, std::index_sequence<I...>) {
    DeviceTensor out = device_output(args);
    try {
        f(out, cuda_argument<std::decay_t<A>>(args, static_cast<int>(I) + 1)...);
    } catch (const std::exception&) {
        // `if (cudaGetLastError() != cudaSuccess) throw ...` after a failed
        // launch: the CUDA error is the news (finish_output reports it).
        if (cudaPeekAtLastError() == cudaSuccess) throw;
    }
    return finish_output(out);
}

template <class... A> Slot invoke_cuda_erased(ErasedFn fn, const std::vector<Slot>& args) {
    return invoke_cuda(reinterpret_cast<void (*)(DeviceTensor&, A...)>(fn), args, std::index_sequence_for<A...>{});
}

struct CudaEntryRegistration {
    template <class... A>
    CudaEntryRegistration(void (*f)(DeviceTensor&, A...), const char* name, std::vector<std::string> param_names) {
        register_cuda_entry(name, static_cast<int>(1 + sizeof...(A)), reinterpret_cast<ErasedFn>(f),
                            &invoke_cuda_erased<A...>, std::move(param_names));
    }
};

}  // namespace detail
}  // namespace attnlab

using attnlab::ceil_div;
using attnlab::dev_ptr;
using attnlab::DeviceTensor;
