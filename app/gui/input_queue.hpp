#pragma once
// Keyboard and mouse events queued between the window system and Dear ImGui.
// ImGui 1.86 keeps key and button *state* (io.KeysDown) and reads it once a
// frame: a press and its release arriving within one frame (fast typing,
// auto-repeat, a script sending keys 5 ms apart) would cancel out and the key
// be lost. So the queue hands ImGui each frame as much as it can read
// correctly, in arrival order, and keeps the rest for the next frame:
//
//  - every typed character, and the letter keys that typed it (their state
//    means nothing to ImGui while no Ctrl, Alt or Super is held): a frame
//    takes any number of them, so typing at any speed costs no extra frames;
//  - at most one key that acts (an editing key such as Backspace or an arrow,
//    or any key with Ctrl, Alt or Super: a shortcut), and never after text of
//    the same frame nor before text (ImGui applies a frame's text before its
//    keys, and the window's shortcuts run before the editor takes the text:
//    Ctrl+S must save what was typed before it); its release waits a frame;
//  - modifiers in order, never after the acting key (it is read with the
//    modifiers it was pressed with), and Ctrl, Alt or Super never pressed
//    after text (ImGui drops a frame's text while Ctrl is down);
//  - a mouse button changed once, and a press never after text.
// While the editor has the keyboard, Enter and Tab are typed text ('\n',
// '\t'), as ImGui's multiline input would insert them anyway: lines of code
// arrive at the speed of the letters.
// No GLFW here (its action and key codes are mirrored), so it is tested headlessly.
#include <deque>
#include <functional>
#include <set>

namespace attnlab::gui {

struct InputEvent {
    enum Kind { Key, Char, MouseButton, Scroll } kind = Key;
    int code = 0;      // key, mouse button, or the character
    int scancode = 0;
    int action = 0;    // kRelease, kPress, kRepeat (GLFW's values)
    int mods = 0;
    double dx = 0, dy = 0;  // scroll
    static constexpr int kRelease = 0, kPress = 1, kRepeat = 2;
    static constexpr int kModShift = 0x1, kModCtrl = 0x2, kModAlt = 0x4, kModSuper = 0x8;  // GLFW_MOD_*
    static constexpr int kKeyTab = 258, kKeyEnter = 257, kKeyPadEnter = 335;               // GLFW_KEY_*
    static constexpr int kFirstModifier = 340, kLastModifier = 347;  // shifts, controls, alts, supers
};

class InputQueue {
public:
    void push(const InputEvent& e) { events_.push_back(e); }
    bool empty() const { return events_.empty(); }
    size_t size() const { return events_.size(); }

    // Dispatches this frame's share of the queue, in arrival order; returns
    // how many events it took. `editing_text`: the multiline editor has the
    // keyboard (Enter and Tab become text).
    int feed_frame(const std::function<void(const InputEvent&)>& dispatch, bool editing_text = false) {
        Frame frame;
        int n = 0;
        while (!events_.empty()) {
            if (editing_text && typed_as_text(events_.front())) {  // the release of a key typed as text: ImGui never saw it pressed
                events_.pop_front();
                ++n;
                continue;
            }
            const InputEvent e = events_.front();
            if (!frame.admits(e, held_)) break;
            if (e.kind == InputEvent::Key && is_modifier(e.code) && e.action != InputEvent::kRepeat)
                held_[e.code - InputEvent::kFirstModifier] = e.action == InputEvent::kPress;
            dispatch(e);
            events_.pop_front();
            ++n;
        }
        return n;
    }

private:
    static bool is_modifier(int code) { return code >= InputEvent::kFirstModifier && code <= InputEvent::kLastModifier; }

    // What ImGui has been told of the modifiers (left and right shift, control, alt, super).
    struct Held {
        bool down[8] = {};
        bool& operator[](int i) { return down[i]; }
        bool ctrl_alt_super() const { return down[1] || down[2] || down[3] || down[5] || down[6] || down[7]; }
        bool shift() const { return down[0] || down[4]; }
    };

    // What one frame has taken so far, and whether it can take `e` too.
    struct Frame {
        std::set<int> changed;         // acting keys and mouse buttons whose state changed
        std::set<int> text_keys_down;  // text keys pressed in this frame and not released yet
        bool typed = false;            // a character went out
        bool acted = false;            // a key that acts went out

        bool admits(const InputEvent& e, const Held& held) {
            switch (e.kind) {
                case InputEvent::Scroll: return true;
                case InputEvent::Char:
                    if (acted) return false;  // the acting key first, the text after it next frame
                    typed = true;
                    return true;
                case InputEvent::MouseButton: {
                    const int id = -1 - e.code;  // apart from key codes
                    if (e.action == InputEvent::kPress && typed) return false;  // a click must not move the cursor under text typed before it
                    return changed.insert(id).second;
                }
                case InputEvent::Key: return admits_key(e, held);
            }
            return true;
        }

        bool admits_key(const InputEvent& e, const Held& held) {
            if (e.action == InputEvent::kRepeat) return true;  // ImGui repeats held keys itself
            const bool press = e.action == InputEvent::kPress;
            if (is_modifier(e.code)) {
                if (acted) return false;
                // Ctrl, Alt or Super down at the end of a frame would make a letter pressed in it a
                // shortcut, and Dear ImGui drops a frame's characters while Ctrl is down.
                const bool shortcut_modifier = e.code != InputEvent::kFirstModifier && e.code != InputEvent::kFirstModifier + 4;
                return !(press && shortcut_modifier && (typed || !text_keys_down.empty()));
            }
            const bool shortcut = held.ctrl_alt_super() || (e.mods & (InputEvent::kModCtrl | InputEvent::kModAlt | InputEvent::kModSuper));
            if (e.code < 256 && !shortcut) {  // a text key: the character it types is what counts
                if (press) text_keys_down.insert(e.code);
                else text_keys_down.erase(e.code);
                return true;
            }
            if (press && (typed || acted)) return false;
            if (!changed.insert(e.code).second) return false;  // pressed in this frame: its release waits
            acted |= press;
            return true;
        }
    };

    // While the editor has the keyboard, Enter (Shift+Enter too) and Tab with
    // no modifier are the characters they insert: a press or repeat becomes
    // the character in place; true for their releases, which are dropped.
    bool typed_as_text(InputEvent& e) {
        if (e.kind != InputEvent::Key) return false;
        const bool enter = e.code == InputEvent::kKeyEnter || e.code == InputEvent::kKeyPadEnter;
        const bool tab = e.code == InputEvent::kKeyTab;
        if (!enter && !tab) return false;
        if (e.action == InputEvent::kRelease) return typed_keys_.erase(e.code) > 0;
        const bool other_mods = held_.ctrl_alt_super() || (e.mods & (InputEvent::kModCtrl | InputEvent::kModAlt | InputEvent::kModSuper));
        const bool shifted = held_.shift() || (e.mods & InputEvent::kModShift);
        if (other_mods || (tab && shifted)) return false;
        typed_keys_.insert(e.code);
        e = InputEvent{InputEvent::Char, enter ? '\n' : '\t'};
        return false;
    }

    std::deque<InputEvent> events_;
    Held held_;
    std::set<int> typed_keys_;  // Enter or Tab keys typed as text and not released yet
};

}  // namespace attnlab::gui
