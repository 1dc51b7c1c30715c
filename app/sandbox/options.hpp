#pragma once
// attnlab-sandbox's command line (see main.cpp for what each part does).
#include <string>
#include <vector>

namespace attnlab::sandbox {

struct Isolation {
    bool enabled = false;  // --isolate: private files, no network, seccomp, not root (learner programs, the compiler)
    bool network = false;  // --network: keep the host's network despite --isolate
    // --allow-missing-layers: run even when a layer is refused or switched
    // off (the user's explicit opt-in); without it such a run fails closed.
    bool allow_missing = false;
    // --no-input-map: arguments naming files are not moved under /input (the
    // compiler: its paths must stay as given; it sees them through --bind).
    bool map_inputs = true;
    long scratch_mb = 16;  // --scratch-mb: the writable /scratch tmpfs
    bool unix_sockets = false;  // --unix-sockets: socket(AF_UNIX) allowed (a GPU driver); no other family ever is
    std::vector<std::string> devices;   // --device PATH (a glob): more device nodes than null, zero, urandom
    std::vector<std::string> readonly;  // --readonly PATH: more host paths shown read-only
    std::vector<std::string> hidden;    // --hide PATH: hidden even when inside a path that is shown
    std::vector<std::string> binds;     // --bind PATH: shown read-only at the same path (even inside a hidden one)
    std::vector<std::string> writable;  // --bind-rw PATH: shown writable at the same path (a work folder)
    std::vector<std::string> env;       // --env NAME: passed on to the program (else PATH, LANG, HOME, TMPDIR only)
};

struct Options {
    double cpu_seconds = 0;   // 0 = no limit
    double wall_seconds = 0;  // 0 = no limit
    long mem_mb = 0;          // RLIMIT_AS and RLIMIT_DATA of each process; 0 = none
    long tree_mem_mb = 0;     // --tree-mem: all its processes together (a cgroup, else sampled); 0 = none
    long fsize_mb = 64;
    int nice = 0;           // > 0: a background job (setpriority), so the foreground's processes go first
    long nproc_margin = 0;  // > 0: pids.max of its cgroup, else (not root) RLIMIT_NPROC = the user's threads now + this
    int status_fd = -1;
    Isolation isolation;
    std::vector<char*> argv;  // the program and its arguments, null-terminated
};

// False on a usage error.
bool parse_options(int argc, char** argv, Options& o);
const char* usage_text();

// An ATTNLAB_NO_* style switch: set, non-empty and not "0".
bool env_flag(const char* name);

}  // namespace attnlab::sandbox
