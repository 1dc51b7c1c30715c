// Where attnlab finds its course, learner runtime, sandbox and fonts: an
// installed prefix (found from the executable's own path, wherever the prefix
// is moved) versus the build tree, and the --course / $ATTNLAB_COURSE order.
// tests/install_test.sh does the same with a real `cmake --install`.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <fstream>
#include <optional>
#include <string>

#include "attnlab/core/base/install_layout.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::TempDir;

namespace {

// The bare shape of an installed prefix: just the folder that marks it.
void make_installed_prefix(const fs::path& prefix) {
    fs::create_directories(prefix / "bin");
    fs::create_directories(prefix / "share" / "attnlab" / "exercises");
}

// Sets an environment variable for one scope, restoring the old value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) setenv(name_, old_->c_str(), 1);
        else unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("an installed prefix is found from the executable, wherever it is moved") {
    TempDir tmp("layout");
    for (const fs::path& prefix : {tmp.path() / "opt" / "attnlab", tmp.path() / "moved" / "elsewhere"}) {
        make_installed_prefix(prefix);
        const InstallLayout l = InstallLayout::for_executable(prefix / "bin" / "attnlab");
        CHECK(l.installed);
        CHECK(l.prefix == prefix);
        CHECK(l.course_dir == prefix / "share" / "attnlab" / "exercises");
        CHECK(l.learner_include_dir == prefix / "lib" / "attnlab" / "include");
        CHECK(l.learner_library == prefix / "lib" / "attnlab" / "libattnlab_learner.a");
        CHECK(l.sandbox == prefix / "libexec" / "attnlab" / "attnlab-sandbox");
        REQUIRE_FALSE(l.font_dirs.empty());
        CHECK(l.font_dirs.front() == prefix / "share" / "fonts" / "truetype" / "dejavu");
    }
}

TEST_CASE("without an installed prefix the build tree's paths are used") {
    TempDir tmp("layout");
    const InstallLayout build_tree = InstallLayout::for_executable(tmp.path() / "bin" / "attnlab");
    CHECK_FALSE(build_tree.installed);
    CHECK(build_tree.prefix.empty());
    // The build tree's paths are real: the source tree's course and headers.
    CHECK(fs::exists(build_tree.course_dir / "manifest.json"));
    CHECK(fs::exists(build_tree.learner_include_dir / "attnlab" / "tensor.hpp"));
    CHECK(build_tree.sandbox.filename() == "attnlab-sandbox");
    CHECK(build_tree.font_dirs.front() == "/usr/share/fonts/truetype/dejavu");

    SUBCASE("an executable outside a bin folder is not installed, even beside a share folder") {
        make_installed_prefix(tmp.path() / "p");
        const InstallLayout l = InstallLayout::for_executable(tmp.path() / "p" / "tools" / "attnlab");
        CHECK_FALSE(l.installed);
        CHECK(l.course_dir == build_tree.course_dir);
    }
    SUBCASE("a relative or empty path is not trusted") {
        CHECK_FALSE(InstallLayout::for_executable("bin/attnlab").installed);
        CHECK_FALSE(InstallLayout::for_executable({}).installed);
    }
    SUBCASE("these tests themselves run from the build tree") {
        CHECK_FALSE(InstallLayout::current().installed);
        CHECK(InstallLayout::current().course_dir == build_tree.course_dir);
    }
}

TEST_CASE("the course: --course, then $ATTNLAB_COURSE, then the built-in one") {
    const fs::path built_in = InstallLayout::current().course_dir;
    {
        ScopedEnv env("ATTNLAB_COURSE", nullptr);
        CHECK(resolve_course_dir() == built_in);
        CHECK(resolve_course_dir("/from/flag") == "/from/flag");
    }
    {
        ScopedEnv env("ATTNLAB_COURSE", "/from/env");
        CHECK(resolve_course_dir() == "/from/env");
        CHECK(resolve_course_dir("/from/flag") == "/from/flag");
    }
    {
        ScopedEnv env("ATTNLAB_COURSE", "");  // set but empty counts as unset
        CHECK(resolve_course_dir() == built_in);
    }
}

TEST_CASE("the learner runtime and the sandbox can be overridden one by one") {
    const InstallLayout& l = InstallLayout::current();
    {
        ScopedEnv a("ATTNLAB_LEARNER_INCLUDE", nullptr), b("ATTNLAB_LEARNER_LIB", nullptr), c("ATTNLAB_SANDBOX", nullptr);
        CHECK(resolve_learner_include_dir() == l.learner_include_dir);
        CHECK(resolve_learner_library() == l.learner_library);
        CHECK(resolve_sandbox() == l.sandbox);
    }
    ScopedEnv a("ATTNLAB_LEARNER_INCLUDE", "/x/include"), b("ATTNLAB_LEARNER_LIB", "/x/lib.a"), c("ATTNLAB_SANDBOX", "/x/sandbox");
    CHECK(resolve_learner_include_dir() == "/x/include");
    CHECK(resolve_learner_library() == "/x/lib.a");
    CHECK(resolve_sandbox() == "/x/sandbox");
}

TEST_CASE("fonts are looked up in the layout's font folders") {
    CHECK(find_font_file("no-such-font-attnlab.ttf").empty());
    // DejaVu is in setup.sh's packages; where it is installed it must be found.
    if (fs::exists("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"))
        CHECK(find_font_file("DejaVuSans.ttf") == "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf");
}
