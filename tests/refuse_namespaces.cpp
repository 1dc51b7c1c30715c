// Test helper: a kernel (or a container) that refuses namespaces, for the
// sandbox's fail-closed tests. It installs a seccomp filter that refuses
// every way to make or join a namespace the way Docker's default profile
// does (unshare, setns and clone with CLONE_NEW* fail with EPERM; clone3,
// whose flags a filter cannot read, with ENOSYS) and then becomes
// $ATTNLAB_REFUSE_REAL_SANDBOX with its own arguments. A ProcessSpec names it
// as its `sandbox`; nothing of attnlab itself ever runs it.
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

int main(int, char** argv) {
    const char* real = std::getenv("ATTNLAB_REFUSE_REAL_SANDBOX");
    if (!real) {
        std::fputs("refuse_namespaces: ATTNLAB_REFUSE_REAL_SANDBOX is not set\n", stderr);
        return 2;
    }
    constexpr unsigned kNew = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP;
    const unsigned eperm = SECCOMP_RET_ERRNO | EPERM;
    sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, eperm),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_setns, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, eperm),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, kNew, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, eperm),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        std::perror("refuse_namespaces: seccomp");
        return 2;
    }
    argv[0] = const_cast<char*>(real);
    execv(real, argv);
    std::perror("refuse_namespaces: exec");
    return 2;
}
