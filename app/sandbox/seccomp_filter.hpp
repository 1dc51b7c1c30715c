#pragma once
// The seccomp filter around learner programs: system calls no exercise needs
// fail with EPERM (the program sees an ordinary error and the check gives its
// normal verdict) instead of killing the program.
namespace attnlab::sandbox {

// Sockets: none at all (no exercise talks to anything: the result channel is
// handed over ready-made), or Unix ones only (a GPU driver's daemons).
enum class SocketFamilies { None, UnixOnly };

// Installs the filter on the calling thread (inherited by exec and children).
// Returns 0, or the errno that says why the kernel refused (ENOSYS: this
// architecture has no filter).
int install_seccomp_filter(SocketFamilies sockets);

}  // namespace attnlab::sandbox
