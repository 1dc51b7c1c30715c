// The learner's text is never lost: the editor's undo for a whole session
// (UndoHistory, EditorBuffer) and each exercise's local history of versions
// (VersionHistory, Workspace::restore), on private temporary folders.
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/desk/editor_buffer.hpp"
#include "attnlab/core/desk/undo_history.hpp"
#include "attnlab/core/desk/version_history.hpp"
#include "attnlab/core/desk/workspace.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;

namespace {

std::string slurp(const fs::path& p) { return read_file(p).value_or("<missing>"); }

void spit(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

// Typing `text` one character at a time at the end of `h`'s text.
void type(UndoHistory& h, const std::string& text) {
    std::string now = h.text();
    for (char c : text) {
        now += c;
        h.record(now);
    }
}

}  // namespace

// ---- undo ------------------------------------------------------------------------------------------

TEST_CASE("undo: a select-all deletion of a large file comes back, and goes again on redo") {
    const std::string file(5000, 'x');  // far past stb_textedit's 999 characters
    UndoHistory h(file);
    h.record("");
    REQUIRE(h.text().empty());
    const std::optional<size_t> cursor = h.undo();
    REQUIRE(cursor);
    CHECK(h.text() == file);
    CHECK(*cursor == file.size());  // the end of what came back
    CHECK_FALSE(h.can_undo());
    REQUIRE(h.redo());
    CHECK(h.text().empty());
    CHECK_FALSE(h.redo());
}

TEST_CASE("undo: typing is one step per word, a line break its own; every step back to the start, and forward again") {
    UndoHistory h("int f() {\n}\n");
    std::string now = h.text();
    now.insert(10, "    return 1;\n");  // a whole line at once (a paste, or a fast frame): it breaks a line, its own step
    h.record(now);
    type(h, "// one two");
    CHECK(h.undo_steps() == 4);  // the line, "// ", "one ", "two"
    const std::string body = "int f() {\n    return 1;\n}\n";
    const std::vector<std::string> back = {body + "// one ", body + "// ", body, "int f() {\n}\n"};
    for (const std::string& expected : back) {
        REQUIRE(h.undo());
        CHECK(h.text() == expected);
    }
    CHECK_FALSE(h.undo());
    for (int i = 0; i < 4; ++i) REQUIRE(h.redo());
    CHECK(h.text() == body + "// one two");
    CHECK_FALSE(h.redo());
}

TEST_CASE("undo: Backspace and Delete runs on one line are one step; an edit after undo drops the redo") {
    UndoHistory h("abcdef");
    h.record("abcde");
    h.record("abcd");
    h.record("abc");  // three Backspaces
    CHECK(h.undo_steps() == 1);
    h.record("bc");  // Delete at the start: somewhere else, a new step
    CHECK(h.undo_steps() == 2);
    REQUIRE(h.undo());
    CHECK(h.text() == "abc");
    REQUIRE(h.undo());
    CHECK(h.text() == "abcdef");
    CHECK(h.can_redo());
    h.record("abcdefg");
    CHECK_FALSE(h.can_redo());
    REQUIRE(h.undo());
    CHECK(h.text() == "abcdef");
}

TEST_CASE("undo: a sealed step (a save, a check) is never merged into; a replace is its own step") {
    UndoHistory h("");
    type(h, "abc");
    h.seal();
    type(h, "def");
    CHECK(h.undo_steps() == 2);
    h.record("something else entirely", UndoHistory::Grouping::Replace);
    type(h, "!");
    CHECK(h.undo_steps() == 4);
    REQUIRE(h.undo());
    REQUIRE(h.undo());
    CHECK(h.text() == "abcdef");
}

TEST_CASE("undo: bounded in steps and bytes, the oldest dropped first, the newest always kept") {
    UndoLimits limits;
    limits.max_steps = 10;
    limits.max_bytes = 1000;
    UndoHistory h("", limits);
    for (int i = 0; i < 50; ++i) {
        h.record(h.text() + "\n" + std::to_string(i));
        CHECK(h.undo_steps() <= 10);
    }
    CHECK(h.undo_steps() == 10);
    int undone = 0;
    while (h.undo()) ++undone;
    CHECK(undone == 10);
    CHECK(h.text() == [] {  // lines 0..39 stay: what the dropped steps made
        std::string t;
        for (int i = 0; i < 40; ++i) t += "\n" + std::to_string(i);
        return t;
    }());
    UndoHistory big("", limits);
    big.record(std::string(5000, 'a'));  // one step over the byte bound: still undoable
    CHECK(big.undo_steps() == 1);
    big.record(std::string(5000, 'b'));
    CHECK(big.undo_steps() == 1);
    CHECK(big.bytes() <= 10000);
}

TEST_CASE("EditorBuffer: undo reaches a reload from disk, and each file keeps its own history for the session") {
    TempDir tmp;
    const fs::path a = tmp.path() / "a.cpp", b = tmp.path() / "b.cpp";
    spit(a, "alpha\n");
    spit(b, "beta\n");
    EditorBuffer buf;
    buf.load(a);
    buf.text() += "typed in a\n";
    buf.mark_edited();
    buf.load(b);  // another exercise
    buf.text() = "";
    buf.mark_edited();
    REQUIRE(buf.undo());
    CHECK(buf.text() == "beta\n");
    buf.load(a);  // back: the disk's text, and the session's edits of a behind it
    CHECK(buf.text() == "alpha\n");
    REQUIRE(buf.undo());
    CHECK(buf.text() == "alpha\ntyped in a\n");  // typed, never saved, still reachable
    CHECK(buf.dirty());
    REQUIRE(buf.undo());
    CHECK(buf.text() == "alpha\n");
    CHECK_FALSE(buf.undo());
    spit(a, "changed by another program\n");
    buf.load(a);
    REQUIRE(buf.undo());
    CHECK(buf.text() == "alpha\n");
}

// ---- versions ----------------------------------------------------------------------------------------

TEST_CASE("history: a version per distinct text, numbered, oldest first; the newest text again is no new version") {
    TempDir tmp;
    VersionHistory h(tmp.path() / "history");
    CHECK(h.list("ex").empty());
    CHECK(h.record("ex", "one\n", VersionReason::Saved, 0, 1000).number == 1);
    CHECK(h.record("ex", "one\n", VersionReason::Checked, 0, 1001).number == 1);  // the same text: no new version
    CHECK(h.record("ex", "two\nlines\n", VersionReason::Checked, 0, 1002).number == 2);
    CHECK(h.record("ex", "one\n", VersionReason::Saved, 0, 1003).number == 3);  // back to an older text: a new version, one file
    const std::vector<Version> v = h.list("ex");
    REQUIRE(v.size() == 3);
    CHECK(v[0].reason == VersionReason::Saved);
    CHECK(v[1].reason == VersionReason::Checked);
    CHECK(v[1].lines == 2);
    CHECK(v[1].bytes == 10);
    CHECK(v[0].hash == v[2].hash);
    CHECK(h.text("ex", 2) == "two\nlines\n");
    size_t texts = 0;
    for (const auto& entry : fs::directory_iterator(h.folder("ex"))) texts += entry.path().extension() == ".txt";
    CHECK(texts == 2);  // deduplicated on disk
    CHECK(version_reason_words(v[1], Lang::En) == "checked");
    CHECK(version_reason_words(v[1], Lang::Id) == "diperiksa");
}

TEST_CASE("history: autosaves of one stretch of editing are one version; a save or check between starts another") {
    TempDir tmp;
    VersionHistory h(tmp.path() / "history");
    h.record("ex", "a", VersionReason::Autosaved, 0, 1000);
    h.record("ex", "ab", VersionReason::Autosaved, 0, 1100);
    h.record("ex", "abc", VersionReason::Autosaved, 0, 1200);
    REQUIRE(h.list("ex").size() == 1);
    CHECK(h.text("ex", 1) == "abc");
    h.record("ex", "abcd", VersionReason::Checked, 0, 1300);
    h.record("ex", "abcde", VersionReason::Autosaved, 0, 1400);
    h.record("ex", "abcdef", VersionReason::Autosaved, 0, 1400 + 601);  // after the stretch
    CHECK(h.list("ex").size() == 4);
}

TEST_CASE("history: bounded in versions and bytes; the oldest go with their texts, the newest stays") {
    TempDir tmp;
    HistoryLimits limits;
    limits.max_versions = 5;
    limits.max_bytes = 2000;
    VersionHistory h(tmp.path() / "history", limits);
    for (int i = 0; i < 20; ++i) h.record("ex", "version " + std::to_string(i) + "\n", VersionReason::Saved, 0, 1000 + i);
    std::vector<Version> v = h.list("ex");
    REQUIRE(v.size() == 5);
    CHECK(v.front().number == 16);
    CHECK(v.back().number == 20);
    CHECK(h.text("ex", 20) == "version 19\n");
    CHECK_THROWS_AS(h.text("ex", 3), KeyedError);
    h.record("ex", std::string(1500, 'x'), VersionReason::Saved, 0, 2000);
    h.record("ex", std::string(1500, 'y'), VersionReason::Saved, 0, 2001);
    v = h.list("ex");
    CHECK(v.back().bytes == 1500);
    size_t bytes = 0;
    for (const auto& entry : fs::directory_iterator(h.folder("ex")))
        if (entry.path().extension() == ".txt") bytes += fs::file_size(entry.path());
    CHECK(bytes <= 2000);
    h.record("ex", std::string(5000, 'z'), VersionReason::Saved, 0, 2002);  // alone over the bound: kept anyway
    REQUIRE(h.list("ex").size() == 1);
    CHECK(h.text("ex", h.list("ex").back().number) == std::string(5000, 'z'));
}

TEST_CASE("history: a corrupt index is set aside and the versions are found again from their texts; a missing text says so") {
    TempDir tmp;
    VersionHistory h(tmp.path() / "history");
    h.record("ex", "first\n", VersionReason::Saved, 0, 1000);
    h.record("ex", "second\n", VersionReason::Checked, 0, 1001);
    const fs::path index = h.folder("ex") / "index.json";
    spit(index, "{ this is not json");
    KeyedMessage warning;
    const std::vector<Version> v = h.list("ex", &warning);
    CHECK(warning.key == msg::history_index_set_aside);
    CHECK(contains(warning.text(Lang::En), "2 versions were found again"));
    CHECK(contains(warning.text(Lang::Id), "2 versi ditemukan kembali"));
    REQUIRE(v.size() == 2);
    CHECK(v[0].reason == VersionReason::Recovered);
    size_t aside = 0;
    for (const auto& entry : fs::directory_iterator(h.folder("ex"))) aside += contains(entry.path().filename().string(), "index.json.corrupt-");
    CHECK(aside == 1);
    std::string texts;
    for (const Version& x : v) texts += h.text("ex", x.number);
    CHECK((texts == "first\nsecond\n" || texts == "second\nfirst\n"));
    // Recording goes on from the rebuilt index.
    CHECK(h.record("ex", "third\n", VersionReason::Saved, 0, 1002).number == 3);

    // The index without one of its texts: listed as unavailable, and restoring it says why.
    fs::remove(h.folder("ex") / (h.list("ex").back().hash + ".txt"));
    const std::vector<Version> after = h.list("ex");
    CHECK_FALSE(after.back().available);
    try {
        (void)h.text("ex", 3);
        FAIL("no error for a missing text");
    } catch (const KeyedError& e) {
        CHECK(e.message().key == msg::history_text_missing);
    }
    // A missing index with texts left: found again, with a warning.
    fs::remove(index);
    KeyedMessage missing;
    CHECK(h.list("ex", &missing).size() == 2);
    CHECK(missing.key == msg::history_index_missing);
}

TEST_CASE("Workspace::restore keeps the file as a version first, then puts the old one back; reset keeps a version too") {
    TempDir tmp;
    Paths paths{tmp.path() / "data", tmp.path() / "cache", tmp.path() / "config"};
    Workspace ws(paths);
    Exercise e;
    e.id = "ex";
    ws.save(e, "mine, saved\n");
    ws.history().record(e.id, "mine, saved\n", VersionReason::Saved);
    ws.save(e, "mine, edited later\n");  // written by another editor: not yet a version
    const int kept = ws.restore(e, 1);
    CHECK(slurp(ws.learner_file(e)) == "mine, saved\n");
    REQUIRE(kept == 2);
    CHECK(ws.history().text(e.id, 2) == "mine, edited later\n");
    const std::vector<Version> v = ws.history().list(e.id);
    REQUIRE(v.size() == 3);
    CHECK(v[1].reason == VersionReason::BeforeRestore);
    CHECK(v[2].reason == VersionReason::Restored);
    CHECK(v[2].restored_from == 1);
    CHECK(version_reason_words(v[2], Lang::En) == "version 1 restored");
    // An unknown number changes nothing.
    CHECK_THROWS_AS(ws.restore(e, 99), KeyedError);
    CHECK(slurp(ws.learner_file(e)) == "mine, saved\n");
    CHECK(ws.history().list(e.id).size() == 3);
}
