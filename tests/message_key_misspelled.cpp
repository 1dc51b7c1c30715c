// Compiled by message_key_misspelled.cmake: as it is, it must compile; with
// -DMISSPELLED or -DPLAIN_STRING it must not, since a key the catalogue does
// not have, or a plain string in place of a key, is a compile error.
#include <string>

#include "attnlab/core/text/messages.hpp"

std::string title(attnlab::Lang lang) {
#if defined(MISSPELLED)
    return attnlab::tr(lang, attnlab::msg::verdict_pas);
#elif defined(PLAIN_STRING)
    return attnlab::tr(lang, "verdict.pass");
#else
    return attnlab::tr(lang, attnlab::msg::verdict_pass);
#endif
}
