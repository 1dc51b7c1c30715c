#include "seccomp_filter.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452  // Linux 6.6, the same number on every architecture
#endif

namespace attnlab::sandbox {
namespace {

#if defined(__x86_64__)
constexpr unsigned kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kArch = AUDIT_ARCH_AARCH64;
#else
constexpr unsigned kArch = 0;  // no filter here: the layer is reported as refused
#endif

// Nothing an exercise needs: debugging other processes, the kernel's module,
// key, BPF and performance interfaces, and every way to change what the
// program sees of the file system or to leave its namespaces.
const int kRefused[] = {
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_getfd,
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
    __NR_open_tree, __NR_move_mount, __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_mount_setattr,
    __NR_setns, __NR_unshare,
    __NR_kexec_load, __NR_kexec_file_load, __NR_reboot,
    __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_bpf, __NR_perf_event_open, __NR_userfaultfd,
    __NR_keyctl, __NR_add_key, __NR_request_key,
    __NR_swapon, __NR_swapoff,
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,  // their operations bypass this filter
#ifdef __NR_umount
    __NR_umount,
#endif
};

// Calls whose arguments live in memory this filter cannot read: ENOSYS makes
// the C library fall back to the older call that it can check (clone, openat).
const int kNotImplemented[] = {__NR_clone3, __NR_openat2};

// (system call, index of its mode argument): no set-user-ID or set-group-ID file.
struct ModeArgument {
    int nr;
    int arg;
};
const ModeArgument kModeArguments[] = {
    {__NR_fchmod, 1}, {__NR_fchmodat, 2}, {__NR_fchmodat2, 2}, {__NR_openat, 3}, {__NR_mkdirat, 2}, {__NR_mknodat, 2},
#ifdef __NR_chmod
    {__NR_chmod, 1}, {__NR_open, 2}, {__NR_creat, 1}, {__NR_mkdir, 1}, {__NR_mknod, 1},
#endif
};

constexpr unsigned kNamespaceFlags =
    CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;

class FilterBuilder {
public:
    void load(unsigned offset) { add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
    void ret(unsigned action) { add(BPF_STMT(BPF_RET | BPF_K, action)); }
    // if (A != k) fall through, else skip `skip` instructions
    void if_not_equal(unsigned k, unsigned char skip) { add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, skip, 0)); }
    // if (A == k) fall through, else skip `skip` instructions
    void if_equal(unsigned k, unsigned char skip) { add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, skip)); }
    // if (A & k) fall through, else skip `skip` instructions
    void if_any_bit(unsigned k, unsigned char skip) { add(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, k, 0, skip)); }
    // if (A >= k) fall through, else skip `skip` instructions
    void if_at_least(unsigned k, unsigned char skip) { add(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, k, 0, skip)); }
    std::vector<sock_filter>& code() { return code_; }

private:
    void add(sock_filter f) { code_.push_back(f); }
    std::vector<sock_filter> code_;
};

unsigned errno_action(int err) { return SECCOMP_RET_ERRNO | (static_cast<unsigned>(err) & SECCOMP_RET_DATA); }

// The low 32 bits of argument `i` (modes and clone flags fit in them).
unsigned argument_low_word(int i) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return static_cast<unsigned>(offsetof(seccomp_data, args) + 8 * i);
#else
    return static_cast<unsigned>(offsetof(seccomp_data, args) + 8 * i + 4);
#endif
}

// When the system call is `nr`: allow it unless argument `arg` has a bit of `mask`.
void refuse_argument_bits(FilterBuilder& f, int nr, int arg, unsigned mask) {
    f.if_equal(static_cast<unsigned>(nr), 4);
    f.load(argument_low_word(arg));
    f.if_any_bit(mask, 1);
    f.ret(errno_action(EPERM));
    f.ret(SECCOMP_RET_ALLOW);
}

// When the system call is `nr`: allow it only when argument `arg` (an int) is `value`.
void refuse_unless_argument(FilterBuilder& f, int nr, int arg, unsigned value) {
    f.if_equal(static_cast<unsigned>(nr), 4);
    f.load(argument_low_word(arg));
    f.if_not_equal(value, 1);
    f.ret(errno_action(EPERM));
    f.ret(SECCOMP_RET_ALLOW);
}

std::vector<sock_filter> build_filter(SocketFamilies sockets) {
    FilterBuilder f;
    f.load(offsetof(seccomp_data, arch));
    f.if_not_equal(kArch, 1);
    f.ret(errno_action(ENOSYS));  // another ABI (32-bit calls on a 64-bit kernel): nothing works
    f.load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
    f.if_at_least(0x40000000u, 1);  // the x32 ABI, with its own numbers
    f.ret(errno_action(ENOSYS));
#endif
    for (int nr : kRefused) {
        f.if_equal(static_cast<unsigned>(nr), 1);
        f.ret(errno_action(EPERM));
    }
    for (int nr : kNotImplemented) {
        f.if_equal(static_cast<unsigned>(nr), 1);
        f.ret(errno_action(ENOSYS));
    }
    // No socket of any family an exercise does not need (inet6, packet, netlink,
    // vsock...): a network namespace hides the host's network, not a vsock
    // device or the kernel's netlink interfaces.
    for (int nr : {__NR_socket, __NR_socketpair}) {
        if (sockets == SocketFamilies::UnixOnly) {
            refuse_unless_argument(f, nr, 0, AF_UNIX);
        } else {
            f.if_equal(static_cast<unsigned>(nr), 1);
            f.ret(errno_action(EPERM));
        }
    }
    refuse_argument_bits(f, __NR_clone, 0, kNamespaceFlags);  // threads and fork yes, new namespaces no
    for (const ModeArgument& m : kModeArguments) refuse_argument_bits(f, m.nr, m.arg, S_ISUID | S_ISGID);
    f.ret(SECCOMP_RET_ALLOW);
    return std::move(f.code());
}

}  // namespace

int install_seccomp_filter(SocketFamilies sockets) {
    if (kArch == 0) return ENOSYS;
    std::vector<sock_filter> code = build_filter(sockets);
    sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
    // Needed to install a filter without privileges; it also means no exec
    // can ever give the program more rights (set-user-ID files, file capabilities).
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) return errno;
    return 0;
}

}  // namespace attnlab::sandbox
