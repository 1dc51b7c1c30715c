#pragma once
// The CUDA of attnlab's CUDA exercises. A learner's .cu file includes this
// header and is compiled by the host compiler against attnlab's CPU emulator
// of the CUDA execution model (attnlab/cuda_emu.hpp), after attnlab rewrote,
// line for line:
//   kernel<<<grid, block, smem>>>(args...)   into a checked emulator launch
//   __shared__ float tile[N][M];             into a checked shared array
//   extern __shared__ float smem[];          into the launch's dynamic shared memory
// so every launch reports sanitizer-style faults (memcheck, racecheck,
// synccheck, initcheck) with block, thread and source line, and counters
// (sectors per request, bank conflicts) that the verdict can judge.
//
// What a learner uses beyond CUDA itself:
//   dev_ptr<float> / dev_ptr<const float>   a pointer to global memory (float* on a GPU)
//   DeviceTensor                            a tensor in device memory: size(axis), numel(), data()
//   ceil_div(a, b)                          blocks needed to cover a elements with b threads each
// The entry point attnlab calls is a host function `void f(DeviceTensor& out,
// const DeviceTensor& x, ..., int n_heads)`: the inputs are already on the
// device and `out` has the expected shape, holding garbage until a kernel
// writes it (elements no kernel wrote are reported).
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "attnlab/cuda_emu.hpp"
#include "attnlab/entry.hpp"

namespace attnlab {

template <class T> using dev_ptr = emu::DevicePtr<T>;

class DeviceTensor;
namespace detail {
Slot finish_output(const DeviceTensor& out);  // downloads it and notes elements never written
}

// A tensor in (emulated) device memory, row-major. Like real device memory,
// host code cannot read or write its elements: only kernels can (an access
// from the host function throws, as it would crash on a GPU).
class DeviceTensor {
public:
    DeviceTensor() = default;
    // Allocated and never written (like cudaMalloc): every element reads as garbage.
    DeviceTensor(std::string name, std::vector<int64_t> shape);
    // Allocated and filled from host values (cudaMalloc + cudaMemcpy).
    DeviceTensor(std::string name, std::vector<int64_t> shape, const std::vector<float>& values);

    int rank() const { return static_cast<int>(shape_.size()); }
    int64_t size(int axis) const;  // throws std::out_of_range naming the tensor and the axis
    int64_t numel() const;
    const std::vector<int64_t>& shape() const { return shape_; }
    const std::string& name() const { return name_; }
    dev_ptr<float> data() { return buffer_.ptr(); }
    dev_ptr<const float> data() const { return buffer_.ptr(); }

private:
    friend detail::Slot detail::finish_output(const DeviceTensor& out);
    std::string name_;
    std::vector<int64_t> shape_;
    emu::DeviceBuffer<float> buffer_;
};

// Blocks of `b` threads needed to cover `a` elements.
inline int ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : static_cast<int>((a + b - 1) / b); }

// The CUDA runtime calls a learner may write after a launch. A faulted launch
// makes the next ones of the case do nothing, as a sticky CUDA error would.
enum cudaError_t { cudaSuccess = 0, cudaErrorLaunchFailure = 719 };
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
const char* cudaGetErrorString(cudaError_t error);

namespace detail {

// The current case's launches (what attnlab reports back after the case).
bool launches_stopped();                   // a launch of this case faulted
emu::LaunchOptions case_launch_options();  // one OS thread, every block traced, a step budget
void record_launch(emu::LaunchReport report);

// kernel<<<grid, block, smem, stream>>>(args...) after attnlab's rewrite.
template <class Kernel> struct KernelLaunch {
    const char* name;
    Kernel kernel;
    dim3 grid, block;
    size_t smem;
    template <class... Args> void operator()(Args&&... args) const {
        if (launches_stopped()) return;
        emu::ScopedLaunchOptions options(case_launch_options());
        record_launch(emu::launch(name, kernel, grid, block, smem, std::forward<Args>(args)...));
    }
};
// A __global__ function: the launch takes exactly its parameters, so a wrong
// argument count or type is an error on the learner's launch line (as nvcc
// says it), not deep inside the emulator's std::tuple.
template <class... P> struct KernelLaunch<void (*)(P...)> {
    const char* name;
    void (*kernel)(P...);
    dim3 grid, block;
    size_t smem;
    void operator()(P... args) const {
        if (launches_stopped()) return;
        emu::ScopedLaunchOptions options(case_launch_options());
        record_launch(emu::launch(name, kernel, grid, block, smem, std::forward<P>(args)...));
    }
};
template <class Kernel>
KernelLaunch<Kernel> launch_site(const char* name, Kernel kernel, dim3 grid, dim3 block, size_t smem = 0,
                                 int /*stream*/ = 0) {
    return {name, kernel, grid, block, smem};
}

// `extern __shared__ T name[];` at file scope, after attnlab's rewrite: the
// running launch's dynamic shared memory, looked up at each use (a file-scope
// variable is initialised before any launch, when there is none).
template <class T> struct FileScopeDynamicShared {
    const char* name;
    emu::SharedPtr<T> get() const { return emu::dynamic_shared<T>(name); }
    operator emu::SharedPtr<T>() const { return get(); }
    operator emu::SharedPtr<const T>() const { return get(); }
    emu::SharedRef<T> operator[](emu::Index i) const { return get()[i]; }
    emu::SharedRef<T> operator*() const { return *get(); }
    emu::SharedPtr<T> operator+(int64_t i) const { return get() + i; }
    emu::SharedPtr<T> operator-(int64_t i) const { return get() - i; }
};

}  // namespace detail
}  // namespace attnlab

#include "attnlab/cuda_entry.hpp"  // the entry point, shared with the GPU's cuda.hpp

using attnlab::ceil_div;
using attnlab::cudaDeviceSynchronize;
using attnlab::cudaError_t;
using attnlab::cudaGetErrorString;
using attnlab::cudaGetLastError;
using attnlab::cudaPeekAtLastError;
using attnlab::cudaSuccess;
using attnlab::dev_ptr;
using attnlab::DeviceTensor;
