// Device buffers (DeviceBuffer<T>'s storage) and what host code may do with them.
#include <algorithm>
#include <atomic>

#include "attnlab/cuda_emu.hpp"

namespace attnlab::emu::detail {

constexpr size_t kBufferAlignment = 4096;

BufferStorage::BufferStorage(std::string n, const char* t, size_t c, size_t es)
    : name(std::move(n)), type(t), count(c), elem_size(es) {
    // Page-aligned, as cudaMalloc's: the pages a kernel touches (a counter)
    // then do not depend on where the host allocator put the buffer.
    const size_t bytes = std::max<size_t>(256, (c * es + 255) / 256 * 256);
    data = static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(kBufferAlignment)));
    std::memset(data, 0xff, bytes);  // NaN for floats: garbage that shows
    written.reset(new std::atomic<uint8_t>[c ? c : 1]);
    for (size_t i = 0; i < c; ++i) written[i].store(0, std::memory_order_relaxed);
}

BufferStorage::~BufferStorage() { ::operator delete(data, std::align_val_t(kBufferAlignment)); }

namespace {
std::atomic<bool> host_access_refused{false};
}

void refuse_host_access(bool refuse) { host_access_refused.store(refuse); }

void host_bounds_check(const BufferStorage& s, int64_t e) {
    if (host_access_refused.load(std::memory_order_relaxed))
        throw HostAccessError("device buffer '" + s.name + "' element " + std::to_string(e) +
                              " read or written by host code (outside any kernel)");
    if (e < 0 || static_cast<uint64_t>(e) >= s.count)
        throw std::out_of_range("device buffer '" + s.name + "': index " + std::to_string(e) +
                                " outside 0.." + std::to_string(s.count));
}

}  // namespace attnlab::emu::detail
