#pragma once
// Keyboard and mouse events queued between the window system and Dear ImGui.
// ImGui 1.86 keeps key and button *state* (io.KeysDown): a press and its
// release arriving within one frame (fast typing, auto-repeat, a script
// sending keys 10 ms apart) would cancel out and the key be lost. The queue
// hands ImGui each frame's events only up to the first that would change a
// key or button a second time, or put a key press after typed text (so
// Backspace and letters stay in order); the rest waits for the next frame.
// No GLFW here (its action codes are mirrored), so it is tested headlessly.
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
};

class InputQueue {
public:
    void push(const InputEvent& e) { events_.push_back(e); }
    bool empty() const { return events_.empty(); }
    size_t size() const { return events_.size(); }

    // Dispatches this frame's share of the queue, in arrival order; returns how many.
    int feed_frame(const std::function<void(const InputEvent&)>& dispatch) {
        std::set<int> keys, buttons;
        bool typed = false, key_pressed = false;
        int n = 0;
        while (!events_.empty()) {
            const InputEvent& e = events_.front();
            if (e.kind == InputEvent::Key && e.action != InputEvent::kRepeat) {
                // Editing keys (Backspace, Enter, arrows…; GLFW codes from 256, modifiers aside)
                // act after the text of a frame in ImGui, so they may not share a frame with text.
                const bool editing = e.action == InputEvent::kPress && e.code >= 256 && !(e.code >= 340 && e.code <= 347);
                if (!keys.insert(e.code).second) break;  // a second change of this key
                if (editing && typed) break;
                key_pressed |= editing;
            } else if (e.kind == InputEvent::MouseButton) {
                if (!buttons.insert(e.code).second) break;
            } else if (e.kind == InputEvent::Char) {
                if (key_pressed) break;  // the editing key first, the text after it next frame
                typed = true;
            }
            dispatch(e);
            events_.pop_front();
            ++n;
        }
        return n;
    }

private:
    std::deque<InputEvent> events_;
};

}  // namespace attnlab::gui
