#include "channel_writer.hpp"

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "attnlab/common/wire.hpp"

// The one instruction allowed to write the channel: write(fd, data, size) as
// a raw system call, and the address just after it (what the kernel reports
// as the caller's instruction pointer). Local symbols: no other object can
// name them.
#if defined(__x86_64__)
asm(R"(
    .text
    .p2align 4
    .type attnlab_channel_write_call, @function
attnlab_channel_write_call:
    movl $1, %eax
    syscall
attnlab_channel_after_write:
    ret
    .size attnlab_channel_write_call, .-attnlab_channel_write_call
)");
#define ATTNLAB_CHANNEL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
asm(R"(
    .text
    .p2align 4
    .type attnlab_channel_write_call, %function
attnlab_channel_write_call:
    mov x8, #64
    svc #0
attnlab_channel_after_write:
    ret
    .size attnlab_channel_write_call, .-attnlab_channel_write_call
)");
#define ATTNLAB_CHANNEL_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef ATTNLAB_CHANNEL_ARCH
extern "C" long attnlab_channel_write_call(long fd, const void* data, unsigned long size);
extern "C" const char attnlab_channel_after_write[];
#endif

namespace attnlab::channel {
namespace {

bool guard_installed = false;

#ifdef ATTNLAB_CHANNEL_ARCH

constexpr unsigned kChannelFd = static_cast<unsigned>(wire::kChannelFd);

class Filter {
public:
    void load(unsigned offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
    void ret(unsigned action) { code_.push_back(BPF_STMT(BPF_RET | BPF_K, action)); }
    // if (A == k) fall through, else skip `skip` instructions
    void if_equal(unsigned k, unsigned char skip) { code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, skip)); }
    // if (A != k) fall through, else skip `skip` instructions
    void if_not_equal(unsigned k, unsigned char skip) { code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, skip, 0)); }
    std::vector<sock_filter>& code() { return code_; }

private:
    std::vector<sock_filter> code_;
};

unsigned refuse(int err) { return SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA); }

unsigned low_word(unsigned offset) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return offset;
#else
    return offset + 4;
#endif
}
unsigned high_word(unsigned offset) { return low_word(offset) ^ 4; }
unsigned argument(int i) { return low_word(static_cast<unsigned>(offsetof(seccomp_data, args) + 8 * i)); }

// When the call is `nr` and its argument `fd_arg` is the channel: EBADF.
// (A descriptor is an int: the kernel reads the argument's low 32 bits.)
void refuse_on_channel(Filter& f, int nr, int fd_arg) {
    f.if_equal(static_cast<unsigned>(nr), 4);
    f.load(argument(fd_arg));
    f.if_equal(kChannelFd, 1);
    f.ret(refuse(EBADF));
    f.load(offsetof(seccomp_data, nr));
}

// write(3, ...) from the harness's instruction, and nowhere else.
void allow_write_from_harness(Filter& f) {
    const uint64_t ip = reinterpret_cast<uintptr_t>(attnlab_channel_after_write);
    f.if_equal(static_cast<unsigned>(__NR_write), 8);
    f.load(argument(0));
    f.if_equal(kChannelFd, 6);
    f.load(low_word(offsetof(seccomp_data, instruction_pointer)));
    f.if_equal(static_cast<unsigned>(ip), 3);
    f.load(high_word(offsetof(seccomp_data, instruction_pointer)));
    f.if_equal(static_cast<unsigned>(ip >> 32), 1);
    f.ret(SECCOMP_RET_ALLOW);
    f.ret(refuse(EBADF));
    f.load(offsetof(seccomp_data, nr));
}

std::vector<sock_filter> build_filter() {
    Filter f;
    f.load(offsetof(seccomp_data, arch));
    f.if_not_equal(ATTNLAB_CHANNEL_ARCH, 1);
    f.ret(SECCOMP_RET_ALLOW);  // another ABI: the sandbox's own filter refuses every call of it
    f.load(offsetof(seccomp_data, nr));
    allow_write_from_harness(f);
    // Every other call that writes to a descriptor, with the argument that names it.
    const struct {
        int nr, fd_arg;
    } writers[] = {
        {__NR_writev, 0},  {__NR_pwrite64, 0}, {__NR_pwritev, 0}, {__NR_pwritev2, 0}, {__NR_sendto, 0}, {__NR_sendmsg, 0},
        {__NR_sendmmsg, 0}, {__NR_sendfile, 0}, {__NR_splice, 2}, {__NR_tee, 1},       {__NR_vmsplice, 0}, {__NR_copy_file_range, 2},
        {__NR_dup, 0},     {__NR_dup3, 0},     {__NR_fcntl, 0},
#ifdef __NR_dup2
        {__NR_dup2, 0},
#endif
    };
    for (const auto& w : writers) refuse_on_channel(f, w.nr, w.fd_arg);
    // No new program (it would inherit the channel), no asynchronous writes.
    for (int nr : {static_cast<int>(__NR_execve), static_cast<int>(__NR_execveat), static_cast<int>(__NR_io_submit)}) {
        f.if_equal(static_cast<unsigned>(nr), 1);
        f.ret(refuse(EPERM));
    }
    f.ret(SECCOMP_RET_ALLOW);
    return std::move(f.code());
}

// fcntl on the channel is refused whole (F_DUPFD would copy it); the harness
// needs none. Runs before any constructor of the program, the learner's included.
void install_guard(int, char**, char**) {
    std::vector<sock_filter> code = build_filter();
    sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return;
    guard_installed = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

__attribute__((section(".preinit_array"), used)) void (*const install_guard_first)(int, char**, char**) = &install_guard;

long raw_write(const char* data, size_t size) {
    const long r = attnlab_channel_write_call(wire::kChannelFd, data, size);
    if (r < 0) {
        errno = static_cast<int>(-r);
        return -1;
    }
    return r;
}

#else  // no guard on this architecture: plain write(2)

long raw_write(const char* data, size_t size) { return syscall(SYS_write, wire::kChannelFd, data, size); }

#endif

}  // namespace

bool guarded() { return guard_installed; }

void write_all(const char* data, size_t size) {
    while (size > 0) {
        const long n = raw_write(data, size);
        if (n < 0) {
            if (errno == EINTR) continue;
            std::fprintf(stderr, "attnlab: the result channel closed (%s)\n", std::strerror(errno));
            std::_Exit(3);
        }
        data += n;
        size -= static_cast<size_t>(n);
    }
}

}  // namespace attnlab::channel
