#pragma once
// attnlab's CPU emulator of the CUDA execution model.
//
// A kernel written for nvcc compiles with the host compiler against this
// header (through kernels/attention/cuda_compat.cuh) and runs on the CPU:
//   * every CUDA thread is a boost.context fiber; the fibers of one block run
//     on one OS thread and switch only at __syncthreads and warp operations
//     (__shfl_*_sync, __syncwarp, votes), so a block is cooperative and exact;
//   * blocks of a grid run in parallel on a small pool of OS threads;
//   * global memory is a DeviceBuffer<T>; kernels take DevicePtr<T> (checked:
//     bounds, initialisation, per-warp sector counting);
//   * static shared memory is `__shared__ shared<float[64]> tile;` (the alias
//     shared<T> is T itself under nvcc), dynamic shared memory is
//     ATTNLAB_DYNAMIC_SHARED(float, smem);
//
// Why `__shared__` is `static thread_local` here: a block's fibers all run on
// one OS thread and that thread runs one block at a time, so a function-local
// `static thread_local` object is exactly one copy per running block, shared
// by its threads and never seen by another block running in parallel. A plain
// `__shared__ float tile[64];` therefore compiles and behaves correctly (but
// unchecked). The checked shared<...> types additionally reset per block (a
// block serial in their shadow makes a new block see "never written"), detect
// races and count bank conflicts; their storage and shadow live on the heap,
// allocated once per worker thread and declaration site.
//
// Faults stop the launch: the faulting fiber stops where it stands (it is never
// resumed and never unwound: no exception passes through the learner's
// frames), the scheduler takes back the stacks of the block's other fibers
// without unwinding them either, and the other blocks stop at their next
// scheduling point. Nothing escapes launch(): the result is a LaunchReport
// (attnlab/common/launch_report.hpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#include <algorithm>
#include <atomic>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/emu/access_log.hpp"
#include "attnlab/emu/launch.hpp"

#include "attnlab/emu_device.hpp"

#define __shared__ static thread_local

// Every checked access goes through load()/store(): inlined, they cost a few
// nanoseconds; fault paths stay out of line.
#define ATTNLAB_EMU_HOT __attribute__((always_inline)) inline

namespace attnlab::emu {

// Host code touched device memory where a learner program forbids it.
struct HostAccessError : std::logic_error {
    using std::logic_error::logic_error;
};

// An index into a checked buffer that remembers the source line it was
// written on (GCC/Clang's __builtin_LINE in a default argument is evaluated
// at the call site, also for an implicit conversion).
struct Index {
    int64_t value;
    int line;
    Index(long long v, int line_ = __builtin_LINE()) : value(v), line(line_) {}
};

template <class T> constexpr const char* type_name() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>) return "float";
    else if constexpr (std::is_same_v<U, double>) return "double";
    else if constexpr (std::is_same_v<U, int>) return "int";
    else if constexpr (std::is_same_v<U, unsigned>) return "unsigned";
    else if constexpr (std::is_same_v<U, long long>) return "long long";
    else if constexpr (std::is_same_v<U, unsigned long long>) return "unsigned long long";
    else return "element";
}

namespace detail {

// Where a thread is in its block: the serial of the running block and the id
// of the current barrier interval. Both come from one counter per OS thread
// that only grows, so shadow state from an earlier block or interval never
// matches (no clearing needed between blocks).
struct BlockClock {
    uint32_t block_serial = 0;
    uint32_t interval = 0;
    uint32_t block_id = 0;  // unique over every OS thread: which block loaded a global granule
};
// The next block_id (process-wide, so blocks on different OS threads differ).
inline std::atomic<uint32_t> next_block_id{0};
inline thread_local BlockClock clock;

// The emulated thread now running on this OS thread (nullptr outside kernels).
struct ThreadState {
    dim3 idx{0, 0, 0};
    unsigned linear = 0, lane = 0, warp = 0;
    const uint32_t* warp_sync = nullptr;  // bumps at each __syncwarp of this thread's warp
    bool checks = true, counters = true;
    uint64_t steps = 0, step_limit = 0;
    int64_t bytes_read = 0, bytes_written = 0, atomics = 0;
    int64_t reloaded_bytes = 0;  // global bytes its block had already loaded
    // Per barrier interval: one entry per access, in program order.
    std::vector<uint64_t> global_loads, global_stores;  // log_entry(line, absolute 32-byte sector)
    std::vector<uint64_t> shared_loads, shared_stores;  // log_entry(line, absolute 4-byte word)
    std::vector<AccessEvent>* trace = nullptr;           // set only in the traced block
    unsigned interval_index = 0;
    unsigned trace_k[4] = {0, 0, 0, 0};
};
inline thread_local ThreadState* current_thread = nullptr;

// Storage of one DeviceBuffer: 256-byte aligned like cudaMalloc, plus one
// "written" flag per element for initcheck.
struct BufferStorage {
    std::string name;
    const char* type = "element";
    size_t count = 0, elem_size = 0;
    unsigned char* data = nullptr;
    std::unique_ptr<std::atomic<uint8_t>[]> written;
    BufferStorage(std::string n, const char* t, size_t c, size_t es);
    ~BufferStorage();
    BufferStorage(const BufferStorage&) = delete;
    BufferStorage& operator=(const BufferStorage&) = delete;
};

// Race / init shadow of one shared-memory element.
struct Shadow {
    uint32_t written_in_block = 0;  // block serial of the last write
    uint32_t interval = 0;          // interval the fields below belong to
    int32_t writer = -1, writer_line = 0;
    // Readers of this barrier interval. A write races with a read by another
    // warp (warps_read: bit w = warp w read; a block has at most 32 warps),
    // and with a read by another lane of its own warp unless a __syncwarp
    // came between. Once two warps have read, every write races, so the
    // slots only need: the latest reader, the latest other lane of its warp
    // (for a write by the latest reader itself), and the latest reader of
    // another warp (to name in the report).
    uint32_t warps_read = 0;
    int32_t reader = -1, reader_line = 0;    // the latest reader
    int32_t reader2 = -1, reader2_line = 0;  // the latest other reader in reader's warp
    int32_t other_warp_reader = -1, other_warp_reader_line = 0;  // the latest reader of another warp
    uint32_t writer_sync = 0, reader_sync = 0, reader2_sync = 0;  // their warp's __syncwarp count then
};

// Did `other` touch the element without a barrier between it and `ts`? A
// __syncwarp of their common warp since then also orders the two accesses.
inline bool unordered(int other, uint32_t other_sync, const ThreadState& ts) {
    if (other < 0 || other == static_cast<int>(ts.linear)) return false;
    if (static_cast<unsigned>(other) / 32 == ts.warp && *ts.warp_sync != other_sync) return false;
    return true;
}

struct SharedRegion {
    unsigned char* data = nullptr;
    Shadow* shadow = nullptr;
    int64_t count = 0;              // elements of elem_size
    size_t elem_size = 0;
    const char* type = "element";
    const char* name = "shared array";
};

// Fault reporters: record the fault for the launch and unwind the fiber.
[[noreturn]] void fault_access(FaultKind kind, MemorySpace space, bool write, const std::string& buffer,
                               int64_t index, int64_t size, const char* type, int line);
[[noreturn]] void fault_race(const SharedRegion& r, int64_t index, bool write, int other_thread,
                             bool other_write, int other_line, int line);
[[noreturn]] void fault_step_limit(int line);
void note_unwritten_shared_read(const SharedRegion& r, int64_t index, int line);
// A load or store through a null DevicePtr: memcheck in a kernel, an
// exception in host code.
[[noreturn]] void null_access(bool write, int line);
void trace_access(ThreadState& ts, MemorySpace space, bool write, const char* buffer, int64_t index,
                  uint64_t sector, int line);

// The log entries of ThreadState's access logs: attnlab/emu/access_log.hpp.


// Between the scheduler and the raw-pointer checks (raw_access.cpp).
[[noreturn]] void raise_fault(Fault f);          // stop the running thread's launch with f (the thread is never resumed)
// A race whose write sits on an earlier line than its read with a barrier
// the block passed between them: the write belongs to the next round of a
// loop (a barrier is missing at the end of the loop body).
bool loop_wraparound(bool write, bool other_write, int line, int other_line);
}  // namespace detail
namespace raw {
// Lines of raw-pointer accesses that a kernel could not look up on its own
// stack (negative in the report until then): looked up after the launch.
void resolve_lines(LaunchReport& report);
}  // namespace raw
namespace detail {
// The running launch on this OS thread, as the checks of every access ask it
// (inline: a call per access into the scheduler's file cost more than the answer).
struct RunningLaunch {
    uint64_t dynamic_shared_bytes = 0;  // its dynamic shared memory
    uint32_t first_epoch = 0;           // epochs before it belong to earlier launches
};
inline thread_local RunningLaunch running_launch;
inline uint64_t running_dynamic_shared_bytes() { return running_launch.dynamic_shared_bytes; }
inline uint32_t running_launch_first_epoch() { return running_launch.first_epoch; }
bool block_of_epoch(uint32_t epoch, Dim3& block); // which block of the running launch an epoch was in
Dim3 thread_of_linear(unsigned linear);           // a linear thread id of the running block as (x, y, z)

inline void count_step(ThreadState& ts, int line) {
    if (++ts.steps > ts.step_limit) fault_step_limit(line);
}

// Outside a kernel (host code touching a DevicePtr), accesses are allowed
// but unchecked apart from bounds, which throw std::out_of_range.
void host_bounds_check(const BufferStorage& s, int64_t e);
// A learner program refuses what a GPU cannot do: host code reading or writing
// device memory through a device pointer (throws HostAccessError). attnlab's
// own tests and tools keep the default (allowed, bounds-checked).
void refuse_host_access(bool refuse);

// block_barrier, warp_op: declared in attnlab/emu_device.hpp.
SharedRegion* dynamic_shared_region(size_t elem_size, const char* type);

template <class T> struct identity { using type = T; };
template <class T> using identity_t = typename identity<T>::type;

}  // namespace detail

// ------------------------------------------------------------ global memory

template <class T> class DevicePtr;

// One element of global memory seen through a DevicePtr: reads and writes are
// checked and counted when they happen (not when the index is formed).
template <class T> class GlobalRef {
public:
    using Elem = std::remove_const_t<T>;
    GlobalRef(detail::BufferStorage* s, int64_t e, int line) : s_(s), e_(e), line_(line) {}
    GlobalRef(const GlobalRef&) = default;

    ATTNLAB_EMU_HOT Elem load() const {
        detail::ThreadState* ts = detail::current_thread;
        if (!s_) detail::null_access(false, line_);
        if (!ts) { detail::host_bounds_check(*s_, e_); return elem(); }
        if (static_cast<uint64_t>(e_) >= s_->count) fault(FaultKind::OutOfBounds, false);
        if (ts->checks && !s_->written[e_].load(std::memory_order_relaxed))
            fault(FaultKind::UninitializedRead, false);
        detail::count_step(*ts, line_);
        ts->bytes_read += sizeof(Elem);
        if (ts->counters) ts->global_loads.push_back(detail::log_entry(line_, address() >> 5));
        if (ts->trace) trace(*ts, false);
        return elem();
    }
    ATTNLAB_EMU_HOT void store(Elem v) const {
        static_assert(!std::is_const_v<T>, "store through a pointer to const");
        detail::ThreadState* ts = detail::current_thread;
        if (!s_) detail::null_access(true, line_);
        if (!ts) { detail::host_bounds_check(*s_, e_); } else {
            if (static_cast<uint64_t>(e_) >= s_->count) fault(FaultKind::OutOfBounds, true);
            detail::count_step(*ts, line_);
            ts->bytes_written += sizeof(Elem);
            if (ts->counters) ts->global_stores.push_back(detail::log_entry(line_, address() >> 5));
            if (ts->trace) trace(*ts, true);
        }
        std::memcpy(s_->data + e_ * sizeof(Elem), &v, sizeof(Elem));
        s_->written[e_].store(1, std::memory_order_relaxed);
    }

    ATTNLAB_EMU_HOT operator Elem() const { return load(); }
    ATTNLAB_EMU_HOT GlobalRef& operator=(Elem v) { store(v); return *this; }
    GlobalRef& operator=(const GlobalRef& o) { store(o.load()); return *this; }
    template <class U> GlobalRef& operator=(const GlobalRef<U>& o) { store(o.load()); return *this; }
    GlobalRef& operator+=(Elem v) { store(load() + v); return *this; }
    GlobalRef& operator-=(Elem v) { store(load() - v); return *this; }
    GlobalRef& operator*=(Elem v) { store(load() * v); return *this; }
    GlobalRef& operator/=(Elem v) { store(load() / v); return *this; }
    DevicePtr<T> operator&() const { return DevicePtr<T>(s_, e_); }

    detail::BufferStorage* storage() const { return s_; }
    int64_t element() const { return e_; }
    int line() const { return line_; }

private:
    Elem elem() const { Elem v; std::memcpy(&v, s_->data + e_ * sizeof(Elem), sizeof(Elem)); return v; }
    uint64_t address() const { return reinterpret_cast<uint64_t>(s_->data) + e_ * sizeof(Elem); }
    [[noreturn]] void fault(FaultKind kind, bool write) const {
        detail::fault_access(kind, MemorySpace::Global, write, s_->name, e_,
                             static_cast<int64_t>(s_->count), s_->type, line_);
    }
    void trace(detail::ThreadState& ts, bool write) const {
        detail::trace_access(ts, MemorySpace::Global, write, s_->name.c_str(), e_,
                             (e_ * sizeof(Elem)) >> 5, line_);
    }
    detail::BufferStorage* s_;
    int64_t e_;
    int line_;
};

// A checked device pointer: a buffer plus an element offset. Arithmetic is
// free; the bounds are checked at each access, against the whole buffer.
template <class T> class DevicePtr {
public:
    using Elem = std::remove_const_t<T>;
    DevicePtr() = default;
    DevicePtr(std::nullptr_t) {}
    DevicePtr(detail::BufferStorage* s, int64_t offset) : s_(s), off_(offset) {}
    template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
    DevicePtr(const DevicePtr<U>& o) : s_(o.storage()), off_(o.offset()) {}

    GlobalRef<T> operator[](Index i) const { return GlobalRef<T>(s_, off_ + i.value, i.line); }
    GlobalRef<T> operator*() const { return GlobalRef<T>(s_, off_, 0); }
    DevicePtr operator+(int64_t i) const { return DevicePtr(s_, off_ + i); }
    DevicePtr operator-(int64_t i) const { return DevicePtr(s_, off_ - i); }
    friend DevicePtr operator+(int64_t i, const DevicePtr& p) { return p + i; }
    DevicePtr& operator+=(int64_t i) { off_ += i; return *this; }
    DevicePtr& operator-=(int64_t i) { off_ -= i; return *this; }
    DevicePtr& operator++() { ++off_; return *this; }
    explicit operator bool() const { return s_ != nullptr; }
    bool operator==(const DevicePtr& o) const { return s_ == o.s_ && off_ == o.off_; }
    bool operator!=(const DevicePtr& o) const { return !(*this == o); }

    detail::BufferStorage* storage() const { return s_; }
    int64_t offset() const { return off_; }

private:
    detail::BufferStorage* s_ = nullptr;
    int64_t off_ = 0;
};

// Device memory owned by host code (cudaMalloc + cudaMemcpy in one object).
// A new buffer holds NaN-like garbage and counts as never written.
template <class T> class DeviceBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold plain values");
public:
    DeviceBuffer() = default;
    DeviceBuffer(std::string name, size_t count)
        : s_(std::make_shared<detail::BufferStorage>(std::move(name), type_name<T>(), count, sizeof(T))) {}
    static DeviceBuffer from_host(std::string name, const std::vector<T>& values) {
        DeviceBuffer b(std::move(name), values.size());
        b.upload(values);
        return b;
    }
    void upload(const std::vector<T>& values) {  // cudaMemcpy host -> device (same size)
        const size_t n = std::min(values.size(), size());
        if (n) std::memcpy(s_->data, values.data(), n * sizeof(T));
        for (size_t i = 0; i < n; ++i) s_->written[i].store(1, std::memory_order_relaxed);
    }
    void fill(T value) {  // cudaMemset-like: every element written
        for (size_t i = 0; i < size(); ++i) {
            std::memcpy(s_->data + i * sizeof(T), &value, sizeof(T));
            s_->written[i].store(1, std::memory_order_relaxed);
        }
    }
    std::vector<T> download() const {  // cudaMemcpy device -> host
        std::vector<T> out(size());
        if (!out.empty()) std::memcpy(out.data(), s_->data, out.size() * sizeof(T));
        return out;
    }
    bool written(size_t i) const { return s_->written[i].load(std::memory_order_relaxed) != 0; }
    DevicePtr<T> ptr() const { return DevicePtr<T>(s_.get(), 0); }
    size_t size() const { return s_ ? s_->count : 0; }
    const std::string& name() const { return s_->name; }

private:
    std::shared_ptr<detail::BufferStorage> s_;
};

// ------------------------------------------------------------ shared memory

template <class T> class SharedPtr;

template <class T> class SharedRef {
public:
    using Elem = std::remove_const_t<T>;
    SharedRef(detail::SharedRegion* r, int64_t e, int line) : r_(r), e_(e), line_(line) {}
    SharedRef(const SharedRef&) = default;

    ATTNLAB_EMU_HOT Elem load() const {
        detail::ThreadState* ts = detail::current_thread;
        check_bounds(ts, false);
        if (ts) {
            detail::count_step(*ts, line_);
            if (ts->checks) check_read(*ts);
            if (ts->counters) ts->shared_loads.push_back(detail::log_entry(line_, address() >> 2));
            if (ts->trace) trace(*ts, false);
        }
        Elem v;
        std::memcpy(&v, ptr(), sizeof(Elem));
        return v;
    }
    ATTNLAB_EMU_HOT void store(Elem v) const {
        static_assert(!std::is_const_v<T>, "store through a pointer to const");
        detail::ThreadState* ts = detail::current_thread;
        check_bounds(ts, true);
        if (ts) {
            detail::count_step(*ts, line_);
            if (ts->checks) check_write(*ts);
            if (ts->counters) ts->shared_stores.push_back(detail::log_entry(line_, address() >> 2));
            if (ts->trace) trace(*ts, true);
        }
        r_->shadow[e_].written_in_block = detail::clock.block_serial;
        std::memcpy(ptr(), &v, sizeof(Elem));
    }

    ATTNLAB_EMU_HOT operator Elem() const { return load(); }
    ATTNLAB_EMU_HOT SharedRef& operator=(Elem v) { store(v); return *this; }
    SharedRef& operator=(const SharedRef& o) { store(o.load()); return *this; }
    template <class U> SharedRef& operator=(const SharedRef<U>& o) { store(o.load()); return *this; }
    SharedRef& operator+=(Elem v) { store(load() + v); return *this; }
    SharedRef& operator-=(Elem v) { store(load() - v); return *this; }
    SharedRef& operator*=(Elem v) { store(load() * v); return *this; }
    SharedRef& operator/=(Elem v) { store(load() / v); return *this; }
    SharedPtr<T> operator&() const { return SharedPtr<T>(r_, e_); }

    detail::SharedRegion* region() const { return r_; }
    int64_t element() const { return e_; }
    int line() const { return line_; }
    unsigned char* ptr() const { return r_->data + e_ * r_->elem_size; }
    void check_bounds(detail::ThreadState* ts, bool write) const {
        if (!r_) detail::null_access(write, line_);
        if (static_cast<uint64_t>(e_) < static_cast<uint64_t>(r_->count)) return;
        if (!ts) throw std::out_of_range("shared memory index out of range");
        detail::fault_access(FaultKind::OutOfBounds, MemorySpace::Shared, write, r_->name, e_,
                             r_->count, r_->type, line_);
    }

private:
    uint64_t address() const { return reinterpret_cast<uint64_t>(ptr()); }
    detail::Shadow& fresh_shadow() const {
        detail::Shadow& sh = r_->shadow[e_];
        if (sh.interval != detail::clock.interval) {
            sh.interval = detail::clock.interval;
            sh.writer = sh.reader = sh.reader2 = sh.other_warp_reader = -1;
            sh.warps_read = 0;
        }
        return sh;
    }
    void check_read(detail::ThreadState& ts) const {
        detail::Shadow& sh = r_->shadow[e_];
        fresh_shadow();
        // Read before any write in this block: if another thread writes it
        // before the next barrier, that write reports the race; otherwise the
        // barrier (or the block's end) reports the uninitialised read.
        if (sh.written_in_block != detail::clock.block_serial) detail::note_unwritten_shared_read(*r_, e_, line_);
        const int me = static_cast<int>(ts.linear);
        if (detail::unordered(sh.writer, sh.writer_sync, ts))
            detail::fault_race(*r_, e_, false, sh.writer, true, sh.writer_line, line_);
        sh.warps_read |= 1u << (ts.warp & 31);
        if (sh.reader >= 0 && sh.reader != me) {
            if (static_cast<unsigned>(sh.reader) / 32 == ts.warp) {
                sh.reader2 = sh.reader; sh.reader2_line = sh.reader_line; sh.reader2_sync = sh.reader_sync;
            } else {  // another warp: reader2 would be of the wrong warp
                sh.other_warp_reader = sh.reader; sh.other_warp_reader_line = sh.reader_line;
                sh.reader2 = -1;
            }
        }
        sh.reader = me; sh.reader_line = line_; sh.reader_sync = *ts.warp_sync;
    }
    void check_write(detail::ThreadState& ts) const {
        detail::Shadow& sh = fresh_shadow();
        if (detail::unordered(sh.writer, sh.writer_sync, ts))
            detail::fault_race(*r_, e_, true, sh.writer, true, sh.writer_line, line_);
        if (sh.warps_read & ~(1u << (ts.warp & 31))) {  // another warp read it
            const bool latest_is_other = sh.reader >= 0 && static_cast<unsigned>(sh.reader) / 32 != ts.warp;
            detail::fault_race(*r_, e_, true, latest_is_other ? sh.reader : sh.other_warp_reader, false,
                               latest_is_other ? sh.reader_line : sh.other_warp_reader_line, line_);
        }
        // Only this warp read it: the latest reading lane other than this one.
        const bool latest_is_me = sh.reader == static_cast<int>(ts.linear);
        if (!latest_is_me && detail::unordered(sh.reader, sh.reader_sync, ts))
            detail::fault_race(*r_, e_, true, sh.reader, false, sh.reader_line, line_);
        if (latest_is_me && detail::unordered(sh.reader2, sh.reader2_sync, ts))
            detail::fault_race(*r_, e_, true, sh.reader2, false, sh.reader2_line, line_);
        sh.writer = static_cast<int>(ts.linear);
        sh.writer_line = line_;
        sh.writer_sync = *ts.warp_sync;
    }
    void trace(detail::ThreadState& ts, bool write) const {
        // The array's name (a learner's `__shared__ float tile[..]` is named "tile"), so views tell arrays apart.
        detail::trace_access(ts, MemorySpace::Shared, write, r_->name, e_, (address() >> 2) & 31, line_);
    }
    detail::SharedRegion* r_;
    int64_t e_;
    int line_;
};

template <class T> class SharedPtr {
public:
    SharedPtr() = default;
    SharedPtr(detail::SharedRegion* r, int64_t offset) : r_(r), off_(offset) {}
    template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
    SharedPtr(const SharedPtr<U>& o) : r_(o.region()), off_(o.offset()) {}

    SharedRef<T> operator[](Index i) const { return SharedRef<T>(r_, off_ + i.value, i.line); }
    SharedRef<T> operator*() const { return SharedRef<T>(r_, off_, 0); }
    SharedPtr operator+(int64_t i) const { return SharedPtr(r_, off_ + i); }
    SharedPtr operator-(int64_t i) const { return SharedPtr(r_, off_ - i); }
    SharedPtr& operator+=(int64_t i) { off_ += i; return *this; }
    explicit operator bool() const { return r_ != nullptr; }

    detail::SharedRegion* region() const { return r_; }
    int64_t offset() const { return off_; }

private:
    detail::SharedRegion* r_ = nullptr;
    int64_t off_ = 0;
};

// One dimension of a (possibly multi-dimensional) static shared array:
// `extent` items of T (T may itself be an array) from flat element `flat`.
// Each subscript is checked against its own dimension, like the C array it
// stands for.
template <class T> class SharedSpan {
public:
    using Elem = std::remove_all_extents_t<T>;
    static constexpr int64_t inner = sizeof(T) / sizeof(Elem);
    SharedSpan(detail::SharedRegion* r, int64_t flat, int64_t extent) : r_(r), flat_(flat), extent_(extent) {}

    auto operator[](Index i) const {
        if (static_cast<uint64_t>(i.value) >= static_cast<uint64_t>(extent_)) {
            if (!detail::current_thread) throw std::out_of_range("shared array index out of range");
            detail::fault_access(FaultKind::OutOfBounds, MemorySpace::Shared, false, r_->name,
                                 i.value, extent_, r_->type, i.line);
        }
        if constexpr (std::is_array_v<T>)
            return SharedSpan<std::remove_extent_t<T>>(r_, flat_ + i.value * inner,
                                                       static_cast<int64_t>(std::extent_v<T>));
        else
            return SharedRef<T>(r_, flat_ + i.value, i.line);
    }
    operator SharedPtr<Elem>() const { return SharedPtr<Elem>(r_, flat_); }
    SharedPtr<Elem> operator+(int64_t i) const { return SharedPtr<Elem>(r_, flat_ + i * inner); }

private:
    detail::SharedRegion* r_;
    int64_t flat_, extent_;
};

// `__shared__ shared<float[32][33]> tile;` on the host: storage and shadow on
// the heap, 128-byte aligned so bank numbers match a GPU's layout.
template <class A> class SharedArray {
    static_assert(std::is_array_v<A> && std::extent_v<A> > 0, "shared<T[N]> needs an array type");
public:
    using Elem = std::remove_all_extents_t<A>;
    static constexpr int64_t total = sizeof(A) / sizeof(Elem);

    SharedArray() : storage_(static_cast<unsigned char*>(::operator new(sizeof(A), std::align_val_t(128)))),
                    shadow_(new detail::Shadow[total]) {
        std::memset(storage_, 0xff, sizeof(A));
        region_.data = storage_;
        region_.shadow = shadow_.get();
        region_.count = total;
        region_.elem_size = sizeof(Elem);
        region_.type = type_name<Elem>();
    }
    // Named, so faults say "shared array 'tile'" (attnlab's rewrite of a
    // learner's `__shared__ float tile[N];` passes the name).
    explicit SharedArray(const char* name) : SharedArray() { region_.name = name; }
    ~SharedArray() { ::operator delete(storage_, std::align_val_t(128)); }
    SharedArray(const SharedArray&) = delete;
    SharedArray& operator=(const SharedArray&) = delete;

    auto operator[](Index i) {
        return SharedSpan<std::remove_extent_t<A>>(&region_, 0, static_cast<int64_t>(std::extent_v<A>))[i];
    }
    operator SharedPtr<Elem>() { return SharedPtr<Elem>(&region_, 0); }
    SharedPtr<Elem> operator+(int64_t i) { return SharedPtr<Elem>(&region_, 0) + i; }

private:
    unsigned char* storage_;
    std::unique_ptr<detail::Shadow[]> shadow_;
    detail::SharedRegion region_;
};

template <class A> using shared = SharedArray<A>;

// The block's dynamic shared memory (the launch's `smem` bytes) seen as T.
template <class T> SharedPtr<T> dynamic_shared(const char* name = nullptr) {
    detail::SharedRegion* region = detail::dynamic_shared_region(sizeof(T), type_name<T>());
    if (name && region) region->name = name;
    return SharedPtr<T>(region, 0);
}


}  // namespace attnlab::emu

// ---------------------------------------------------------------- atomics
// Atomic read-modify-write on a checked element; real atomics, because blocks
// run on several OS threads. They are counted apart from loads and stores and
// take no part in race detection (atomics do not race).
namespace attnlab::emu::detail {
void global_atomic_begin(BufferStorage* s, int64_t e, const char* type, int line);
void shared_atomic_begin(SharedRegion* r, int64_t e, int line);

template <class T, class F> T atomic_rmw(T* p, F f) {
    T old;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    T desired = f(old);
    while (!__atomic_compare_exchange(p, &old, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        desired = f(old);
    return old;
}
template <class T, class F> T atomic_at(DevicePtr<T> p, int line, F f) {
    BufferStorage* s = p.storage();
    global_atomic_begin(s, p.offset(), type_name<T>(), line);
    T* addr = reinterpret_cast<T*>(s->data) + p.offset();
    const T old = atomic_rmw(addr, f);
    s->written[p.offset()].store(1, std::memory_order_relaxed);
    return old;
}
template <class T, class F> T atomic_at(SharedPtr<T> p, int line, F f) {
    SharedRegion* r = p.region();
    shared_atomic_begin(r, p.offset(), line);
    T* addr = reinterpret_cast<T*>(r->data) + p.offset();
    const T old = atomic_rmw(addr, f);
    r->shadow[p.offset()].written_in_block = clock.block_serial;
    return old;
}
}  // namespace attnlab::emu::detail

#define ATTNLAB_EMU_ATOMIC(NAME, EXPR)                                                             \
    template <class T>                                                                                \
    T NAME(attnlab::emu::DevicePtr<T> p, attnlab::emu::detail::identity_t<T> val,                     \
           int line = __builtin_LINE()) {                                                             \
        return attnlab::emu::detail::atomic_at(p, line, [val](T old) { return EXPR; });              \
    }                                                                                                 \
    template <class T>                                                                                \
    T NAME(attnlab::emu::SharedPtr<T> p, attnlab::emu::detail::identity_t<T> val,                     \
           int line = __builtin_LINE()) {                                                             \
        return attnlab::emu::detail::atomic_at(p, line, [val](T old) { return EXPR; });              \
    }
ATTNLAB_EMU_ATOMIC(atomicAdd, old + val)
ATTNLAB_EMU_ATOMIC(atomicSub, old - val)
ATTNLAB_EMU_ATOMIC(atomicExch, ((void)old, val))
ATTNLAB_EMU_ATOMIC(atomicMax, (old < val ? val : old))
ATTNLAB_EMU_ATOMIC(atomicMin, (val < old ? val : old))
#undef ATTNLAB_EMU_ATOMIC

template <class T>
T atomicCAS(attnlab::emu::DevicePtr<T> p, attnlab::emu::detail::identity_t<T> compare,
            attnlab::emu::detail::identity_t<T> val, int line = __builtin_LINE()) {
    return attnlab::emu::detail::atomic_at(p, line, [compare, val](T old) { return old == compare ? val : old; });
}
template <class T>
T atomicCAS(attnlab::emu::SharedPtr<T> p, attnlab::emu::detail::identity_t<T> compare,
            attnlab::emu::detail::identity_t<T> val, int line = __builtin_LINE()) {
    return attnlab::emu::detail::atomic_at(p, line, [compare, val](T old) { return old == compare ? val : old; });
}

// CUDA's integer min/max for attnlab's own kernels (the math intrinsics are in attnlab/emu_device.hpp).
using std::max;
using std::min;
// A read-only cached load on a GPU; the same checked load here.
template <class T> T __ldg(attnlab::emu::DevicePtr<const T> p, int line = __builtin_LINE()) {
    return p[attnlab::emu::Index(0, line)];
}
template <class T> T __ldg(attnlab::emu::DevicePtr<T> p, int line = __builtin_LINE()) {
    return p[attnlab::emu::Index(0, line)];
}
