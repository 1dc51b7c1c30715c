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
Slot finish_output(const DeviceTensor& out);  // synchronises, notes a CUDA error, downloads, counts unwritten elements
void set_learner_file(const char* path);      // the learner's file as compiled: the lines faults name
// Given __BASE_FILE__ in the learner's translation unit (as on the emulator).
struct LearnerFileRegistration {
    explicit LearnerFileRegistration(const char* file) { set_learner_file(file); }
};
}  // namespace detail
}  // namespace attnlab

#include "attnlab/cuda_entry.hpp"  // the entry point, shared with the emulator's cuda.hpp

using attnlab::ceil_div;
using attnlab::dev_ptr;
using attnlab::DeviceTensor;
