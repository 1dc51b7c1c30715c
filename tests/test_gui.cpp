// The GUI's real panels, driven headlessly: Dear ImGui with no platform or
// renderer backend, input simulated the 1.86 way (io.MousePos/MouseDown,
// io.KeysDown with GLFW key codes, io.KeyCtrl), assertions on the Session's
// state and the Ui's recorded widget rects — never on pixels. Every test has
// its own ATTNLAB_HOME and uses the fixture course.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "gui_harness.hpp"

using namespace attnlab;
using testing::course_options;
using testing::HarnessConfig;
using testing::kKeyEnter, testing::kKeyEscape, testing::kKeyF1, testing::kKeyH, testing::kKeyL, testing::kKeyS;
using testing::slurp;
using testing::TempHome;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;

// Another program writing the learner's file; its mtime moves on for sure.
void write_externally(const fs::path& p, const std::string& text) {
    {
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        REQUIRE(out.good());
        out << text;
    }
    fs::last_write_time(p, fs::last_write_time(p) + std::chrono::seconds(2));
}

Session::Options fixture_options() { return course_options(kFixtures / "course"); }

// The shared harness on the fixture course.
struct Harness : testing::Harness {
    explicit Harness(const std::string& exercise = "fx-split")
        : testing::Harness(HarnessConfig{kFixtures / "course", exercise}) {}
};

std::string solution(const char* name) { return slurp(kFixtures / "solutions" / name); }

}  // namespace

TEST_CASE("gui: clicking Run checks the buffer; a correct solution passes") {
    Harness h;
    REQUIRE(h.has("run"));
    CHECK_FALSE(h.has("cancel"));
    CHECK(h.session.status("fx-split") == ExerciseStatus::NotStarted);
    h.set_buffer(solution("correct.cpp"));
    REQUIRE(h.session.dirty());
    h.click("run");
    CHECK((h.session.checking() || h.session.last_result() != nullptr));
    CHECK_FALSE(h.session.dirty());  // a check saves first
    CHECK(slurp(h.session.file()) == solution("correct.cpp"));
    REQUIRE(h.wait_result());
    CHECK(h.session.last_result()->verdict == Verdict::Pass);
    CHECK(h.session.status("fx-split") == ExerciseStatus::Passed);
    h.frames(2);
    CHECK(h.has("run"));  // the toolbar is back to Run
    CHECK_FALSE(h.has("cancel"));
}

TEST_CASE("gui: clicking a compiler error moves the editor's cursor to its line") {
    Harness h;
    const int bad_line = 5;
    h.set_buffer(
        "#include <attnlab/tensor.hpp>\n"
        "using namespace attnlab;\n"
        "Tensor split_heads(const Tensor& x, int n_heads) {\n"
        "    (void)x; (void)n_heads;\n"
        "    return undeclared_name_here;\n"
        "}\n");
    h.click("run");
    REQUIRE(h.wait_result());
    const CheckResult& r = *h.session.last_result();
    REQUIRE(r.verdict == Verdict::CompileError);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].line == bad_line);
    CHECK(r.diagnostics[0].file == h.session.file().string());
    h.frames(2);
    REQUIRE(h.has("diag:0"));
    REQUIRE(h.ui.editor_cursor_line != bad_line);
    h.click("diag:0");
    CHECK(h.wait_until([&] { return h.ui.editor_cursor_line == bad_line; }));
    h.frames(3);
    CHECK(h.ui.editor_cursor_line == bad_line);  // and it stays there
}

TEST_CASE("gui: the language switch applies at once, persists, and Ctrl+L toggles") {
    Harness h;
    REQUIRE(h.session.lang() == Lang::En);
    CHECK(h.ui.t(msg::gui_editor_run) == "Run");
    h.click("menu_lang:id");
    CHECK(h.session.lang() == Lang::Id);
    CHECK(h.ui.t(msg::gui_editor_run) == "Jalankan");
    CHECK(h.has("run"));  // the relabelled button is still drawn and noted
    {
        Session again(fixture_options());  // same ATTNLAB_HOME
        CHECK(again.lang() == Lang::Id);
    }
    h.key(kKeyL, /*ctrl=*/true);
    CHECK(h.session.lang() == Lang::En);
    CHECK(h.ui.t(msg::gui_editor_run) == "Run");
    {
        Session again(fixture_options());
        CHECK(again.lang() == Lang::En);
    }
    h.key(kKeyL, true);
    CHECK(h.session.lang() == Lang::Id);
    h.key(kKeyL, true);
    CHECK(h.session.lang() == Lang::En);

    // The settings window's radio buttons do the same.
    h.ui.show_settings = true;
    h.frames(3);  // an auto-resizing window is measured before it is shown
    h.click("lang:id");
    CHECK(h.session.lang() == Lang::Id);
    h.click("lang:en");
    CHECK(h.session.lang() == Lang::En);
}

TEST_CASE("gui: Ctrl+Enter starts a check and Esc cancels it") {
    Harness h;
    h.set_buffer(solution("sleeps.cpp"));
    h.key(kKeyEnter, /*ctrl=*/true);
    REQUIRE(h.session.checking());  // compiling, then sleeping: still busy
    CHECK(h.has("cancel"));
    CHECK(h.has("results_cancel"));
    CHECK_FALSE(h.has("run"));
    h.key(kKeyEscape);
    REQUIRE(h.wait_result());
    CHECK(h.session.last_result()->verdict == Verdict::Cancelled);
    CHECK(h.session.status("fx-split") == ExerciseStatus::NotStarted);  // a cancelled check is no attempt

    // Esc with nothing running is harmless; Enter without Ctrl runs nothing.
    h.key(kKeyEscape);
    h.key(kKeyEnter);
    CHECK_FALSE(h.session.checking());
    CHECK(h.session.last_result()->verdict == Verdict::Cancelled);
}

TEST_CASE("gui: Ctrl+S saves the buffer; Ctrl+H reveals a hint") {
    Harness h;
    const std::string before = slurp(h.session.file());
    const std::string edited = before + "// edited in the GUI\n";
    h.set_buffer(edited);
    REQUIRE(h.session.dirty());
    h.key(kKeyS, /*ctrl=*/true);
    CHECK_FALSE(h.session.dirty());
    CHECK(slurp(h.session.file()) == edited);
    CHECK_FALSE(h.session.checking());  // auto-run on save is off by default

    // S without Ctrl does nothing to the file.
    h.set_buffer(edited + "// more\n");
    h.key(kKeyS);
    CHECK(h.session.dirty());
    CHECK(slurp(h.session.file()) == edited);

    const int hints = h.session.hints_revealed();
    CHECK(hints == 0);
    h.key(kKeyH, /*ctrl=*/true);
    CHECK(h.session.hints_revealed() == hints + 1);
    CHECK(h.ui.statement_tab == 1);
    h.key(kKeyH, true);
    CHECK(h.session.hints_revealed() == hints + 2);
}

TEST_CASE("gui: Reset asks first, then restores the starter and keeps a backup") {
    Harness h;
    const std::string starter = slurp(kFixtures / "course" / "fx-split" / "starter.cpp");
    const std::string mine = "// my attempt\n" + starter;
    h.set_buffer(mine);
    h.click("reset");
    h.frames(3);  // the modal opens, is measured, then shown
    CHECK(h.session.buffer() == mine);  // nothing happens before confirming
    REQUIRE(h.has("reset_confirm"));
    h.click("reset_confirm");
    CHECK(h.session.buffer() == starter);
    CHECK_FALSE(h.session.dirty());
    CHECK(slurp(h.session.file()) == starter);
    h.frames(2);
    CHECK_FALSE(h.has("reset_confirm"));  // the modal closed

    int backups = 0;
    const std::string prefix = h.session.file().filename().string() + ".bak-";
    for (const auto& entry : fs::directory_iterator(h.session.file().parent_path())) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        ++backups;
        CHECK(slurp(entry.path()) == mine);
    }
    CHECK(backups == 1);
}

TEST_CASE("gui: a disk change under unsaved edits asks; Keep mine writes the buffer") {
    Harness h;
    const std::string mine = h.session.buffer() + "// mine\n";
    const std::string theirs = "// theirs\n";
    h.set_buffer(mine);
    write_externally(h.session.file(), theirs);
    REQUIRE(h.wait_disk_checks());
    REQUIRE(h.session.disk_conflict());
    REQUIRE(h.has("keep_mine"));
    REQUIRE(h.has("take_disk"));
    CHECK(h.session.buffer() == mine);
    REQUIRE(h.wait_past_autosave());  // autosave must not clobber during a conflict
    CHECK(slurp(h.session.file()) == theirs);
    h.session.run_check();  // checking during a conflict checks the buffer and leaves the file alone
    CHECK(slurp(h.session.file()) == theirs);
    h.session.cancel_check();
    h.click("keep_mine");
    CHECK_FALSE(h.session.disk_conflict());
    CHECK_FALSE(h.session.dirty());
    CHECK(slurp(h.session.file()) == mine);
    CHECK(h.session.buffer() == mine);
    REQUIRE(h.wait_disk_checks());  // our own save is no external change
    CHECK_FALSE(h.session.disk_conflict());
    CHECK_FALSE(h.has("keep_mine"));
}

TEST_CASE("gui: a disk change under unsaved edits asks; Take disk loads the file") {
    Harness h;
    const std::string mine = h.session.buffer() + "// mine\n";
    const std::string theirs = "// theirs\n";
    h.set_buffer(mine);
    write_externally(h.session.file(), theirs);
    REQUIRE(h.wait_disk_checks());
    REQUIRE(h.session.disk_conflict());
    REQUIRE(h.has("take_disk"));
    h.click("take_disk");
    CHECK_FALSE(h.session.disk_conflict());
    CHECK_FALSE(h.session.dirty());
    CHECK(h.session.buffer() == theirs);
    CHECK(slurp(h.session.file()) == theirs);
    h.frames(2);
    CHECK(h.session.buffer() == theirs);  // the editor widget did not write its old copy back
    CHECK_FALSE(h.has("take_disk"));
}

TEST_CASE("gui: a disk change without unsaved edits is reloaded silently") {
    Harness h;
    REQUIRE_FALSE(h.session.dirty());
    const std::string external = "// written by another editor\n";
    write_externally(h.session.file(), external);
    REQUIRE(h.wait_disk_checks());
    CHECK(h.wait_until([&] { return h.session.buffer() == external; }));
    CHECK_FALSE(h.session.disk_conflict());
    CHECK_FALSE(h.session.dirty());
    CHECK_FALSE(h.has("keep_mine"));
    h.frames(2);
    CHECK(h.session.buffer() == external);
    CHECK(slurp(h.session.file()) == external);
}

TEST_CASE("gui: clicking an exercise in the course list opens it") {
    Harness h;
    REQUIRE(h.session.current()->id == "fx-split");
    REQUIRE(h.has("exercise:fx-split"));
    REQUIRE(h.has("exercise:fx-params"));
    const std::string edited = h.session.buffer() + "// keep me\n";
    h.set_buffer(edited);
    h.click("exercise:fx-params");
    REQUIRE(h.session.current() != nullptr);
    CHECK(h.session.current()->id == "fx-params");
    CHECK(h.session.buffer() == slurp(kFixtures / "course" / "fx-params" / "starter.cpp"));
    CHECK(slurp(h.session.file().parent_path() / "fx-split.cpp") == edited);  // the one left was saved
    h.click("exercise:fx-split");
    CHECK(h.session.current()->id == "fx-split");
    CHECK(h.session.buffer() == edited);
}

TEST_CASE("gui: F1 toggles the shortcut help") {
    Harness h;
    REQUIRE_FALSE(h.ui.show_help);
    h.key(kKeyF1);
    CHECK(h.ui.show_help);
    h.frame();
    CHECK(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
    h.key(kKeyF1);
    CHECK_FALSE(h.ui.show_help);
    h.frame();
    CHECK_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
    h.key(kKeyF1);
    CHECK(h.ui.show_help);
    h.key(kKeyEscape);  // Esc closes it too
    CHECK_FALSE(h.ui.show_help);
    h.frame();
    CHECK_FALSE(ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId));
}

namespace {

// The files beside the learner's file whose names start with <file>.<kind>-
std::vector<std::string> kept_copies(const fs::path& file, const std::string& kind) {
    std::vector<std::string> out;
    const std::string prefix = file.filename().string() + "." + kind + "-";
    for (const auto& entry : fs::directory_iterator(file.parent_path()))
        if (entry.path().filename().string().rfind(prefix, 0) == 0) out.push_back(slurp(entry.path()));
    return out;
}

}  // namespace

TEST_CASE("gui: leaving an exercise during a conflict keeps both versions") {
    Harness h;
    const fs::path file = h.session.file();
    const std::string mine = h.session.buffer() + "// mine, never saved\n";
    const std::string theirs = "// written by another editor\n";
    h.set_buffer(mine);
    write_externally(file, theirs);
    REQUIRE(h.wait_disk_checks());
    REQUIRE(h.session.disk_conflict());
    h.click("exercise:fx-params");  // switching saves the buffer...
    REQUIRE(h.session.current()->id == "fx-params");
    CHECK(slurp(file) == mine);
    const auto kept = kept_copies(file, "disk");  // ...and keeps the other version beside it
    REQUIRE(kept.size() == 1);
    CHECK(kept[0] == theirs);
}

TEST_CASE("gui: an outside write that keeps the mtime is still not overwritten by autosave") {
    Harness h;
    const fs::path file = h.session.file();
    const auto mtime = fs::last_write_time(file);
    h.set_buffer(h.session.buffer() + "// typing\n");
    {
        std::ofstream out(file, std::ios::trunc);
        out << "// same mtime, other content\n";
    }
    fs::last_write_time(file, mtime);  // coarse timestamps: the change is invisible to mtime
    REQUIRE(h.wait_past_autosave());
    CHECK(h.session.disk_conflict());
    CHECK(slurp(file) == "// same mtime, other content\n");
}

TEST_CASE("gui: quitting during a conflict keeps both versions") {
    TempHome home;  // outlives the session
    fs::path file;
    std::string mine;
    {
        Session session(fixture_options());
        REQUIRE(session.open("fx-split"));
        file = session.file();
        mine = session.buffer() + "// mine at quit\n";
        session.buffer() = mine;
        session.mark_edited();
        write_externally(file, "// theirs at quit\n");
        for (int i = 0; i < 100 && !session.disk_conflict(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            session.poll();
        }
        REQUIRE(session.disk_conflict());
    }  // the session ends here, as when the window closes
    CHECK(slurp(file) == mine);
    const auto kept = kept_copies(file, "disk");
    REQUIRE(kept.size() == 1);
    CHECK(kept[0] == "// theirs at quit\n");
}

TEST_CASE("gui: typing in the editor; Tab inserts spaces to the next tab stop; Ctrl+Z undoes a word, Ctrl+Y and Ctrl+Shift+Z redo") {
    Harness h;
    h.set_buffer("");
    h.session.save();
    h.frames(2);
    REQUIRE(h.has("editor"));
    h.click("editor");  // focus the text
    for (char c : std::string("ab")) h.io().AddInputCharacter(static_cast<unsigned>(c));
    h.frames(2);
    CHECK(h.session.buffer() == "ab");
    CHECK(h.session.dirty());
    h.key(testing::kKeyTab);  // column 2 -> next stop at 4 (default width 4)
    CHECK(h.session.buffer() == "ab  ");
    CHECK(h.session.buffer().find('\t') == std::string::npos);

    Preferences p = h.session.preferences();
    p.tab_width = 8;
    h.session.set_preferences(p);
    h.key(testing::kKeyTab);  // column 4 -> 8
    CHECK(h.session.buffer() == "ab      ");
    for (char c : std::string("cd")) h.io().AddInputCharacter(static_cast<unsigned>(c));
    h.frames(2);
    CHECK(h.session.buffer() == "ab      cd");

    // The session's undo, not the widget's: a word (with its spaces) per step.
    h.key(testing::kKeyZ, /*ctrl=*/true);
    CHECK(h.session.buffer() == "ab      ");
    h.key(testing::kKeyZ, true);
    CHECK(h.session.buffer() == "");
    h.key(testing::kKeyY, true);
    CHECK(h.session.buffer() == "ab      ");
    h.io().KeyShift = true;
    h.key(testing::kKeyZ, true);
    h.io().KeyShift = false;
    CHECK(h.session.buffer() == "ab      cd");
    CHECK(h.ui.editor.active);  // the editor kept the keyboard throughout
    h.io().AddInputCharacter('!');
    h.frames(2);
    CHECK(h.session.buffer() == "ab      cd!");
}

TEST_CASE("gui: Esc after typing keeps the text and the keyboard (Dear ImGui would revert it)") {
    Harness h;
    const std::string before = h.session.buffer();
    h.click("editor_view");
    for (char c : std::string("xyz")) h.io().AddInputCharacter(static_cast<unsigned>(c));
    h.frames(2);
    const std::string typed = h.session.buffer();
    REQUIRE(typed.size() == before.size() + 3);
    h.key(kKeyEscape);
    CHECK(h.session.buffer() == typed);
    CHECK(h.ui.editor.active);
    h.io().AddInputCharacter('w');
    h.frames(2);
    CHECK(h.session.buffer().size() == before.size() + 4);
    h.key(kKeyS, /*ctrl=*/true);
    CHECK(slurp(h.session.file()) == h.session.buffer());
}

TEST_CASE("gui: a select-all deletion is undone; undo reaches back past a save") {
    Harness h;
    const std::string before = h.session.buffer();
    REQUIRE_FALSE(before.empty());
    h.click("editor_view");
    h.key(testing::kKeyA, /*ctrl=*/true);
    h.key(testing::kKeyBackspace);
    CHECK(h.session.buffer().empty());
    h.key(kKeyS, true);
    CHECK(slurp(h.session.file()).empty());
    h.key(testing::kKeyZ, true);
    CHECK(h.session.buffer() == before);
    CHECK(h.session.dirty());
    h.key(testing::kKeyY, true);
    CHECK(h.session.buffer().empty());
}

TEST_CASE("gui: the History window lists the saves and restores one; the restore is one undo step") {
    Harness h;
    h.set_buffer("// version one\n");
    h.key(kKeyS, /*ctrl=*/true);
    h.set_buffer("// version two\n");
    h.key(kKeyS, true);
    h.click("history");
    REQUIRE(h.has("history_window"));
    CHECK_FALSE(h.has("history_restore:2"));  // the text in the editor: nothing to restore
    h.click("history_restore:1");
    CHECK(h.session.buffer() == "// version one\n");
    CHECK(slurp(h.session.file()) == "// version one\n");
    const std::vector<Version>& v = h.session.versions();
    REQUIRE(v.size() == 3);
    CHECK(v.back().reason == VersionReason::Restored);
    CHECK(h.has("history_restore:2"));
    h.key(testing::kKeyZ, true);  // the restore taken back in the editor
    CHECK(h.session.buffer() == "// version two\n");
    h.key(kKeyEscape);
    CHECK_FALSE(h.ui.show_history);
}

TEST_CASE("gui: leaving an exercise while its check runs still records the result") {
    Harness h;
    h.set_buffer(solution("correct.cpp"));
    h.session.run_check();
    REQUIRE(h.session.open("fx-params"));
    CHECK_FALSE(h.session.checking());  // nothing runs for fx-params
    REQUIRE(h.wait_until([&] { return h.session.status("fx-split") == ExerciseStatus::Passed; }, 60.0));
    REQUIRE(h.session.open("fx-split"));
    REQUIRE(h.session.last_result() != nullptr);
    CHECK(h.session.last_result()->verdict == Verdict::Pass);
}

TEST_CASE("gui: checking an unedited file does not rewrite it") {
    Harness h;
    const fs::path file = h.session.file();
    const auto inode_before = [&] {
        struct stat st {};
        ::stat(file.c_str(), &st);
        return st.st_ino;
    };
    const auto ino = inode_before();
    const auto mtime = fs::last_write_time(file);
    REQUIRE_FALSE(h.session.dirty());
    h.session.run_check();
    REQUIRE(h.wait_result());
    CHECK(inode_before() == ino);  // no save: an atomic save would have replaced the inode
    CHECK(fs::last_write_time(file) == mtime);
}
