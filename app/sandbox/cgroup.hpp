#pragma once
// One cgroup v2 per run, so a run is accounted as a whole: the memory of all
// its processes together (memory.max, no swap), their number (pids.max), and
// the OOM killer acting inside it only. Made beside the sandbox's own cgroup
// where the hierarchy is delegated to us (root, or a systemd user manager's
// slice), else nowhere: main.cpp then falls back to per-process limits, the
// tree's memory sampled, and oom_score_adj.
#include <sys/types.h>

#include <string>

namespace attnlab::sandbox {

struct CgroupScope {
    std::string path;  // the cgroup's folder; "" when none could be made
    int error = 0;     // why not (an errno; ENOENT: no cgroup v2 with memory here)
    bool has_pids = false;
};

// Makes the cgroup for this run (named after our pid). memory_mb <= 0 and
// max_pids <= 0 leave those unlimited.
CgroupScope create_scope(long memory_mb, long max_pids);
// Moves process `pid` into it; false (errno set) when the kernel refuses.
bool move_into_scope(const CgroupScope& scope, pid_t pid);
// Kills whatever is still in it (cgroup.kill where the kernel has it).
void kill_scope(const CgroupScope& scope);

struct ScopeUsage {
    long oom_kills = 0;  // processes the OOM killer ended inside it
    long peak_kb = 0;    // memory.peak, 0 when the kernel has none
};
// After every process in it is gone: what it counted, then it is removed.
ScopeUsage end_scope(const CgroupScope& scope);

// Where a run's cgroup would go, for `attnlab doctor` ("" with the errno when nowhere).
std::string scope_parent(int* error);

}  // namespace attnlab::sandbox
