#pragma once
// Markdown for statements, hints and explanations: md4c parses once into a
// small block/run model; drawing wraps mixed-style runs word by word with
// Dear ImGui (which has no rich text of its own).
#include <string>
#include <vector>

#include "ui.hpp"

namespace attnlab::gui {

struct MdRun {
    enum class Style { Normal, Emphasis, Strong, Code, LineBreak };
    Style style = Style::Normal;
    std::string text;
};

struct MdBlock {
    enum class Kind { Paragraph, Heading, Code, ListItem, Rule, Quote };
    Kind kind = Kind::Paragraph;
    int level = 0;        // heading level, or list/quote nesting depth
    std::string bullet;   // "•" or "3." for list items
    std::vector<MdRun> runs;
    std::string code;     // code blocks
};

std::vector<MdBlock> parse_markdown(const std::string& text);

// Draws `text` (parsed once and cached by content) in the current window.
void draw_markdown(Ui& ui, const std::string& text);

}  // namespace attnlab::gui
