#include "markdown.hpp"

#include <md4c.h>

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace attnlab::gui {

namespace {

struct Builder {
    std::vector<MdBlock> blocks;
    struct List {
        bool ordered;
        unsigned next;
    };
    std::vector<List> lists;
    int quote_depth = 0;
    int em = 0, strong = 0, code_span = 0;
    bool in_code_block = false;
    bool li_open = false;  // a list item started and has not received its first paragraph

    int depth() const { return static_cast<int>(lists.size()) + quote_depth; }

    MdRun::Style style() const {
        if (code_span) return MdRun::Style::Code;
        if (strong) return MdRun::Style::Strong;
        if (em) return MdRun::Style::Emphasis;
        return MdRun::Style::Normal;
    }

    void add_text(const std::string& s) {
        if (in_code_block) {
            if (!blocks.empty()) blocks.back().code += s;
            return;
        }
        if (blocks.empty()) blocks.push_back(MdBlock{});
        auto& runs = blocks.back().runs;
        MdRun::Style st = style();
        if (!runs.empty() && runs.back().style == st) runs.back().text += s;
        else runs.push_back(MdRun{st, s});
    }

    static int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
        auto* b = static_cast<Builder*>(user);
        switch (type) {
            case MD_BLOCK_UL: b->lists.push_back({false, 1}); break;
            case MD_BLOCK_OL: b->lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
            case MD_BLOCK_LI: {
                MdBlock blk;
                blk.kind = MdBlock::Kind::ListItem;
                blk.level = b->depth();
                if (!b->lists.empty() && b->lists.back().ordered) blk.bullet = std::to_string(b->lists.back().next++) + ".";
                else blk.bullet = "\xE2\x80\xA2";  // •
                b->blocks.push_back(blk);
                b->li_open = true;
                break;
            }
            case MD_BLOCK_QUOTE: ++b->quote_depth; break;
            case MD_BLOCK_H: {
                MdBlock blk;
                blk.kind = MdBlock::Kind::Heading;
                blk.level = static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
                b->blocks.push_back(blk);
                b->li_open = false;
                break;
            }
            case MD_BLOCK_CODE: {
                MdBlock blk;
                blk.kind = MdBlock::Kind::Code;
                blk.level = b->depth();
                b->blocks.push_back(blk);
                b->in_code_block = true;
                b->li_open = false;
                break;
            }
            case MD_BLOCK_HR: b->blocks.push_back(MdBlock{MdBlock::Kind::Rule, 0, "", {}, ""}); break;
            case MD_BLOCK_P:
                if (b->li_open) {
                    b->li_open = false;  // the item's first paragraph is the item itself
                } else {
                    MdBlock blk;
                    blk.kind = b->quote_depth ? MdBlock::Kind::Quote : MdBlock::Kind::Paragraph;
                    blk.level = b->depth();
                    b->blocks.push_back(blk);
                }
                break;
            default: break;
        }
        return 0;
    }
    static int leave_block(MD_BLOCKTYPE type, void*, void* user) {
        auto* b = static_cast<Builder*>(user);
        switch (type) {
            case MD_BLOCK_UL:
            case MD_BLOCK_OL: b->lists.pop_back(); break;
            case MD_BLOCK_LI: b->li_open = false; break;
            case MD_BLOCK_QUOTE: --b->quote_depth; break;
            case MD_BLOCK_CODE: b->in_code_block = false; break;
            default: break;
        }
        return 0;
    }
    static int enter_span(MD_SPANTYPE type, void*, void* user) {
        auto* b = static_cast<Builder*>(user);
        if (type == MD_SPAN_EM) ++b->em;
        else if (type == MD_SPAN_STRONG) ++b->strong;
        else if (type == MD_SPAN_CODE) ++b->code_span;
        return 0;
    }
    static int leave_span(MD_SPANTYPE type, void*, void* user) {
        auto* b = static_cast<Builder*>(user);
        if (type == MD_SPAN_EM) --b->em;
        else if (type == MD_SPAN_STRONG) --b->strong;
        else if (type == MD_SPAN_CODE) --b->code_span;
        return 0;
    }
    static int text(MD_TEXTTYPE type, const MD_CHAR* p, MD_SIZE n, void* user) {
        auto* b = static_cast<Builder*>(user);
        switch (type) {
            case MD_TEXT_SOFTBR: b->add_text(" "); break;
            case MD_TEXT_BR:
                if (!b->blocks.empty()) b->blocks.back().runs.push_back(MdRun{MdRun::Style::LineBreak, ""});
                break;
            case MD_TEXT_NULLCHAR: b->add_text("\xEF\xBF\xBD"); break;
            case MD_TEXT_ENTITY: {
                std::string e(p, n);
                b->add_text(e == "&amp;" ? "&" : e == "&lt;" ? "<" : e == "&gt;" ? ">" : e == "&quot;" ? "\"" : e == "&nbsp;" ? " " : e);
                break;
            }
            default: b->add_text(std::string(p, n)); break;
        }
        return 0;
    }
};

void draw_runs(Ui& ui, const std::vector<MdRun>& runs, float left, ImFont* base) {
    const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x - ImGui::GetScrollX();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 code_bg = ImGui::GetColorU32(ImGuiCol_FrameBg);
    const ImVec4 em_color = ImGui::GetStyleColorVec4(ImGuiCol_PlotLinesHovered);
    bool line_start = true;
    bool ends_with_space = true;  // did the previous run end with a space?
    float x = ImGui::GetCursorScreenPos().x;
    // After a widget without SameLine() the cursor already sits on the next
    // line: wrapping only has to move it back to the left margin.
    auto newline = [&] {
        ImGui::SetCursorScreenPos(ImVec2(left, ImGui::GetCursorScreenPos().y));
        x = left;
        line_start = true;
    };
    for (const MdRun& run : runs) {
        if (run.style == MdRun::Style::LineBreak) {
            newline();
            continue;
        }
        ImFont* font = run.style == MdRun::Style::Code ? ui.fonts.mono : run.style == MdRun::Style::Strong ? ui.fonts.bold : base;
        ImGui::PushFont(font);
        size_t i = 0;
        const std::string& s = run.text;
        bool start_of_run = true;
        while (i < s.size()) {
            // A word and the spaces after it.
            size_t end = s.find(' ', i);
            end = end == std::string::npos ? s.size() : s.find_first_not_of(' ', end);
            if (end == std::string::npos) end = s.size();
            std::string word = s.substr(i, end - i);
            i = end;
            if (line_start) {
                size_t first = word.find_first_not_of(' ');
                if (first == std::string::npos) continue;
                word = word.substr(first);
            }
            const float w = ImGui::CalcTextSize(word.c_str()).x;
            // Punctuation glued to the previous run ("`(H, T, hd)`.") stays on its line.
            const bool glued = start_of_run && !ends_with_space && word.size() <= 2 && std::ispunct(static_cast<unsigned char>(word[0]));
            start_of_run = false;
            if (!line_start && !glued && x + w > right) {
                newline();
                size_t first = word.find_first_not_of(' ');
                if (first == std::string::npos) continue;
                word = word.substr(first);
            }
            if (!line_start) ImGui::SameLine(0, 0);
            const ImVec2 pos = ImGui::GetCursorScreenPos();
            if (run.style == MdRun::Style::Code) {
                std::string trimmed = word.substr(0, word.find_last_not_of(' ') + 1);
                const ImVec2 size = ImGui::CalcTextSize(trimmed.c_str());
                dl->AddRectFilled(ImVec2(pos.x - 1, pos.y), ImVec2(pos.x + size.x + 1, pos.y + size.y), code_bg, 3.0f);
            }
            if (run.style == MdRun::Style::Emphasis) ImGui::TextColored(em_color, "%s", word.c_str());
            else ImGui::TextUnformatted(word.c_str());
            x = pos.x + ImGui::CalcTextSize(word.c_str()).x;
            line_start = false;
        }
        ends_with_space = !s.empty() && s.back() == ' ';
        ImGui::PopFont();
    }
}

}  // namespace

std::vector<MdBlock> parse_markdown(const std::string& text) {
    Builder b;
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags = MD_FLAG_NOHTML | MD_FLAG_STRIKETHROUGH;
    parser.enter_block = &Builder::enter_block;
    parser.leave_block = &Builder::leave_block;
    parser.enter_span = &Builder::enter_span;
    parser.leave_span = &Builder::leave_span;
    parser.text = &Builder::text;
    md_parse(text.data(), static_cast<MD_SIZE>(text.size()), &parser, &b);
    return b.blocks;
}

void draw_markdown(Ui& ui, const std::string& text) {
    static std::unordered_map<std::string, std::vector<MdBlock>> cache;
    if (cache.size() > 256) cache.clear();
    auto it = cache.find(text);
    if (it == cache.end()) it = cache.emplace(text, parse_markdown(text)).first;
    const float indent = ImGui::GetFontSize() * 1.2f;
    const float base_x = ImGui::GetCursorScreenPos().x;
    bool first = true;
    for (const MdBlock& blk : it->second) {
        if (!first) ImGui::Dummy(ImVec2(0, ImGui::GetStyle().ItemSpacing.y * 0.5f));
        first = false;
        const int depth = blk.kind == MdBlock::Kind::Heading || blk.kind == MdBlock::Kind::Rule ? 0 : blk.level;
        const float left = base_x + indent * static_cast<float>(depth);
        ImGui::SetCursorScreenPos(ImVec2(left, ImGui::GetCursorScreenPos().y));
        switch (blk.kind) {
            case MdBlock::Kind::Heading:
                draw_runs(ui, blk.runs, left, blk.level <= 2 ? ui.fonts.heading : ui.fonts.bold);
                break;
            case MdBlock::Kind::Paragraph: draw_runs(ui, blk.runs, left, ui.fonts.ui); break;
            case MdBlock::Kind::Quote: {
                const ImVec2 top = ImGui::GetCursorScreenPos();
                draw_runs(ui, blk.runs, left, ui.fonts.ui);
                ImGui::GetWindowDrawList()->AddLine(ImVec2(left - indent * 0.5f, top.y), ImVec2(left - indent * 0.5f, ImGui::GetCursorScreenPos().y),
                                                    ImGui::GetColorU32(ImGuiCol_Separator), 2.0f);
                break;
            }
            case MdBlock::Kind::ListItem: {
                ImGui::TextUnformatted(blk.bullet.c_str());
                ImGui::SameLine(0, 0);
                ImGui::SetCursorScreenPos(ImVec2(left + indent, ImGui::GetCursorScreenPos().y));
                draw_runs(ui, blk.runs, left + indent, ui.fonts.ui);
                break;
            }
            case MdBlock::Kind::Code: {
                // A line longer than the pane scrolls inside the block (never the
                // whole statement, never cut off); the wheel still scrolls the page.
                std::string code = blk.code;
                if (!code.empty() && code.back() == '\n') code.pop_back();
                ImGui::PushFont(ui.fonts.mono);
                const ImVec2 size = ImGui::CalcTextSize(code.c_str());
                const ImVec2 pad = ImGui::GetStyle().FramePadding;
                const float width = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
                const bool scrolls = size.x + 2 * pad.x > width;
                const float height = size.y + 2 * pad.y + (scrolls ? ImGui::GetStyle().ScrollbarSize : 0.0f);
                ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
                ImGui::PushStyleVar(ImGuiStyleVar_ChildRounding, 4.0f);
                ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, pad);
                ImGui::PushID(static_cast<int>(&blk - it->second.data()));
                ImGui::BeginChild("code", ImVec2(width, height), false, ImGuiWindowFlags_HorizontalScrollbar);
                ImGui::TextUnformatted(code.c_str());
                ImGui::EndChild();
                ImGui::PopID();
                ImGui::PopStyleVar(2);
                ImGui::PopStyleColor();
                ImGui::PopFont();
                break;
            }
            case MdBlock::Kind::Rule: ImGui::Separator(); break;
        }
    }
}

}  // namespace attnlab::gui
