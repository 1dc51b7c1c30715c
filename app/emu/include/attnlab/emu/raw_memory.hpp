#pragma once
// Plain CUDA on the emulator: device memory reached through raw pointers.
//
// A learner's .cu file is compiled with g++'s -fsanitize=thread, linked not
// against libtsan but against attnlab's own definitions of the hooks it calls
// (__tsan_read4(addr) before every 4-byte load, __tsan_write16 before a
// float4 store, __tsan_atomic32_fetch_add...), so every load and store of a
// kernel, through `float*`, `float4*` or `__half*`, is seen and checked here:
// which allocation or shared array it falls in, whether it is in bounds,
// initialised, racing with another thread, and which warp request it belongs
// to. -fsanitize=bounds adds the bounds of arrays the compiler knows (a
// thread's `float acc[32]`, a `__shared__ float tile[32][33]`). Lines come
// from the program's own debug information (libbacktrace), looked up only
// when a report needs one.
//
// This header is what learner code compiles against (the rewrite of
// `__shared__`, CUDA's atomics); no control in it turns a check off. The
// runtime's side (allocations, transfers, leaks) is attnlab/emu/raw_runtime.hpp.
// Learner programs run blocks on one OS thread, which the shadow state relies on.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "attnlab/common/fault_kind.hpp"

namespace attnlab::emu::raw {

// ---------------------------------------------------------------- shared memory
// One static __shared__ variable (the rewrite of `__shared__ float tile[32][33];`
// calls it once per declaration, through shared_variable below). Every block
// sees the same bytes; its shadow tells blocks and barrier intervals apart.
void* claim_shared(const char* name, size_t bytes, size_t align, size_t elem_size, const char* type);
// The launch's dynamic shared memory (`extern __shared__ T smem[];`), read
// with elements of `elem_size` bytes.
void* dynamic_shared(size_t elem_size);

template <class T> constexpr const char* element_type_name() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>) return "float";
    else if constexpr (std::is_same_v<U, double>) return "double";
    else if constexpr (std::is_same_v<U, int>) return "int";
    else if constexpr (std::is_same_v<U, unsigned>) return "unsigned";
    else return "element";
}

// `Site` is a lambda's type, unique to each declaration (and each template
// instantiation around it), so two arrays of one type never share storage.
template <class A, class Site> A& shared_variable(const char* name, Site, size_t align = 0) {
    using Elem = std::remove_cv_t<std::remove_all_extents_t<A>>;
    static A* const p = static_cast<A*>(claim_shared(name, sizeof(A), align > alignof(A) ? align : alignof(A),
                                                     sizeof(Elem), element_type_name<Elem>()));
    return *p;
}
template <class T> T* dynamic_shared_as() { return static_cast<T*>(dynamic_shared(sizeof(T))); }

// ---------------------------------------------------------------- atomics
// CUDA's atomic functions: real atomics, counted once each, never races.
enum class AtomicOp : uint8_t { Add, Sub, Exch, Min, Max, Inc, Dec, Cas, And, Or, Xor };
// `line`: the learner's line of the call (the wrappers pass __builtin_LINE()
// from their call site; -g1 has no inline frames to find it from the address).
int atomic_i32(int* p, AtomicOp op, int value, int compare, int line = 0);
unsigned atomic_u32(unsigned* p, AtomicOp op, unsigned value, unsigned compare, int line = 0);
unsigned long long atomic_u64(unsigned long long* p, AtomicOp op, unsigned long long value, unsigned long long compare, int line = 0);
float atomic_f32(float* p, AtomicOp op, float value, int line = 0);
double atomic_f64(double* p, AtomicOp op, double value, int line = 0);

// ---------------------------------------------------------------- library rules
// A fault a device library raises for a rule the GPU enforces (wmma: all 32
// lanes at one call, 32-byte aligned pointers): the function, the rule's
// code (`detail`), the offending value, the element type and the learner's line.
[[noreturn]] void library_fault(FaultKind kind, const char* function, const char* detail, int64_t value, const char* type,
                                int line);

// ---------------------------------------------------------------- launch bounds
// `__launch_bounds__(max_threads[, min_blocks[, max_cluster]])` on a kernel:
// attnlab's rewrite calls this as the first statement of the kernel's body
// (cuda_source.cpp). A launch with more threads per block than `max_threads`
// is refused before any statement of the kernel runs, as a GPU refuses it
// (cudaErrorLaunchOutOfResources); `line` is the kernel's.
void launch_bounds(long long max_threads, long long min_blocks = 0, long long max_cluster = 0, int line = __builtin_LINE());

// ---------------------------------------------------------------- asynchronous copies
// cp.async as <cuda_pipeline.h> spells it (__pipeline_memcpy_async, and
// cooperative groups' memcpy_async on top): `bytes` (4, 8 or 16) from global
// to shared memory, the last `zero_fill` of them zeros. The source is read at
// the call; the data lands in the destination only at the copying thread's
// wait for its commit group, and until then any read or write of those bytes
// is a race named for the copy (racecheck). `line`: the learner's call.
void async_copy(void* dst, const void* src, size_t bytes, size_t zero_fill, int line);
void async_commit();
// Every committed group but the `newest` latest ones lands.
void async_wait_prior(size_t newest);

// ---------------------------------------------------------------- asserts
// A failed device assert(): a fault of the running kernel.
[[noreturn]] void device_assert_failed(const char* assertion, unsigned line);
bool in_kernel();

}  // namespace attnlab::emu::raw
