// The kernels of kernels/attention/*.cu built by the host compiler against
// attnlab's CUDA emulator, and the shared pipeline (pipeline.inl) on top.
#include "../attention/layout.cu"
#include "../attention/attention.cu"

#include "backend.hpp"

namespace attnlab::kernels::detail::emulated {

using ::attnlab::kernels::emulated::dev_ptr;
using Buffer = emu::DeviceBuffer<float>;

inline Buffer upload(const char* name, const std::vector<float>& values) {
    return Buffer::from_host(name, values);
}
inline Buffer alloc(const char* name, size_t count) { return Buffer(name, count); }
inline std::vector<float> download(const Buffer& b) { return b.download(); }
inline dev_ptr<float> ptr(const Buffer& b) { return b.ptr(); }

#include "pipeline.inl"

}  // namespace attnlab::kernels::detail::emulated
