// The Indonesian glossary `attnlab dev check` enforces (course_check.cpp):
// table tests of the pure rule function, and the whole course keeping it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <iterator>
#include <string>
#include <vector>

#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/course_check.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "attnlab/core/text/messages.hpp"
#include "course_support.hpp"

using namespace attnlab;
using namespace attnlab::testing;

TEST_CASE("glossary_problems: one problem per rule broken, code left alone") {
    struct Row {
        const char* text;
        size_t problems;
    };
    const Row rows[] = {
        {"Setiap barisan berisi T token.", 0},
        {"Setiap kalimat berisi T token.", 1},
        {"Dua Kalimat-kalimat.", 1},
        {"satu thread block per head", 1},
        {"satu blok thread per head, lalu blok berikutnya", 0},
        {"panggilan library atau pustaka", 1},
        {"gagal dengan error", 1},
        {"gagal dengan galat; `std::runtime_error` di kode", 0},
        {"faktor itu saling menghapus", 1},
        {"faktor itu saling meniadakan", 0},
        {"sekitar 0,13 %", 1},
        {"sekitar 0.13 %, bentuk (0, 1) dan `(0,5)`", 0},
        {"```\nx = 1,5 error kalimat\n```\nteks biasa", 0},
        {"kalimat dengan error, 2,5 dan thread block", 4},
        {"load yang terkoalesensi", 1},
        {"load yang coalesced", 0},
        {"pointer harus sejajar 32 byte", 1},
        {"alamat tidak sejajar", 1},
        {"alamat tidak selaras; dua garis sejajar", 0},
        {"kernelnya salah tanpa suara", 1},
        {"latihan itu terbayar di sini", 1},
        {"## State berjalan", 1},
        {"indeks sah 0..7", 1},
        {"indeks yang valid 0..7", 0},
        {"Biarkan setiap thread menyalin", 1},
        {"membiarkan setiap token memperhatikan", 0},
        {"Keluaran tak berhingga (NaN atau tak hingga)", 1},
        {"di baris {line}", 1},
        {"di baris kode {line}, baris tensor 3", 0},
    };
    for (const Row& r : rows) {
        CAPTURE(r.text);
        CHECK(glossary_problems(r.text).size() == r.problems);
    }
}

TEST_CASE("the course keeps the Indonesian glossary and states the decimal convention once") {
    for (const std::string& p : course().problems) MESSAGE(p);
    REQUIRE(course().problems.empty());
    int statements = 0;
    for (const Exercise& e : course().exercises) {
        CAPTURE(e.id);
        std::vector<std::string> texts = {e.title.get(Lang::Id), e.statement.get(Lang::Id), e.explanation.get(Lang::Id)};
        for (const LocalizedText& h : e.hints) texts.push_back(h.get(Lang::Id));
        for (const Case& c : e.cases) texts.push_back(c.name.get(Lang::Id));
        for (const MistakeSpec& m : e.mistakes) {
            texts.push_back(m.title.get(Lang::Id));
            texts.push_back(m.message.get(Lang::Id));
        }
        for (const std::string& t : texts) {
            CAPTURE(t.substr(0, 80));
            CHECK(glossary_problems(t).empty());
        }
        statements += e.statement.get(Lang::Id).find(kDecimalConventionMarker) != std::string::npos;
    }
    CHECK(statements == 1);
}

TEST_CASE("attnlab's own Indonesian sentences keep the same glossary") {
    // The editor's status bar ("Baris 12, Kol 5") is about the learner's file
    // and nothing else: no tensor row could be meant there.
    const std::set<std::string> source_only = {msg::gui_editor_position.c_str()};
    for (const std::string& key : message_keys()) {
        // A placeholder's name ("{error}") is not a word of the sentence.
        const std::string text = std::regex_replace(tr(Lang::Id, built_key(key)), std::regex(R"(\{error\})"), "{e}");
        CAPTURE(key);
        CAPTURE(text);
        std::vector<std::string> problems = glossary_problems(text);
        if (source_only.count(key))
            problems.erase(std::remove_if(problems.begin(), problems.end(), [](const std::string& p) { return p.find("baris kode") != std::string::npos; }),
                           problems.end());
        for (const std::string& p : problems) MESSAGE(p);
        CHECK(problems.empty());
    }
}

TEST_CASE("starters: every exercise, C++ and CUDA, has one in Indonesian, which an Indonesian learner gets") {
    for (const Exercise& e : course().exercises) {
        CAPTURE(e.id);
        const fs::path id = Workspace::starter_for(e, Lang::Id);
        CHECK(id.filename() == (e.runtime == Runtime::Cuda ? "starter.id.cu" : "starter.id.cpp"));
        CHECK(Workspace::starter_for(e, Lang::En) == e.starter_path());
    }
}

TEST_CASE("the workspace creates and resets the learner's file from the starter in their language") {
    const fs::path home = fs::temp_directory_path() / ("attnlab-starter-lang-" + std::to_string(::getpid()));
    fs::remove_all(home);
    Paths paths;
    paths.data = home / "data";
    paths.cache = home / "cache";
    paths.config = home / "config";
    fs::create_directories(paths.workspace());
    const Workspace ws(paths);
    const Exercise& e = exercise("causal-mask");
    auto slurp = [](const fs::path& p) {
        std::ifstream in(p);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const fs::path file = ws.ensure_learner_file(e, Lang::Id);
    CHECK(slurp(file) == slurp(e.dir / "starter.id.cpp"));
    ws.reset(e, Lang::En);
    CHECK(slurp(file) == slurp(e.starter_path()));
    ws.reset(e, Lang::Id);
    CHECK(slurp(file) == slurp(e.dir / "starter.id.cpp"));
    fs::remove_all(home);
}
