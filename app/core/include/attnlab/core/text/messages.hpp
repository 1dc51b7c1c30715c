#pragma once
// Every sentence attnlab itself says, in English and Bahasa Indonesia.
// Exercise content lives with the exercises; this is the program's own voice.
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/core/base/util.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// The text for `key` in `lang`; the key itself when unknown (visible, not fatal).
const std::string& tr(Lang lang, const std::string& key);
// tr() with "{name}" placeholders filled in.
std::string tr(Lang lang, const std::string& key, const std::map<std::string, std::string>& args);
// All keys, for tests that check both languages are complete.
std::vector<std::string> message_keys();
bool has_message(Lang lang, const std::string& key);

// A sentence not yet in a language: a key, its arguments, and arguments that
// are sentences themselves (the reason inside a warning), worded in the same
// language. For what is said before the language is known (start-up
// warnings) or far from where it is shown.
struct KeyedMessage {
    std::string key;  // "" = nothing to say
    std::map<std::string, std::string> args;
    std::map<std::string, KeyedMessage> parts;  // {name} filled with part.text(lang)
    bool empty() const { return key.empty(); }
    std::string text(Lang lang) const;
};
// Text that has no words of attnlab's own (a parser's or the system's message), as it is.
KeyedMessage verbatim(const std::string& text);

// An error a person reads: its words are a KeyedMessage; what() is the English.
class KeyedError : public std::runtime_error {
public:
    explicit KeyedError(KeyedMessage message);
    const KeyedMessage& message() const { return message_; }

private:
    KeyedMessage message_;
};
// e's words: its message when it is a KeyedError, a failed file operation
// (FileError, base/util) as file_error_message() words it, else its what() verbatim.
KeyedMessage message_of(const std::exception& e);
// A file operation that failed ("io.write", "io.replace"...), with the
// system's reason and, where it is one, a hint about write permission.
KeyedMessage file_error_message(const FileError& e);

}  // namespace attnlab
