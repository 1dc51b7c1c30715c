// Tries to open a socket of each family, and a socket pair, and prints one
// line each: "inet6: refused (Operation not permitted)" or "unix: opened".
// tests/test_sandbox_isolation.cpp runs it inside the sandbox.
#include <linux/vm_sockets.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main() {
    const struct {
        const char* name;
        int family, type;
    } families[] = {{"unix", AF_UNIX, SOCK_STREAM}, {"inet", AF_INET, SOCK_STREAM},     {"inet6", AF_INET6, SOCK_STREAM},
                    {"packet", AF_PACKET, SOCK_RAW}, {"netlink", AF_NETLINK, SOCK_RAW}, {"vsock", AF_VSOCK, SOCK_STREAM}};
    for (const auto& f : families) {
        const int fd = socket(f.family, f.type, 0);
        if (fd >= 0) {
            std::printf("%s: opened\n", f.name);
            close(fd);
        } else {
            std::printf("%s: refused (%s)\n", f.name, std::strerror(errno));
        }
    }
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) std::printf("socketpair: opened\n");
    else std::printf("socketpair: refused (%s)\n", std::strerror(errno));
    return 0;
}
