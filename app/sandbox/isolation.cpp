#include "isolation.hpp"

#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <pwd.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace attnlab::sandbox {
namespace {

using sandbox_status::LayerState;

// What the program may see of the host, read-only (when present).
const char* const kSystemPaths[] = {"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
const char* const kDevices[] = {"/dev/null", "/dev/zero", "/dev/urandom"};
// Where the new root is assembled before pivot_root: any directory works,
// since every source is opened before the tmpfs covers it.
const char* const kAssemblyPoint = "/tmp";

LayerReport applied() { return {LayerState::Applied, 0}; }
LayerReport refused(int error) { return {LayerState::Refused, error}; }

bool write_text(const char* path, const std::string& text) {
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

bool pending(const Protections& p, Layer l) { return p[l].state == LayerState::Refused && p[l].error == 0; }

// ---- the private root ------------------------------------------------------

// A host path opened before the assembly point is covered, and where it goes.
struct Source {
    int fd = -1;
    std::string target;  // path inside the new root
    enum Kind { Directory, File, Device, CopiedFile } kind = File;
    bool writable = false;  // a --bind-rw folder
};

struct RootPlan {
    std::vector<Source> sources;
    std::vector<Source> binds;  // --bind and --bind-rw: placed after the private paths are hidden
    std::vector<std::pair<std::string, std::string>> links;  // (path inside, what it points to)
    std::vector<std::string> inside_names;                    // storage for rewritten argv entries
    ~RootPlan() {
        for (const std::vector<Source>* list : {&sources, &binds})
            for (const Source& s : *list)
                if (s.fd >= 0) close(s.fd);
    }
};

std::string fd_path(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

bool under(const std::string& path, const std::string& dir) {
    return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

int plan_system_path(const std::string& path, RootPlan& plan) {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? 0 : errno;
    for (const Source& s : plan.sources)
        if (under(path, s.target)) return 0;  // already visible through its parent
    if (S_ISLNK(st.st_mode)) {
        char to[4096];
        const ssize_t n = readlink(path.c_str(), to, sizeof to - 1);
        if (n <= 0) return errno;
        plan.links.emplace_back(path, std::string(to, static_cast<size_t>(n)));
        return 0;
    }
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return errno;
    plan.sources.push_back({fd, path, S_ISDIR(st.st_mode) ? Source::Directory : Source::File});
    return 0;
}

int plan_devices(const Options& o, RootPlan& plan) {
    std::vector<std::string> paths(std::begin(kDevices), std::end(kDevices));
    for (const std::string& pattern : o.isolation.devices) {
        glob_t g{};
        if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; ++i) paths.emplace_back(g.gl_pathv[i]);
        globfree(&g);
    }
    for (const std::string& path : paths) {
        const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0) return errno;
        plan.sources.push_back({fd, "/dev/" + path.substr(path.rfind('/') + 1), Source::Device});
    }
    return 0;
}

// The program (argv[0]) and every argument naming a regular file (its
// inputs) appear read-only under /input; argv is rewritten to match. When
// the program runs as another user who could not read the host file, it is
// copied instead of bound.
int plan_inputs(std::vector<char*>& argv, const ProgramIdentity& who, RootPlan& plan) {
    plan.inside_names.reserve(argv.size());
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;  // not a file (a missing program fails at exec)
        const bool foreign = who.uid != getuid();
        const mode_t needed = i == 0 ? (S_IROTH | S_IXOTH) : S_IROTH;
        const bool copy = foreign && st.st_uid != who.uid && (st.st_mode & needed) != needed;
        const int fd = open(argv[i], (copy ? O_RDONLY : O_PATH) | O_CLOEXEC);
        if (fd < 0) return errno;
        const char* slash = std::strrchr(argv[i], '/');
        plan.inside_names.push_back("/input/" + std::to_string(i) + "-" + (slash ? slash + 1 : argv[i]));
        plan.sources.push_back({fd, plan.inside_names.back(), copy ? Source::CopiedFile : Source::File});
        argv[i] = plan.inside_names.back().data();
    }
    return 0;
}

// A --bind or --bind-rw path: shown at its own path, even inside a hidden one.
int plan_bind(const std::string& path, bool writable, RootPlan& plan) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : errno;  // nothing there: nothing to show
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int err = errno;
        close(fd);
        return err;
    }
    plan.binds.push_back({fd, path, S_ISDIR(st.st_mode) ? Source::Directory : Source::File, writable});
    return 0;
}

// Read-only, no set-user-ID, no devices: for everything but device nodes.
int make_read_only(const std::string& target, bool devices_allowed) {
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | (devices_allowed ? 0 : MOUNT_ATTR_NODEV);
    if (mount_setattr(AT_FDCWD, target.c_str(), AT_RECURSIVE, &attr, sizeof attr) == 0) return 0;
    // Older kernels: remount the top mount, keeping the flags a user namespace may not drop.
    struct statvfs vfs;
    if (statvfs(target.c_str(), &vfs) != 0) return errno;
    unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | (devices_allowed ? 0 : MS_NODEV);
    if (vfs.f_flag & ST_NODEV) flags |= MS_NODEV;
    if (vfs.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
    if (vfs.f_flag & ST_NOATIME) flags |= MS_NOATIME;
    if (vfs.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
    if (vfs.f_flag & ST_RELATIME) flags |= MS_RELATIME;
    return mount(nullptr, target.c_str(), nullptr, flags, nullptr) == 0 ? 0 : errno;
}

int make_parents(const std::string& root, const std::string& inside) {
    for (size_t at = inside.find('/', 1); at != std::string::npos; at = inside.find('/', at + 1))
        if (mkdir((root + inside.substr(0, at)).c_str(), 0755) != 0 && errno != EEXIST) return errno;
    return 0;
}

int copy_file(int from, const std::string& to) {
    const int out = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0555);
    if (out < 0) return errno;
    char buf[65536];
    ssize_t n;
    while ((n = read(from, buf, sizeof buf)) > 0)
        if (write(out, buf, static_cast<size_t>(n)) != n) break;
    const int err = n < 0 ? errno : (n > 0 ? EIO : 0);
    close(out);
    return err;
}

int place_source(const std::string& root, const Source& s) {
    const std::string target = root + s.target;
    if (int err = make_parents(root, s.target)) return err;
    if (s.kind == Source::CopiedFile) return copy_file(s.fd, target);
    struct stat existing;
    if (lstat(target.c_str(), &existing) == 0) {
        // Already there (a bind inside a shown tree): mounted over.
    } else if (s.kind == Source::Directory) {
        if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    } else {
        const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
        if (fd < 0) return errno;
        close(fd);
    }
    if (mount(fd_path(s.fd).c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) return errno;
    if (s.kind == Source::Device) return 0;
    if (!s.writable) return make_read_only(target, false);
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (mount_setattr(AT_FDCWD, target.c_str(), AT_RECURSIVE, &attr, sizeof attr) == 0) return 0;
    return mount(nullptr, target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV, nullptr) == 0 ? 0 : errno;
}

// The paths of the user's home and attnlab's data, which must not show even
// if they sit inside a shown tree (a home under /opt, say).
std::vector<std::string> private_paths(const Options& o) {
    std::vector<std::string> paths = o.isolation.hidden;
    for (const char* var : {"HOME", "ATTNLAB_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"})
        if (const char* v = std::getenv(var); v && v[0] == '/') paths.emplace_back(v);
    return paths;
}

// Covers each private path that shows (inside a shown tree) with an empty
// tmpfs, writable until seal_hidden_paths() so binds can be placed in it.
int hide_private_paths(const Options& o, const std::string& root, std::vector<std::string>& covered) {
    for (const std::string& path : private_paths(o)) {
        bool is_ancestor_of_shown = false;
        for (const char* shown : kSystemPaths) is_ancestor_of_shown |= under(shown, path);
        struct stat st;
        if (is_ancestor_of_shown || stat((root + path).c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (mount("tmpfs", (root + path).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) return errno;
        covered.push_back(root + path);
    }
    return 0;
}

int seal_hidden_paths(const std::vector<std::string>& covered) {
    for (const std::string& target : covered)
        if (mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) return errno;
    return 0;
}

int make_special_dirs(const std::string& root, const ProgramIdentity& who, long scratch_mb, bool with_proc) {
    for (const char* dir : {"/dev", "/tmp", "/input", "/proc", kScratchDir})
        if (mkdir((root + dir).c_str(), 0755) != 0 && errno != EEXIST) return errno;
    const std::string scratch_options = "size=" + std::to_string(scratch_mb) + "m,nr_inodes=4096,mode=0700,uid=" +
                                        std::to_string(who.uid) + ",gid=" + std::to_string(who.gid);
    if (mount("tmpfs", (root + kScratchDir).c_str(), "tmpfs", MS_NOSUID | MS_NODEV, scratch_options.c_str()) != 0) return errno;
    // A /proc of the program's own PID namespace. Not essential: a container
    // that hides parts of the host's /proc forbids it, and programs run without.
    if (with_proc && mount("proc", (root + "/proc").c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0) {
        for (const auto& [name, to] : {std::pair{"/dev/fd", "/proc/self/fd"}, {"/dev/stdin", "/proc/self/fd/0"},
                                       {"/dev/stdout", "/proc/self/fd/1"}, {"/dev/stderr", "/proc/self/fd/2"}})
            if (symlink(to, (root + name).c_str()) != 0) return errno;
    }
    return 0;
}

// Fills the tmpfs mounted at `root` with everything the program may see.
int assemble_root(const Options& o, const ProgramIdentity& who, bool with_proc, RootPlan& plan) {
    const std::string root = kAssemblyPoint;
    if (int err = make_special_dirs(root, who, o.isolation.scratch_mb, with_proc)) return err;
    for (const Source& s : plan.sources)
        if (int err = place_source(root, s)) return err;
    for (const auto& [path, to] : plan.links)
        if (symlink(to.c_str(), (root + path).c_str()) != 0) return errno;
    std::vector<std::string> covered;
    if (int err = hide_private_paths(o, root, covered)) return err;
    for (const Source& s : plan.binds)
        if (int err = place_source(root, s)) return err;
    return seal_hidden_paths(covered);
}

// Makes the assembled tree the root; the host's tree is detached for good.
int switch_root() {
    if (chdir(kAssemblyPoint) != 0) return errno;
    if (syscall(SYS_pivot_root, ".", ".") != 0) return errno;
    if (umount2(".", MNT_DETACH) != 0) {
        // The host's root is still stacked here and cannot be undone: refuse to run.
        std::fprintf(stderr, "attnlab-sandbox: cannot detach the host's files: %s\n", std::strerror(errno));
        _exit(126);
    }
    if (chdir("/") != 0) return errno;
    return mount(nullptr, "/", nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, nullptr) == 0 ? 0 : errno;
}

int build_private_root(const Options& o, const ProgramIdentity& who, bool with_proc, std::vector<char*>& argv) {
    if (unshare(CLONE_NEWNS) != 0) return errno;
    // Nothing done below may propagate back to the host's mounts.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
    RootPlan plan;
    std::vector<char*> rewritten = argv;
    for (const char* path : kSystemPaths)
        if (int err = plan_system_path(path, plan)) return err;
    for (const std::string& path : o.isolation.readonly)
        if (int err = plan_system_path(path, plan)) return err;
    if (int err = plan_devices(o, plan)) return err;
    if (o.isolation.map_inputs)
        if (int err = plan_inputs(rewritten, who, plan)) return err;
    for (const std::string& path : o.isolation.binds)
        if (int err = plan_bind(path, false, plan)) return err;
    for (const std::string& path : o.isolation.writable)
        if (int err = plan_bind(path, true, plan)) return err;
    if (mount("tmpfs", kAssemblyPoint, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) return errno;
    int err = assemble_root(o, who, with_proc, plan);
    if (!err) err = switch_root();
    if (err) {
        umount2(kAssemblyPoint, MNT_DETACH);  // run on the host's files, as without this layer
        return err;
    }
    argv = rewritten;
    static std::vector<std::string> keep;  // the rewritten argv points into these until exec
    keep = std::move(plan.inside_names);
    return 0;
}

}  // namespace

ProgramIdentity unprivileged_identity() {
    const passwd* pw = getpwnam("nobody");
    return pw ? ProgramIdentity{pw->pw_uid, pw->pw_gid} : ProgramIdentity{65534, 65534};
}

bool layer_pending(const Protections& p, Layer l) { return pending(p, l); }

void mark_wanted(const Options& o, Protections& p) {
    auto want = [&](Layer l, bool asked) {
        const char* env_switch = sandbox_status::layer_env_switch(l);
        if (!asked) p[l] = {LayerState::NotAsked, 0};
        else if (*env_switch && env_flag(env_switch)) p[l] = {LayerState::DisabledByUser, 0};
        else p[l] = refused(0);  // until it is applied
    };
    const bool isolate = o.isolation.enabled;
    want(Layer::PidNamespace, true);
    want(Layer::MountNamespace, isolate);
    want(Layer::NetworkNamespace, isolate && !o.isolation.network);
    want(Layer::IpcNamespace, isolate);
    want(Layer::UtsNamespace, isolate);
    want(Layer::Seccomp, isolate);
    want(Layer::Identity, isolate);
}

void enter_user_and_pid_namespaces(const Options& o, Protections& p) {
    mark_wanted(o, p);
    const Layer needing_userns[] = {Layer::PidNamespace, Layer::MountNamespace, Layer::NetworkNamespace, Layer::IpcNamespace,
                                    Layer::UtsNamespace};
    bool any_namespace = false;
    for (Layer l : needing_userns) any_namespace |= pending(p, l);
    if (!any_namespace) return;
    if (getuid() != 0) {
        // In a user namespace the caller keeps its own uid and gid (so the
        // program is not root there) and may create the other namespaces.
        const uid_t uid = getuid();
        const gid_t gid = getgid();
        int err = unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
        if (!err) {
            write_text("/proc/self/setgroups", "deny");
            if (!write_text("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") ||
                !write_text("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n"))
                err = errno ? errno : EPERM;
        }
        if (err) {
            for (Layer l : needing_userns)
                if (pending(p, l)) p[l] = refused(err);
            return;
        }
    }
    if (pending(p, Layer::PidNamespace)) p[Layer::PidNamespace] = unshare(CLONE_NEWPID) == 0 ? applied() : refused(errno);
}

namespace {

// The new IPC namespace's System V limits: all shared memory together within
// the run's memory (segments live in memory, outside any process).
void limit_ipc(const Options& o) {
    const long mb = o.tree_mem_mb > 0 ? o.tree_mem_mb : (o.mem_mb > 0 ? o.mem_mb : 0);
    if (mb <= 0) return;
    const long bytes = mb << 20;
    write_text("/proc/sys/kernel/shmmax", std::to_string(bytes));
    write_text("/proc/sys/kernel/shmall", std::to_string(bytes / sysconf(_SC_PAGESIZE)));
    write_text("/proc/sys/kernel/shmmni", "64");
}

}  // namespace

void enter_namespaces(const Options& o, const ProgramIdentity& program, std::vector<char*>& argv, Protections& p) {
    if (pending(p, Layer::NetworkNamespace))
        p[Layer::NetworkNamespace] = unshare(CLONE_NEWNET) == 0 ? applied() : refused(errno);
    if (pending(p, Layer::IpcNamespace)) {
        p[Layer::IpcNamespace] = unshare(CLONE_NEWIPC) == 0 ? applied() : refused(errno);
        if (p[Layer::IpcNamespace].state == LayerState::Applied) limit_ipc(o);
    }
    if (pending(p, Layer::UtsNamespace)) {
        p[Layer::UtsNamespace] = unshare(CLONE_NEWUTS) == 0 ? applied() : refused(errno);
        if (p[Layer::UtsNamespace].state == LayerState::Applied) sethostname("attnlab", 7);
    }
    if (pending(p, Layer::MountNamespace)) {
        const bool with_proc = p[Layer::PidNamespace].state == LayerState::Applied;
        const int err = build_private_root(o, program, with_proc, argv);
        p[Layer::MountNamespace] = err ? refused(err) : applied();
    }
}

int stage_inputs_on_host(const std::string& dir, const ProgramIdentity& who, std::vector<char*>& argv) {
    if (mkdir(dir.c_str(), 0711) != 0) return errno;
    const std::string scratch = dir + "/scratch";
    if (mkdir(scratch.c_str(), 0700) != 0 || chown(scratch.c_str(), who.uid, who.gid) != 0) return errno;
    static std::vector<std::string> names;  // the rewritten argv points into these until exec
    names.clear();
    names.reserve(argv.size());
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0 || !S_ISREG(st.st_mode)) continue;
        const int from = open(argv[i], O_RDONLY | O_CLOEXEC);
        if (from < 0) return errno;
        const char* slash = std::strrchr(argv[i], '/');
        names.push_back(dir + "/" + std::to_string(i) + "-" + (slash ? slash + 1 : argv[i]));
        const int err = copy_file(from, names.back());
        close(from);
        if (err) return err;
        argv[i] = names.back().data();
    }
    return 0;
}

void remove_tree(const std::string& dir) {
    nftw(dir.c_str(), [](const char* path, const struct stat*, int type, FTW*) {
        if (type == FTW_DP) rmdir(path);
        else unlink(path);
        return 0;
    }, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void hand_over_writable(const Options& o, const ProgramIdentity& who) {
    if (who.uid == getuid()) return;
    for (const std::string& dir : o.isolation.writable) lchown(dir.c_str(), who.uid, who.gid);
}

void take_back_writable(const Options& o, const ProgramIdentity& who) {
    if (who.uid == getuid()) return;
    static uid_t uid;
    static gid_t gid;
    uid = getuid();
    gid = getgid();
    for (const std::string& dir : o.isolation.writable)
        nftw(dir.c_str(), [](const char* path, const struct stat*, int, FTW*) {
            lchown(path, uid, gid);
            return 0;
        }, 16, FTW_PHYS | FTW_MOUNT);
}

}  // namespace attnlab::sandbox
