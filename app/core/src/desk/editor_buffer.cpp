#include "attnlab/core/desk/editor_buffer.hpp"

#include "attnlab/core/base/util.hpp"

namespace attnlab {

std::optional<fs::file_time_type> EditorBuffer::disk_time() const {
    std::error_code ec;
    auto t = fs::last_write_time(file_, ec);
    if (ec) return std::nullopt;
    return t;
}

void EditorBuffer::load(const fs::path& file) {
    file_ = file;
    text_ = read_file(file_).value_or("");
    saved_text_ = text_;
    dirty_ = false;
    conflict_ = false;
    disk_time_ = disk_time();
    ++generation_;
}

void EditorBuffer::mark_edited(Clock::time_point now) {
    dirty_ = text_ != saved_text_;
    last_edit_ = now;
}

void EditorBuffer::mark_saved() {
    saved_text_ = text_;
    dirty_ = false;
    conflict_ = false;
    disk_time_ = disk_time();
}

EditorBuffer::DiskEvent EditorBuffer::poll(Clock::time_point now, bool autosave_enabled) {
    if (file_.empty()) return DiskEvent::None;
    const bool autosave_due = autosave_enabled && dirty_ && now - last_edit_ > kAutosaveDelay && now >= autosave_retry_at_;
    DiskEvent event = DiskEvent::None;
    if (autosave_due || now - last_disk_poll_ > kDiskPollInterval) {
        last_disk_poll_ = now;
        ++disk_checks_;
        auto t = disk_time();
        if (t && t != disk_time_) {
            auto text = read_file(file_);
            disk_time_ = t;
            if (text && *text != saved_text_) {
                if (!dirty_) {
                    text_ = saved_text_ = *text;
                    ++generation_;
                    event = DiskEvent::Reloaded;
                } else {
                    conflict_ = true;
                }
            }
        }
    }
    if (autosave_due && !conflict_) {
        // mtimes can be too coarse to see a quick outside write: compare content.
        auto disk = read_file(file_);
        if (disk && *disk != saved_text_ && *disk != text_) conflict_ = true;
        else return DiskEvent::AutosaveDue;
    }
    return event;
}

}  // namespace attnlab
