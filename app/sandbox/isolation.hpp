#pragma once
// The namespaces around a learner program. Each layer is tried on its own;
// when the kernel (or a container) refuses one, the program still runs and
// the refusal is reported, with its errno, in attnlab::sandbox_status.
#include <sys/types.h>

#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "options.hpp"

namespace attnlab::sandbox {

using sandbox_status::Layer;
using sandbox_status::LayerReport;
using sandbox_status::Protections;

// Who the program runs as: as root, with the mount layer in place, the
// unprivileged "nobody" (its inputs are bound into its private root, so it
// needs no right on attnlab's own files); otherwise the caller's own ids.
struct ProgramIdentity {
    uid_t uid;
    gid_t gid;
};
ProgramIdentity unprivileged_identity();

// In the sandbox, before it forks: a user namespace when not root (needed
// for every other namespace), then a PID namespace for the children to come.
// Sets the PidNamespace layer, and marks the layers that need the user
// namespace as refused when it is.
void enter_user_and_pid_namespaces(const Options& o, Protections& p);

// In the process that will become (or start) the program, after the fork:
// a private mount namespace whose root holds only read-only system paths,
// /dev/null, /dev/zero, /dev/urandom, the program's inputs under /input and
// a size-limited /scratch; then an empty network namespace. `argv` entries
// naming bound inputs are rewritten to their paths inside. Sets the
// MountNamespace and NetworkNamespace layers.
void enter_private_root(const Options& o, const ProgramIdentity& program, std::vector<char*>& argv, Protections& p);

// The working directory and TMPDIR of the program inside its private root.
constexpr const char* kScratchDir = "/scratch";

}  // namespace attnlab::sandbox
