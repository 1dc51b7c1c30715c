// What a learner's code instrumented by g++ calls: -fsanitize=thread's hooks
// for every load, store and atomic (no libtsan is linked: these are the only
// definitions), and -fsanitize=bounds's handler (a null or misaligned pointer is the hooks' to
// tell: raw_access.cpp). Loads and
// stores go to raw::access (raw_access.cpp), which checks and counts them.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "thread_state.hpp"
#include "attnlab/emu/raw_memory.hpp"
#include "raw_access.hpp"

// ------------------------------------------------------------------ the hooks
// What g++ -fsanitize=thread calls (no libtsan is linked: these are the only
// definitions), and -fsanitize=bounds's handler. Learner code is compiled
// with -fnon-call-exceptions, so a fault may unwind out of a hook.
namespace {
using attnlab::emu::raw::access;
using attnlab::emu::raw::access_range;
inline uintptr_t caller(void* ra) { return reinterpret_cast<uintptr_t>(ra); }
}  // namespace

#define ATTNLAB_TSAN_ACCESS(N)                                                                                      \
    extern "C" void __tsan_read##N(void* p) { access(uintptr_t(p), N, false, caller(__builtin_return_address(0))); } \
    extern "C" void __tsan_write##N(void* p) { access(uintptr_t(p), N, true, caller(__builtin_return_address(0))); } \
    extern "C" void __tsan_unaligned_read##N(void* p) { access(uintptr_t(p), N, false, caller(__builtin_return_address(0))); } \
    extern "C" void __tsan_unaligned_write##N(void* p) { access(uintptr_t(p), N, true, caller(__builtin_return_address(0))); } \
    extern "C" void __tsan_volatile_read##N(void* p) { access(uintptr_t(p), N, false, caller(__builtin_return_address(0)), true); } \
    extern "C" void __tsan_volatile_write##N(void* p) { access(uintptr_t(p), N, true, caller(__builtin_return_address(0)), true); }
ATTNLAB_TSAN_ACCESS(1)
ATTNLAB_TSAN_ACCESS(2)
ATTNLAB_TSAN_ACCESS(4)
ATTNLAB_TSAN_ACCESS(8)
ATTNLAB_TSAN_ACCESS(16)
#undef ATTNLAB_TSAN_ACCESS

// The built-in indices as learner code reads them (cuda_device.hpp): the
// running emulated thread's, which the scheduler sets before resuming it.
namespace attnlab::emu::raw {
dim3 thread_index() { return ::threadIdx; }
dim3 block_index() { return ::blockIdx; }
dim3 block_dimensions() { return ::blockDim; }
dim3 grid_dimensions() { return ::gridDim; }
}  // namespace attnlab::emu::raw

extern "C" void __tsan_read_range(void* p, unsigned long size) { access_range(uintptr_t(p), size, false, caller(__builtin_return_address(0))); }
extern "C" void __tsan_write_range(void* p, unsigned long size) { access_range(uintptr_t(p), size, true, caller(__builtin_return_address(0))); }
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

// Atomics in learner code (std::atomic, __atomic builtins, the guards of
// function-local statics) reach these in place of the instruction: they do
// it, unchecked (CUDA's atomicAdd and friends are checked: raw_memory.hpp).
#define ATTNLAB_TSAN_ATOMIC(BITS, T)                                                                                     \
    extern "C" T __tsan_atomic##BITS##_load(const volatile T* a, int) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); }   \
    extern "C" void __tsan_atomic##BITS##_store(volatile T* a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); }   \
    extern "C" T __tsan_atomic##BITS##_exchange(volatile T* a, T v, int) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" T __tsan_atomic##BITS##_fetch_add(volatile T* a, T v, int) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" T __tsan_atomic##BITS##_fetch_sub(volatile T* a, T v, int) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" T __tsan_atomic##BITS##_fetch_and(volatile T* a, T v, int) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" T __tsan_atomic##BITS##_fetch_or(volatile T* a, T v, int) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }   \
    extern "C" T __tsan_atomic##BITS##_fetch_xor(volatile T* a, T v, int) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" T __tsan_atomic##BITS##_fetch_nand(volatile T* a, T v, int) { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); } \
    extern "C" int __tsan_atomic##BITS##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {                     \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                         \
    }                                                                                                                    \
    extern "C" int __tsan_atomic##BITS##_compare_exchange_weak(volatile T* a, T* c, T v, int, int) {                       \
        return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                          \
    }                                                                                                                    \
    extern "C" T __tsan_atomic##BITS##_compare_exchange_val(volatile T* a, T c, T v, int, int) {                           \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                               \
        return c;                                                                                                        \
    }
ATTNLAB_TSAN_ATOMIC(8, unsigned char)
ATTNLAB_TSAN_ATOMIC(16, unsigned short)
ATTNLAB_TSAN_ATOMIC(32, unsigned)
ATTNLAB_TSAN_ATOMIC(64, unsigned long long)
#undef ATTNLAB_TSAN_ATOMIC

// -fsanitize=bounds: an index past an array whose size the compiler knows.
namespace {
struct UbsanLocation {
    const char* file;
    uint32_t line, column;
};
struct UbsanType {
    uint16_t kind, info;
    char name[1];
};
struct UbsanOutOfBounds {
    UbsanLocation location;
    const UbsanType* array_type;
    const UbsanType* index_type;
};

int64_t ubsan_index(const UbsanType* t, uintptr_t value) {
    const bool is_signed = t->kind == 0 && (t->info & 1);
    const unsigned bits = 1u << (t->info >> 1);
    if (!is_signed || bits >= 64) return int64_t(value);
    const uint64_t sign = uint64_t(1) << (bits - 1);
    const uint64_t v = value & ((sign << 1) - 1);
    return int64_t((v ^ sign) - sign);
}

// 'float [32]' -> 32 (the outermost extent of the type indexed).
int64_t extent_of(const char* type) {
    const char* open = std::strchr(type, '[');
    return open ? std::atoll(open + 1) : 0;
}

[[noreturn]] void out_of_bounds(const UbsanOutOfBounds* d, uintptr_t index) {
    const int64_t i = ubsan_index(d->index_type, index);
    std::string type = d->array_type->name;
    if (type.size() >= 2 && type.front() == '\'' && type.back() == '\'') type = type.substr(1, type.size() - 2);
    // The handler is called where g++ marked the call unable to throw: no
    // exception may leave it (host_fault() ends the case; a kernel's thread stops).
    if (!attnlab::emu::raw::in_kernel())
        attnlab::emu::host_fault("std::out_of_range", "index " + std::to_string(i) + " outside an array of type '" + type + "' on line " +
                                                          std::to_string(d->location.line));
    attnlab::emu::Fault f;
    f.kind = attnlab::emu::FaultKind::OutOfBounds;
    f.space = attnlab::emu::MemorySpace::Local;
    f.buffer = type;
    f.index = i;
    f.size = extent_of(type.c_str());
    f.line = int(d->location.line);
    f.detail = "indexed";  // the check comes before the access: whether it reads or writes is not known
    attnlab::emu::detail::raise_fault(std::move(f));
}
}  // namespace

extern "C" void __ubsan_handle_out_of_bounds(void* data, uintptr_t index) {
    out_of_bounds(static_cast<const UbsanOutOfBounds*>(data), index);
}
extern "C" void __ubsan_handle_out_of_bounds_abort(void* data, uintptr_t index) {
    out_of_bounds(static_cast<const UbsanOutOfBounds*>(data), index);
}

