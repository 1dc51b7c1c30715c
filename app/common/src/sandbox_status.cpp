#include "attnlab/common/sandbox_status.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace attnlab::sandbox_status {
namespace {

bool parse_run_status(const std::string& text, RunStatus& out) {
    for (RunStatus s : {RunStatus::Exited, RunStatus::Signaled, RunStatus::WallTimeout, RunStatus::Cancelled, RunStatus::ExecFailed,
                        RunStatus::IsolationRefused, RunStatus::MemoryLimit, RunStatus::SetupFailed})
        if (text == run_status_code(s)) {
            out = s;
            return true;
        }
    return false;
}

// A whole decimal number, nothing else ("12", "-3"); false for "", "12x", overflow.
bool parse_long(const std::string& text, long& out) {
    if (text.empty()) return false;
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || end == text.c_str()) return false;
    out = v;
    return true;
}

std::string encode_layer(const LayerReport& l) {
    switch (l.state) {
        case LayerState::NotAsked: return "off";
        case LayerState::Applied: return "on";
        case LayerState::DisabledByUser: return "disabled";
        case LayerState::Refused: return "refused:" + std::to_string(l.error);
    }
    return "off";
}

bool parse_layer(const std::string& text, LayerReport& out) {
    if (text == "off") out = {LayerState::NotAsked, 0};
    else if (text == "on") out = {LayerState::Applied, 0};
    else if (text == "disabled") out = {LayerState::DisabledByUser, 0};
    else if (text.rfind("refused:", 0) == 0) {
        long error = 0;
        if (!parse_long(text.substr(8), error) || error < 0 || error > 4095) return false;
        out = {LayerState::Refused, static_cast<int>(error)};
    } else {
        return false;
    }
    return true;
}

// Applies one "key=value" of a report line; false when the value is malformed.
bool apply_field(const std::string& key, const std::string& value, Report& r, bool& has_status) {
    long n = 0;
    if (key == "status") return has_status = parse_run_status(value, r.status);
    for (Layer l : kLayers)
        if (key == layer_code(l)) return parse_layer(value, r.protections[l]);
    if (key == "accounting") {
        for (Accounting a : {Accounting::None, Accounting::Cgroup, Accounting::Fallback})
            if (value == accounting_code(a)) {
                r.accounting = a;
                return true;
            }
        return false;
    }
    long* target = key == "cpu_ms"      ? &r.cpu_ms
                   : key == "wall_ms"   ? &r.wall_ms
                   : key == "maxrss_kb" ? &r.maxrss_kb
                   : key == "peak_kb"   ? &r.peak_kb
                   : key == "uid"       ? &r.uid
                                        : nullptr;
    if (key == "code" || key == "signal") {
        if (!parse_long(value, n)) return false;
        (key == "code" ? r.code : r.signal) = static_cast<int>(n);
        return true;
    }
    if (target) return parse_long(value, *target);
    return true;  // a key from a newer sandbox: ignored
}

bool decode_report_line(const std::string& line, Report& out) {
    std::istringstream in(line);
    std::string token;
    Report r;
    bool has_status = false;
    while (in >> token) {
        const auto eq = token.find('=');
        if (eq == std::string::npos || eq == 0) return false;
        if (!apply_field(token.substr(0, eq), token.substr(eq + 1), r, has_status)) return false;
    }
    if (!has_status) return false;
    out = r;
    return true;
}

}  // namespace

const char* run_status_code(RunStatus s) {
    switch (s) {
        case RunStatus::Exited: return "exited";
        case RunStatus::Signaled: return "signaled";
        case RunStatus::WallTimeout: return "wall_timeout";
        case RunStatus::Cancelled: return "cancelled";
        case RunStatus::ExecFailed: return "exec_failed";
        case RunStatus::IsolationRefused: return "isolation_refused";
        case RunStatus::MemoryLimit: return "memory_limit";
        case RunStatus::SetupFailed: return "setup_failed";
    }
    return "?";
}

const char* accounting_code(Accounting a) {
    switch (a) {
        case Accounting::None: return "none";
        case Accounting::Cgroup: return "cgroup";
        case Accounting::Fallback: return "fallback";
    }
    return "?";
}

bool Protections::complete() const {
    for (const LayerReport& l : layers)
        if (l.state == LayerState::DisabledByUser || l.state == LayerState::Refused) return false;
    return true;
}

const char* layer_code(Layer l) {
    switch (l) {
        case Layer::PidNamespace: return "pidns";
        case Layer::MountNamespace: return "mountns";
        case Layer::NetworkNamespace: return "netns";
        case Layer::Seccomp: return "seccomp";
        case Layer::IpcNamespace: return "ipcns";
        case Layer::UtsNamespace: return "utsns";
        case Layer::Identity: return "identity";
    }
    return "?";
}

const char* layer_env_switch(Layer l) {
    switch (l) {
        case Layer::PidNamespace: return "ATTNLAB_NO_PIDNS";
        case Layer::MountNamespace: return "ATTNLAB_NO_MOUNTNS";
        case Layer::NetworkNamespace: return "ATTNLAB_NO_NETNS";
        case Layer::Seccomp: return "ATTNLAB_NO_SECCOMP";
        case Layer::IpcNamespace: return "ATTNLAB_NO_IPCNS";
        case Layer::UtsNamespace: return "ATTNLAB_NO_UTSNS";
        case Layer::Identity: return "";
    }
    return "";
}

std::string encode_started(long pgid) { return "pgid=" + std::to_string(pgid) + "\n"; }

std::string encode_report(const Report& r) {
    std::string line = std::string("status=") + run_status_code(r.status) + " code=" + std::to_string(r.code) +
                       " signal=" + std::to_string(r.signal) + " cpu_ms=" + std::to_string(r.cpu_ms) +
                       " wall_ms=" + std::to_string(r.wall_ms) + " maxrss_kb=" + std::to_string(r.maxrss_kb) +
                       " peak_kb=" + std::to_string(r.peak_kb) + " uid=" + std::to_string(r.uid) +
                       " accounting=" + accounting_code(r.accounting);
    for (Layer l : kLayers) line += std::string(" ") + layer_code(l) + "=" + encode_layer(r.protections[l]);
    return line + "\n";
}

Decoded decode(const std::string& text) {
    Decoded d;
    size_t start = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; start = nl + 1, nl = text.find('\n', start)) {
        const std::string line = text.substr(start, nl - start);
        long pgid = 0;
        if (line.rfind("pgid=", 0) == 0) {
            if (parse_long(line.substr(5), pgid) && pgid > 1) d.pgid = pgid;
        } else if (decode_report_line(line, d.report)) {
            d.has_report = true;
        }
    }
    return d;
}

}  // namespace attnlab::sandbox_status
