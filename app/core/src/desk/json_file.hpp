#pragma once
// What the desk's files share (progress.json, settings.json, an exercise's
// history index): JSON read from a file anyone could have written, bounded
// before it is parsed, and the names given to files kept aside.
// Internal to the desk layer.
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace attnlab::desk_files {

namespace fs = std::filesystem;

// Parses JSON bounded in size and nesting before the parser (and later
// dump(), which recurses) sees it. Throws KeyedError (or the parser's own exception).
nlohmann::json parse_bounded(const std::string& text, size_t max_bytes);
// A whole number in [0, max], or `fallback` when the key is absent; throws KeyedError otherwise.
int64_t bounded_integer(const nlohmann::json& object, const char* key, int64_t max, int64_t fallback = 0);
// A string, or "" when the key is absent; throws KeyedError otherwise.
std::string string_value(const nlohmann::json& object, const char* key);

// Local time as 20250131-142501, for the names of files kept aside.
std::string timestamp();
// `base`, or base-2, base-3 … when taken: a second copy within the same
// second must not overwrite the first.
fs::path unused_path(const fs::path& base);

}  // namespace attnlab::desk_files
