// The kernels of kernels/attention/*.cu on attnlab's CPU emulator (built by
// kernels/CMakeLists.txt as emulated CUDA, the way a learner's .cu is), their
// device memory, and the shared pipeline (pipeline.inl) on top. This file is
// host code: it is compiled as usual, never instrumented.
#include <cstring>

#include "attnlab/emu/raw_runtime.hpp"
#include "attnlab/kernels/launchers.hpp"
#include "backend.hpp"

namespace attnlab::kernels::emulated {

std::mutex& emulator_lock() {
    static std::mutex lock;
    return lock;
}

DeviceFloats::DeviceFloats(const std::string& name, size_t count) : count_(count) {
    if (count) data_ = static_cast<float*>(emu::raw::allocate(count * sizeof(float), name, 0, /*learner_owned=*/false));
}

DeviceFloats DeviceFloats::from_host(const std::string& name, const std::vector<float>& values) {
    DeviceFloats b(name, values.size());
    if (b.count_) {
        std::memcpy(b.data_, values.data(), values.size() * sizeof(float));
        emu::raw::host_wrote(b.data_, values.size() * sizeof(float));
    }
    return b;
}

DeviceFloats::~DeviceFloats() {
    if (data_) emu::raw::release(data_);
}

std::vector<float> DeviceFloats::download() const {
    std::vector<float> out(count_);
    if (count_) std::memcpy(out.data(), data_, count_ * sizeof(float));
    return out;
}

}  // namespace attnlab::kernels::emulated

namespace attnlab::kernels::detail::emulated {

using Buffer = ::attnlab::kernels::emulated::DeviceFloats;
namespace K = ::attnlab::kernels::emulated;

inline Buffer upload(const char* name, const std::vector<float>& values) { return Buffer::from_host(name, values); }
inline Buffer alloc(const char* name, size_t count) { return Buffer(name, count); }
inline std::vector<float> download(const Buffer& b) { return b.download(); }
inline float* ptr(const Buffer& b) { return b.data(); }

#include "pipeline.inl"

}  // namespace attnlab::kernels::detail::emulated
