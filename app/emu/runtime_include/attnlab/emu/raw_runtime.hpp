#pragma once
// The runtime's side of plain CUDA on the emulator (see raw_memory.hpp):
// device allocations for cudaMalloc and DeviceTensor, host transfers, leaks,
// and the switches a learner program's runtime sets once. Not on any learner's
// include path.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/emu/raw_memory.hpp"

namespace attnlab::emu::raw {

// ---------------------------------------------------------------- global memory
// Page-aligned like cudaMalloc's, with inaccessible guard pages around it;
// filled with 0xff bytes (NaN as floats), every byte "never written".
// `learner_owned`: a cudaMalloc of the learner's (leaks are reported);
// `elem_size`/`type` word the indices of messages ("float" element 12).
void* allocate(size_t bytes, const std::string& name, int line, bool learner_owned, size_t elem_size = 4,
               const char* type = "float");
bool release(void* p);                      // false: not the start of a live allocation
bool is_device_pointer(const void* p);      // inside a live allocation (its guards excluded)
size_t allocation_bytes(const void* base);  // 0 when base is not an allocation's start

// Host-side transfers (cudaMemcpy, cudaMemset): initialised, not written by a kernel.
void host_wrote(void* dst, size_t bytes);
// Device to device: the bytes carry their source's flags.
void copy_flags(void* dst, const void* src, size_t bytes);
// How many of `count` elements of `elem_size` bytes from p were not all
// written by a kernel, and the first one (-1: none); `host_set` (if given):
// how many of those the host set instead (cudaMemset, cudaMemcpy).
int64_t not_kernel_written(const void* p, size_t count, size_t elem_size, int64_t& first, int64_t* host_set = nullptr);

struct Leak {
    std::string name;
    size_t bytes = 0;
    int line = 0;
};
// The learner's live allocations, freed here (at the end of a case).
std::vector<Leak> release_learner_allocations();

// ---------------------------------------------------------------- device libraries
// One access a device library (wmma) makes for the learner, checked and
// counted as the learner's own: `call` is the learner's call of the library
// (the library function's return address), `part` tells the call's accesses
// apart (each is its own instruction on a GPU, so its own warp request; at
// most 126 parts), `line` is the learner's line of the call.
void library_access(const void* p, unsigned size, bool write, const void* call, unsigned part, int line);
// FLOPs the running block did on tensor cores (a warp's wmma::mma_sync), for
// the performance report's tensor-core roof.
void count_tensor_flops(int64_t flops);
// false in an unchecked block of a sampled launch: a library skips the rule
// checks a GPU would make of the call (the learner's copy skips its own).
bool block_checked();

// ---------------------------------------------------------------- reports
void set_learner_source(const char* path);  // whose lines faults name (the file as compiled)
int line_of_return_address(const void* pc);  // the learner's line of a call
int learner_line_on_stack();                 // the innermost line of the learner's file on the calling stack (0: none)
void refuse_host_access(bool refuse);        // host code touching device memory throws HostAccessError

// ---------------------------------------------------------------- the host's window
// Where host access is refused, device memory is also closed to the host by
// the MMU (PROT_NONE) outside a window: a launch, or one of the runtime's own
// transfers. Host code then cannot touch it by any path, instrumented or not
// (a memcpy from the C library, inline assembly): it faults, and
// device_memory_fault() tells that fault from others. Windows nest.
void open_device_memory();
void close_device_memory();
struct DeviceMemoryWindow {
    DeviceMemoryWindow() { open_device_memory(); }
    ~DeviceMemoryWindow() { close_device_memory(); }
    DeviceMemoryWindow(const DeviceMemoryWindow&) = delete;
    DeviceMemoryWindow& operator=(const DeviceMemoryWindow&) = delete;
};
// A fault at `address` (a SIGSEGV's si_addr) hit a live device allocation or
// its guard pages while the window was closed: the buffer's name, else "".
std::string device_memory_fault(const void* address);

}  // namespace attnlab::emu::raw
