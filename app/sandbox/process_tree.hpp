#pragma once
// The sandbox's view of the processes below it, read from /proc.
#include <sys/types.h>

#include <cstddef>
#include <vector>

namespace attnlab::sandbox {

// Direct children of this process (as a child subreaper, every orphaned
// descendant becomes one of them sooner or later).
std::vector<pid_t> direct_children();

// Threads of every process whose real uid is `uid` (RLIMIT_NPROC counts threads).
size_t count_user_threads(uid_t uid);

// The resident memory of every process below this one, together (anonymous
// and shared memory, not the files they map): the whole run's memory where
// no cgroup counts it.
long descendants_rss_kb();

// Kills and reaps every descendant, starting with process group `group`.
// Bounded: each round kills all current children; their own children are
// re-parented to us for the next round.
void kill_all_descendants(pid_t group);

}  // namespace attnlab::sandbox
