#include "json_file.hpp"

#include <ctime>

#include "attnlab/core/desk/workspace.hpp"  // kMaxJsonDepth
#include "attnlab/core/text/messages.hpp"

namespace attnlab::desk_files {

using nlohmann::json;

std::string timestamp() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
    return buf;
}

fs::path unused_path(const fs::path& base) {
    fs::path p = base;
    for (int n = 2; fs::exists(p); ++n) {
        p = base;
        p += "-" + std::to_string(n);
    }
    return p;
}

json parse_bounded(const std::string& text, size_t max_bytes) {
    if (text.size() > max_bytes) throw KeyedError({msg::file_too_large, {{"limit", std::to_string(max_bytes >> 10) + " KB"}}, {}});
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) throw KeyedError({msg::file_too_deep, {{"levels", std::to_string(kMaxJsonDepth)}}, {}});
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return json::parse(text);
}

int64_t bounded_integer(const json& object, const char* key, int64_t max, int64_t fallback) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return fallback;
    if (it->is_number_unsigned() && it->get<uint64_t>() <= static_cast<uint64_t>(max)) return static_cast<int64_t>(it->get<uint64_t>());
    if (it->is_number_integer() && it->get<int64_t>() >= 0 && it->get<int64_t>() <= max) return it->get<int64_t>();
    throw KeyedError({msg::file_not_whole_number, {{"key", key}, {"max", std::to_string(max)}}, {}});
}

std::string string_value(const json& object, const char* key) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return "";
    if (!it->is_string()) throw KeyedError({msg::file_not_text, {{"key", key}}, {}});
    return it->get<std::string>();
}

}  // namespace attnlab::desk_files
