#include "attnlab/core/desk/lab.hpp"

#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

Lab::Lab(Options options) : paths_(std::move(options.paths)), progress_(paths_.progress_file()) {
    KeyedMessage warning;
    settings_ = Settings::load(paths_.settings_file(), &warning);
    if (settings_.unreadable) {
        // Kept aside now, as an unreadable progress file is: whatever attnlab
        // saves later cannot cost the user the file's other keys.
        try {
            if (const std::optional<fs::path> aside = settings_.keep_unreadable_aside(paths_.settings_file()))
                warning = {msg::startup_settings_set_aside, {{"file", paths_.settings_file().string()}, {"aside", aside->string()}}, warning.parts};
        } catch (const FileError& e) {
            warning = {msg::startup_settings_unmovable, {{"file", paths_.settings_file().string()}}, {{"why", warning.parts["why"]}, {"error", message_of(e)}}};
        }
    }
    if (!warning.empty()) startup_warnings_.push_back(warning);
    lang_ = resolve_language(options.lang_flag, settings_);
    try {
        course_ = load_course(resolve_course_dir(options.course_dir));
    } catch (const CourseError& e) {
        course_error_ = e.what();
    }
    workspace_ = std::make_unique<Workspace>(paths_);
    if (KeyedMessage recovered = progress_.load(); !recovered.empty()) startup_warnings_.push_back(recovered);
}

std::vector<std::string> Lab::startup_warnings() const {
    std::vector<std::string> texts;
    for (const KeyedMessage& warning : startup_warnings_) texts.push_back(warning.text(lang_));
    return texts;
}

void Lab::set_lang(Lang lang) {
    lang_ = lang;
    settings_.language = lang;
}

const Exercise* Lab::find(const std::string& id, std::string* why) const {
    if (const Exercise* e = course_.find(id)) return e;
    if (why) {
        const auto broken = course_.broken.find(id);
        *why = broken != course_.broken.end() ? tr(lang_, msg::cli_broken_exercise, {{"id", id}, {"problem", broken->second}})
                                              : tr(lang_, msg::cli_unknown_exercise, {{"id", id}});
    }
    return nullptr;
}

Runner& Lab::runner() {
    if (!runner_) {
        Toolchain toolchain = Toolchain::detect();
        toolchain.weak_sandbox_allowed = weak_sandbox_opt_in(settings_).allowed();  // what every check this Lab runs follows
        compiler_ = std::make_unique<Compiler>(std::move(toolchain), paths_.cache);
        runner_ = std::make_unique<Runner>(*compiler_);
    }
    return *runner_;
}

}  // namespace attnlab
