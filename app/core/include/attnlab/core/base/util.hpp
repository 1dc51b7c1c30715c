#pragma once
// Small helpers used across the core: files, hashing, text.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace attnlab {

namespace fs = std::filesystem;

// Whole file as bytes; nullopt when it cannot be read.
std::optional<std::string> read_file(const fs::path& path);
// "path:size:mtime": changes whenever the file does (cache keys).
std::string file_stamp(const fs::path& path);
// Write via a temporary file in the same directory, fsync, then rename: a
// reader (or a crash at any moment) sees the old or the new file, never a mix.
// A symlink is followed (the link stays), the file's permissions are kept.
// Throws FileError on failure.
void write_file_atomic(const fs::path& path, const std::string& contents);

// The step of writing a file that failed.
enum class FileStep { CreateFolder, CreateTemporary, Write, Flush, Replace };
// "create_folder", "create_temporary", "write", "flush", "replace": the
// step's code, which also names its sentence ("io.<code>", text/messages).
const char* file_step_code(FileStep step);
// A file operation that failed, as data: the step, the path and the system's
// error number. The base layer has no words of its own: message_of()
// (text/messages) words it in the learner's language. what() is the
// system's view of it, for logs: "write /path: No space left on device".
class FileError : public std::runtime_error {
public:
    FileError(FileStep step, std::string path, int error_number);
    FileStep step() const { return step_; }
    const std::string& path() const { return path_; }
    int error_number() const { return error_number_; }

private:
    FileStep step_;
    std::string path_;
    int error_number_;
};

// Stable 64-bit FNV-1a (the same value on every run and machine).
uint64_t hash64(const std::string& bytes, uint64_t seed = 14695981039346656037ull);
std::string hex64(uint64_t v);

// Replaces invalid UTF-8 sequences with U+FFFD so text can be shown and
// serialised as JSON whatever bytes a learner's program printed.
std::string sanitize_utf8(const std::string& s);

// "{name}" placeholders replaced from `args`; unknown placeholders stay.
std::string format_text(const std::string& templ, const std::map<std::string, std::string>& args);

// "0.331" style: shortest of %.4g-ish, for numbers learners read.
std::string format_number(double v);

int64_t unix_now();

}  // namespace attnlab
