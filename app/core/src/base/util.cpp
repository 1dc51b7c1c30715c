#include "attnlab/core/base/util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace attnlab {

const char* file_step_code(FileStep step) {
    switch (step) {
        case FileStep::CreateFolder: return "create_folder";
        case FileStep::CreateTemporary: return "create_temporary";
        case FileStep::Write: return "write";
        case FileStep::Flush: return "flush";
        case FileStep::Replace: return "replace";
    }
    return "write";
}

FileError::FileError(FileStep step, std::string path, int error_number)
    : std::runtime_error(std::string(file_step_code(step)) + " " + path + ": " + std::strerror(error_number)),
      step_(step),
      path_(std::move(path)),
      error_number_(error_number) {}

std::optional<std::string> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return ss.str();
}

std::string file_stamp(const fs::path& p) {
    std::error_code ec;
    auto size = fs::file_size(p, ec);
    auto time = fs::last_write_time(p, ec);
    return p.string() + ":" + std::to_string(ec ? 0 : size) + ":" + std::to_string(ec ? 0 : time.time_since_epoch().count());
}

void write_file_atomic(const fs::path& requested, const std::string& contents) {
    // A symlinked file (into the learner's own repository, say) stays a link:
    // write to what it points at.
    std::error_code link_ec;
    fs::path path = requested;
    if (fs::is_symlink(requested, link_ec)) {
        const fs::path target = fs::canonical(requested, link_ec);
        if (!link_ec) path = target;
    }
    // Keep the existing file's permissions; new files get 0644.
    struct stat existing {};
    const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? (existing.st_mode & 07777) : 0644;
    const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)  // say why (a read-only or foreign folder), not the "No such file" that follows from it
        throw FileError(FileStep::CreateFolder, dir.string(), ec.value());
    std::string tmpl = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    int fd = mkostemp(tmpl.data(), O_CLOEXEC);  // never inherited by a program started meanwhile
    if (fd < 0) throw FileError(FileStep::CreateTemporary, dir.string(), errno);
    const char* p = contents.data();
    size_t left = contents.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::close(fd);
            ::unlink(tmpl.c_str());
            throw FileError(FileStep::Write, path.string(), err);
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
    ::fchmod(fd, mode);
    const bool synced = ::fsync(fd) == 0;
    const int sync_errno = errno;
    const bool closed = ::close(fd) == 0;
    if (!synced || !closed) {
        ::unlink(tmpl.c_str());
        throw FileError(FileStep::Flush, path.string(), synced ? errno : sync_errno);
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        throw FileError(FileStep::Replace, path.string(), err);
    }
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

uint64_t hash64(const std::string& bytes, uint64_t seed) {
    uint64_t h = seed;
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex64(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string sanitize_utf8(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const size_t n = s.size();
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t len = 0;
        uint32_t cp = 0;
        if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        }
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; ++k) {
            if ((p[i + k] & 0xC0) != 0x80) ok = false;
            else cp = (cp << 6) | (p[i + k] & 0x3F);
        }
        if (ok) {
            // Reject overlong forms, surrogates and out-of-range code points.
            if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
                (cp >= 0xD800 && cp <= 0xDFFF))
                ok = false;
        }
        if (ok) {
            out.append(s, i, len);
            i += len;
        } else {
            out += "\xEF\xBF\xBD";
            ++i;
        }
    }
    return out;
}

std::string format_text(const std::string& templ, const std::map<std::string, std::string>& args) {
    std::string out;
    out.reserve(templ.size() + 32);
    size_t i = 0;
    while (i < templ.size()) {
        if (templ[i] == '{') {
            size_t close = templ.find('}', i);
            if (close != std::string::npos) {
                auto it = args.find(templ.substr(i + 1, close - i - 1));
                if (it != args.end()) {
                    out += it->second;
                    i = close + 1;
                    continue;
                }
            }
        }
        out += templ[i++];
    }
    return out;
}

std::string format_number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[32];
    double a = std::fabs(v);
    if (a != 0 && (a < 1e-3 || a >= 1e6)) std::snprintf(buf, sizeof buf, "%.3e", v);
    else std::snprintf(buf, sizeof buf, "%.4f", v);
    std::string s = buf;
    // Trim trailing zeros of fixed notation ("0.5000" -> "0.5").
    if (s.find('e') == std::string::npos && s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0') s.pop_back();
        if (!s.empty() && s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace attnlab
