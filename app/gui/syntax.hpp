#pragma once
// C++/CUDA syntax highlighting for the editor: one line at a time, with the
// block-comment state carried from line to line. Pure functions (tested
// headlessly); the editor draws the spans over its text.
#include <string_view>
#include <vector>

namespace attnlab::gui {

enum class TokenKind { Plain, Keyword, Type, Cuda, Comment, String, Number, Preprocessor };

struct TokenSpan {
    int begin = 0, end = 0;  // byte offsets in the line, [begin, end)
    TokenKind kind = TokenKind::Plain;
};

// The spans of one line (no newline in it). `in_block_comment` is the state
// at the line's start and is updated to the state at its end. Plain text is
// left out: only coloured spans are returned, in order.
std::vector<TokenSpan> highlight_line(std::string_view line, bool& in_block_comment);

}  // namespace attnlab::gui
