#pragma once
// The learner program's end of the result channel (fd 3, wire.hpp), which
// only attnlab's harness may write.
//
// The learner's code runs in this process, so "only the harness" is made by
// construction, not by trust:
//  - the harness writes with its own `syscall` instruction (no libc call a
//    learner's `write` could replace: the object check refuses such a
//    definition anyway, learner_object.hpp);
//  - before any of the learner's code runs (a .preinit_array entry; the
//    object check refuses learner code that would run earlier), a seccomp
//    filter makes every call that could put bytes on the channel fail unless
//    it comes from that one instruction: write, writev, send*, splice,
//    sendfile, copy_file_range on fd 3 from anywhere else; dup/dup2/dup3 and
//    fcntl(F_DUPFD) of fd 3; io_submit; execve. The channel is a socket, so
//    /proc/self/fd/3 cannot be opened again, and the sandbox's filter refuses
//    new sockets (no SCM_RIGHTS copy of it) and pidfd_getfd.
// What this does not stop is code that jumps into the harness's instruction
// with registers of its choosing, or rewrites the harness's memory: that takes
// inline assembly or deliberate pointer games (README, "What a check trusts").
#include <cstddef>

namespace attnlab::channel {

// Whether the filter is in place (it is whenever the kernel allows seccomp
// filters: the Hello frame tells the parent, which refuses an unguarded
// channel where the sandbox's own filter was applied).
bool guarded();

// Writes all `size` bytes to the channel; ends the program (exit code 3) when
// the channel is gone.
void write_all(const char* data, size_t size);

}  // namespace attnlab::channel
