#pragma once
// Every sentence attnlab itself says, in English and Bahasa Indonesia.
// Exercise content lives with the exercises; this is the program's own voice.
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/core/base/util.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// A key of the catalogue. Only the msg:: constants and built_key() make one, so
// a call site cannot pass a plain string: tr(lang, msg::verdict_pass) names
// {msg::verdict_pass, ...}, and a misspelled constant is a compile error. The
// constants are made from the table in messages.cpp at build time
// (cmake/AttnlabMessageKeys.cmake): the table is the one list of keys.
class MessageKey {
public:
    constexpr MessageKey() = default;  // no key: nothing to say
    const char* c_str() const { return key_; }
    bool empty() const { return key_[0] == '\0'; }
    friend bool operator==(const MessageKey& a, const MessageKey& b) { return std::strcmp(a.key_, b.key_) == 0; }
    friend bool operator!=(const MessageKey& a, const MessageKey& b) { return !(a == b); }
    friend bool operator<(const MessageKey& a, const MessageKey& b) { return std::strcmp(a.key_, b.key_) < 0; }

private:
    explicit constexpr MessageKey(const char* key) : key_(key) {}
    const char* key_ = "";  // the catalogue's own text, or built_key()'s, which lives as long as the program
    friend struct msg;
    friend MessageKey built_key(const std::string& key);
};

}  // namespace attnlab

#include "attnlab/core/text/message_keys.hpp"

namespace attnlab {

// A key composed at run time ("verdict." + verdict_code(v)), which the compiler
// cannot check. Every place that composes one has a test that runs over all its
// codes and asks has_message() in both languages (tests/test_message_keys.cpp).
MessageKey built_key(const std::string& key);

// The text for `key` in `lang`; the key itself when unknown (visible, not fatal).
const std::string& tr(Lang lang, MessageKey key);
// tr() with "{name}" placeholders filled in.
std::string tr(Lang lang, MessageKey key, const std::map<std::string, std::string>& args);
// All keys, for tests that check both languages are complete.
std::vector<std::string> message_keys();
// Whether the catalogue has `key` in `lang`: for the tests of built keys, and
// for names that have a sentence only sometimes (a dimension, a fault's code).
bool has_message(Lang lang, const std::string& key);

// A sentence not yet in a language: a key, its arguments, and arguments that
// are sentences themselves (the reason inside a warning), worded in the same
// language. For what is said before the language is known (start-up
// warnings) or far from where it is shown.
struct KeyedMessage {
    MessageKey key;  // empty = nothing to say
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
// A file operation that failed (msg::io_write, msg::io_replace...), with the
// system's reason and, where it is one, a hint about write permission.
KeyedMessage file_error_message(const FileError& e);

}  // namespace attnlab
