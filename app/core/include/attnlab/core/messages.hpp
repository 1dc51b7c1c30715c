#pragma once
// Every sentence attnlab itself says, in English and Bahasa Indonesia.
// Exercise content lives with the exercises; this is the program's own voice.
#include <map>
#include <string>
#include <vector>

#include "attnlab/core/course.hpp"

namespace attnlab {

// The text for `key` in `lang`; the key itself when unknown (visible, not fatal).
const std::string& tr(Lang lang, const std::string& key);
// tr() with "{name}" placeholders filled in.
std::string tr(Lang lang, const std::string& key, const std::map<std::string, std::string>& args);
// All keys, for tests that check both languages are complete.
std::vector<std::string> message_keys();
bool has_message(Lang lang, const std::string& key);

}  // namespace attnlab
