# cmake -DMESSAGES=messages.cpp -DOUTPUT=message_keys.hpp -P AttnlabMessageKeys.cmake
#
# Writes one constant per key of the message catalogue (the kMessages table of
# app/core/src/text/messages.cpp), so that a call site names a key the compiler
# knows: tr(lang, msg::verdict_pass) for {"verdict.pass", ...}. The key's dots
# become underscores. The table stays the one list of keys; this header is made
# from it at build time and rewritten only when the keys change, so editing a
# sentence does not rebuild what includes messages.hpp.
#
# It stops the build when the table has a key twice, a key that is not
# [A-Za-z0-9_.], or two keys that would get one name ("a.b_c" and "a_b.c").

cmake_minimum_required(VERSION 3.20)

file(READ "${MESSAGES}" source)
string(FIND "${source}" "kMessages[] = {" table_start)
if(table_start EQUAL -1)
  message(FATAL_ERROR "${MESSAGES}: no 'kMessages[] = {' table")
endif()
string(SUBSTRING "${source}" ${table_start} -1 table)
string(FIND "${table}" "\n};" table_end)
string(SUBSTRING "${table}" 0 ${table_end} table)

# Every entry starts a line with {"key", (the text may go on over more lines).
string(REGEX MATCHALL "\n[ \t]*{\"[^\"\n]*\"" entries "${table}")
set(keys "")
set(names "")
set(constants "")
foreach(entry IN LISTS entries)
  string(REGEX REPLACE "^\n[ \t]*{\"([^\"]*)\"$" "\\1" key "${entry}")
  if(NOT key MATCHES "^[A-Za-z0-9_.]+$")
    message(FATAL_ERROR "${MESSAGES}: message key '${key}' has a character other than letters, digits, '_' and '.'")
  endif()
  if(key IN_LIST keys)
    message(FATAL_ERROR "${MESSAGES}: message key '${key}' is in the table twice")
  endif()
  string(REPLACE "." "_" name "${key}")
  if(name IN_LIST names)
    message(FATAL_ERROR "${MESSAGES}: message key '${key}' gets the name msg::${name}, which another key already has")
  endif()
  list(APPEND keys "${key}")
  list(APPEND names "${name}")
  string(APPEND constants "    static constexpr MessageKey ${name}{\"${key}\"};\n")
endforeach()
list(LENGTH keys count)

set(header "// Made by cmake/AttnlabMessageKeys.cmake from app/core/src/text/messages.cpp: do not edit.
// Included by attnlab/core/text/messages.hpp, after MessageKey.
#pragma once

namespace attnlab {

// One constant per key of the catalogue; a misspelled one does not compile.
struct msg {
${constants}};

// How many keys the table has: a test holds this to message_keys().size(), so
// an entry written in a shape this generator does not read cannot go unnoticed.
inline constexpr int kCataloguedKeyCount = ${count};

}  // namespace attnlab
")

set(old "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL header)
  file(WRITE "${OUTPUT}" "${header}")
endif()
