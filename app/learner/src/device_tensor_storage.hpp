#pragma once
// A DeviceTensor's bookkeeping, the same in both CUDA runtimes: the buffer and
// its name shared by a tensor's copies, the shape, size(axis)'s refusal. The
// class itself is declared once, in attnlab/cuda.hpp, for every compiler.
//
// This header DEFINES DeviceTensor's members (not inline: the learner's file
// sees declarations only, and links the runtime's definitions): each runtime
// includes it in exactly one file (cuda_runtime.cpp on the emulator,
// cuda_runtime_gpu.cu on a GPU) and defines allocate_unwritten(), which is
// where the buffer lives.
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/cuda.hpp"

namespace attnlab::detail {

// `count` floats of device memory, never written; released with the last copy.
std::shared_ptr<float> allocate_unwritten(const std::string& name, int64_t count);

inline int64_t element_count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

inline std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + ")";
}

struct DeviceStorage {
    std::string name;
    std::shared_ptr<float> memory;
    int copies = 1;  // DeviceTensors sharing it
};

struct DeviceTensorAccess {
    static DeviceTensor make(const std::string& name, const std::vector<int64_t>& shape) {
        if (shape.size() > static_cast<size_t>(DeviceTensor::kMaxRank))
            throw std::invalid_argument(name + ": a device tensor has at most " + std::to_string(DeviceTensor::kMaxRank) +
                                        " axes, not " + std::to_string(shape.size()));
        DeviceTensor t;
        t.rank_ = static_cast<int>(shape.size());
        for (int i = 0; i < t.rank_; ++i) t.shape_[i] = shape[static_cast<size_t>(i)];
        t.storage_ = new DeviceStorage{name, allocate_unwritten(name, element_count(shape))};
        t.data_ = t.storage_->memory.get();
        return t;
    }
    static void share(const DeviceTensor& t) {
        if (t.storage_) ++t.storage_->copies;
    }
    static void drop(DeviceTensor& t) {
        if (t.storage_ && --t.storage_->copies == 0) delete t.storage_;
        t.storage_ = nullptr;
    }
    static std::vector<int64_t> shape(const DeviceTensor& t) { return std::vector<int64_t>(t.shape_, t.shape_ + t.rank_); }
    static const char* name(const DeviceTensor& t) { return t.storage_ ? t.storage_->name.c_str() : "tensor"; }
};

}  // namespace attnlab::detail

namespace attnlab {

DeviceTensor::DeviceTensor(const char* name, std::initializer_list<int64_t> shape)
    : DeviceTensor(detail::DeviceTensorAccess::make(name ? name : "tensor", std::vector<int64_t>(shape))) {}

DeviceTensor::DeviceTensor(const DeviceTensor& other) : storage_(other.storage_), data_(other.data_), rank_(other.rank_) {
    for (int i = 0; i < rank_; ++i) shape_[i] = other.shape_[i];
    detail::DeviceTensorAccess::share(other);
}

DeviceTensor& DeviceTensor::operator=(const DeviceTensor& other) {
    if (this == &other) return *this;
    detail::DeviceTensorAccess::share(other);
    detail::DeviceTensorAccess::drop(*this);
    storage_ = other.storage_;
    data_ = other.data_;
    rank_ = other.rank_;
    for (int i = 0; i < kMaxRank; ++i) shape_[i] = other.shape_[i];
    return *this;
}

DeviceTensor::~DeviceTensor() { detail::DeviceTensorAccess::drop(*this); }

int64_t DeviceTensor::size(int axis) const {
    if (axis < 0 || axis >= rank()) {
        const std::string name = detail::DeviceTensorAccess::name(*this);
        throw std::out_of_range(name + ".size(" + std::to_string(axis) + "): " + name + " has shape " +
                                detail::shape_text(detail::DeviceTensorAccess::shape(*this)) + ", so the axis must be 0.." +
                                std::to_string(rank() - 1));
    }
    return shape_[axis];
}

}  // namespace attnlab
