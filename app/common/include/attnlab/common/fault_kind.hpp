#pragma once
// What stopped a launch, named as compute-sanitizer's tools name it (their
// words: launch_report.hpp's sanitizer_tool). Its own header because learner
// files' device libraries (wmma's rules in <mma.h>) raise faults too, and a
// learner's compile should not pay for the launch report's strings.
namespace attnlab::emu {

enum class FaultKind {
    None,
    BarrierDivergence,   // synccheck: __syncthreads not reached by every thread of the block
    WarpDivergence,      // synccheck: a warp operation waits for lanes that never arrive
    OutOfBounds,         // memcheck
    SharedRace,          // racecheck
    UninitializedRead,   // initcheck
    InvalidLaunch,       // bad grid/block/shared size (cudaErrorInvalidConfiguration)
    StepLimit,           // a thread ran past the launch's step budget (a likely endless loop)
    KernelException,     // a C++ exception escaped the kernel body on the host
    GlobalRace,          // two threads of one launch touch one global address, one writes, neither atomically
    MisalignedAddress,   // memcheck: an 8- or 16-byte access at an address not a multiple of its size
    DeviceAssert,        // assert() failed in a kernel (cudaErrorAssert on a GPU)
};
constexpr FaultKind kLastFaultKind = FaultKind::DeviceAssert;

}  // namespace attnlab::emu
