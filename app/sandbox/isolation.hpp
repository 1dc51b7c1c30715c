#pragma once
// The namespaces around a learner program (and the compiler). Each layer is
// tried on its own and reported, with its errno, in attnlab::sandbox_status;
// main.cpp refuses to start the program when a wanted layer is missing,
// unless the caller passed the user's opt-in (--allow-missing-layers).
#include <sys/types.h>

#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "options.hpp"

namespace attnlab::sandbox {

using sandbox_status::Layer;
using sandbox_status::LayerReport;
using sandbox_status::Protections;

// Who the program runs as: started by root, with --isolate, the unprivileged
// "nobody" (its inputs are bound or copied into its private root, so it needs
// no right on attnlab's own files); otherwise the caller's own ids (an
// ordinary user, mapped to itself in a user namespace).
struct ProgramIdentity {
    uid_t uid;
    gid_t gid;
};
ProgramIdentity unprivileged_identity();

// Which layers the caller asked for, after the ATTNLAB_NO_* switches (wanted
// layers start as "refused, errno 0" until they are applied).
void mark_wanted(const Options& o, Protections& p);
bool layer_pending(const Protections& p, Layer l);

// In the sandbox, before it forks: a user namespace when not root (needed
// for every other namespace), then a PID namespace for the children to come.
// Sets the PidNamespace layer, and marks the layers that need the user
// namespace as refused when it is.
void enter_user_and_pid_namespaces(const Options& o, Protections& p);

// In the process that will become (or start) the program, after the fork:
// new network, IPC and UTS namespaces, then a private mount namespace whose
// root holds only read-only system paths, /dev/null, /dev/zero, /dev/urandom,
// the program's inputs under /input (unless --no-input-map), the --bind and
// --bind-rw paths at their own places, and a size-limited /scratch. `argv`
// entries naming bound inputs are rewritten to their paths inside.
void enter_namespaces(const Options& o, const ProgramIdentity& program, std::vector<char*>& argv, Protections& p);

// The working directory, HOME and TMPDIR of the program inside its private root.
constexpr const char* kScratchDir = "/scratch";

// Without a private root (a refused layer the user allowed to be missing),
// a program that runs as another user still needs its inputs: they are
// copied into `dir` (made here, readable to it, with a scratch folder of its
// own), and `argv` is rewritten to match. Returns 0 or an errno.
int stage_inputs_on_host(const std::string& dir, const ProgramIdentity& who, std::vector<char*>& argv);

// Removes a folder tree without following links (the staged inputs).
void remove_tree(const std::string& dir);

// --bind-rw folders are handed to the program's user for the run and back to
// ours after it (every file in them, links not followed).
void hand_over_writable(const Options& o, const ProgramIdentity& who);
void take_back_writable(const Options& o, const ProgramIdentity& who);

}  // namespace attnlab::sandbox
