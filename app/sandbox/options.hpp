#pragma once
// attnlab-sandbox's command line (see main.cpp for what each part does).
#include <string>
#include <vector>

namespace attnlab::sandbox {

struct Isolation {
    bool enabled = false;  // --isolate: private files, no network, seccomp (learner programs)
    bool network = false;  // --network: keep the host's network despite --isolate
    long scratch_mb = 16;  // --scratch-mb: the writable /scratch tmpfs
    std::vector<std::string> devices;   // --device PATH (a glob): more device nodes than null, zero, urandom
    std::vector<std::string> readonly;  // --readonly PATH: more host paths shown read-only
    std::vector<std::string> hidden;    // --hide PATH: hidden even when inside a path that is shown
};

struct Options {
    double cpu_seconds = 0;   // 0 = no limit
    double wall_seconds = 0;  // 0 = no limit
    long mem_mb = 0;          // RLIMIT_AS; 0 = none
    long fsize_mb = 64;
    long nproc_margin = 0;  // > 0 and not root: RLIMIT_NPROC = the user's threads now + this
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
