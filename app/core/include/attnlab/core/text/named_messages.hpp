#pragma once
// A sentence chosen by a name that is data (a stage a function returns, a
// kernel's name, a code in a fault's detail) from a small table written with
// msg:: constants, so that the keys stay checked by the compiler where a
// built_key() from the name would not be.
#include <cstddef>
#include <string>

#include "attnlab/core/text/messages.hpp"

namespace attnlab {

struct NamedMessage {
    const char* name;
    MessageKey key;
};

// The key `name` has in `table`, or nullptr when it has none.
template <std::size_t N>
const MessageKey* message_named(const NamedMessage (&table)[N], const std::string& name) {
    for (const NamedMessage& entry : table)
        if (name == entry.name) return &entry.key;
    return nullptr;
}

}  // namespace attnlab
