#pragma once
// The limits of one sandboxed process, whatever it is: a learner program (an
// exercise's "limits" over learner_program()), the compiler, NVRTC, a doctor
// probe. The sandbox's arguments and the verdicts' figures ("over its 2 s of
// CPU") are read from the same struct, so they cannot disagree.

namespace attnlab {

// The most an exercise's "limits" may ask for a learner program: attnlab's
// own ceilings, so that no course can lift the sandbox's limits (a spinning
// solution still stops), and every figure stays far from overflowing when
// the sandbox turns it into bytes or microseconds. A course asking for more
// is refused when it loads (course.cpp), with the ceiling in the message.
struct LimitCeilings {
    static constexpr double cpu_seconds = 60;
    static constexpr double wall_seconds = 120;
    static constexpr long memory_mb = 8192;
    static constexpr long output_kb = 64 * 1024;
};

struct Limits {
    double cpu_seconds = 0;   // 0 = none
    double wall_seconds = 0;  // 0 = none
    long memory_mb = 0;       // 0 = none
    long output_kb = 0;       // stdout + stderr, counted by the parent; 0 = none (only what is captured is kept)
    long file_size_mb = 64;   // RLIMIT_FSIZE: any file the program writes (SIGXFSZ beyond)
    long process_margin = 0;  // > 0: pids.max of the run's cgroup, else RLIMIT_NPROC = what the user runs now + this (at most sandbox_status::kFallbackProcessMargin)
    // All the run's processes together, in its cgroup (or, without one,
    // sampled by the sandbox): 0 = memory_mb (+ 1 GiB for a GPU's driver
    // when the address space is not limited), < 0 = none.
    long total_memory_mb = 0;

    // A learner program's, before its exercise says otherwise: exercise.json
    // may set cpu_seconds, wall_seconds, memory_mb and output_kb; the scratch
    // file size and the fork-loop margin are attnlab's own.
    static Limits learner_program() {
        Limits l;
        l.cpu_seconds = 2;
        l.wall_seconds = 5;
        l.memory_mb = 512;
        l.output_kb = 256;
        l.file_size_mb = 16;
        l.process_margin = 256;
        return l;
    }
};

}  // namespace attnlab
