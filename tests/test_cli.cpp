// End-to-end tests of the `attnlab` binary: each run gets a private
// ATTNLAB_HOME, a clean language environment and /dev/null as stdin; stdout,
// stderr and the exit code are captured. Expected texts (titles, hints) are
// read from the course files, not written out here.
#include <doctest/doctest.h>

#include "test_support.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;
using attnlab::testing::contains;
using attnlab::testing::TempDir;

namespace {

const fs::path kSourceDir = fs::path(ATTNLAB_TEST_FIXTURES).parent_path().parent_path();
const fs::path kCourse = kSourceDir / "exercises";
const fs::path kFixtureCourse = fs::path(ATTNLAB_TEST_FIXTURES) / "courses" / "valid";

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << p.string());
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Like slurp, but a file that does not exist yet reads as empty.
std::string slurp_if_exists(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return "";
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
    REQUIRE(out.good());
}

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

std::ostream& operator<<(std::ostream& os, const Result& r) {
    return os << "exit " << r.code << "\n--- stdout ---\n" << r.out << "\n--- stderr ---\n" << r.err;
}

// A learner's home: ATTNLAB_HOME for every run of the CLI.
class Cli {
public:
    const fs::path& home() const { return home_.path(); }

    Result run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) const {
        return finish(start(args, env));
    }

    // Starts the CLI without waiting (for `watch`); finish() collects it.
    pid_t start(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {}) const {
        const fs::path out_file = capture_.path() / "stdout";
        const fs::path err_file = capture_.path() / "stderr";
        std::vector<std::string> argv_storage = {ATTNLAB_CLI_PATH};
        argv_storage.insert(argv_storage.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : argv_storage) argv.push_back(a.data());
        argv.push_back(nullptr);

        // Created here, before the fork, so a reader never races the child.
        std::ofstream(out_file, std::ios::trunc).close();
        std::ofstream(err_file, std::ios::trunc).close();
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);  // not doctest's handler, even before exec
            const int in = open("/dev/null", O_RDONLY);
            const int out = open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            const int err = open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (in < 0 || out < 0 || err < 0) _exit(126);
            dup2(in, STDIN_FILENO);
            dup2(out, STDOUT_FILENO);
            dup2(err, STDERR_FILENO);
            for (const char* name : {"ATTNLAB_LANG", "ATTNLAB_COURSE", "LC_ALL", "LC_MESSAGES", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                                     "XDG_CONFIG_HOME", "DISPLAY", "WAYLAND_DISPLAY"})
                unsetenv(name);
            setenv("LANG", "C", 1);
            setenv("ATTNLAB_HOME", home().c_str(), 1);
            for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
            alarm(1200);  // survives exec: a hung CLI is killed, never the test run (dev check of the whole course is the longest)
            execv(argv[0], argv.data());
            _exit(127);
        }
        return pid;
    }

    std::string current_stdout() const { return slurp_if_exists(capture_.path() / "stdout"); }

    Result finish(pid_t pid) const {
        const fs::path out_file = capture_.path() / "stdout";
        const fs::path err_file = capture_.path() / "stderr";
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        Result r;
        r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r.out = slurp(out_file);
        r.err = slurp(err_file);
        return r;
    }

    json run_json(const std::vector<std::string>& args, int expected_code, const std::map<std::string, std::string>& env = {}) const {
        const Result r = run(args, env);
        INFO(r);
        CHECK(r.code == expected_code);
        json j = json::parse(r.out, nullptr, false);
        REQUIRE_MESSAGE(!j.is_discarded(), "stdout is not JSON");
        return j;
    }

private:
    TempDir home_;
    TempDir capture_;
};

struct ExerciseInfo {
    std::string id, title_en, title_id;
};

// The real course, read from its files.
std::vector<ExerciseInfo> course_exercises() {
    const json manifest = json::parse(slurp(kCourse / "manifest.json"));
    std::vector<ExerciseInfo> out;
    for (const auto& id : manifest.at("exercises")) {
        const json ex = json::parse(slurp(kCourse / id.get<std::string>() / "exercise.json"));
        out.push_back({id.get<std::string>(), ex.at("title").at("en").get<std::string>(), ex.at("title").at("id").get<std::string>()});
    }
    return out;
}

// Where exercise `id` sits in the course (0-based), from the manifest.
size_t position_of(const std::string& id) {
    const auto exercises = course_exercises();
    for (size_t i = 0; i < exercises.size(); ++i)
        if (exercises[i].id == id) return i;
    FAIL("no exercise " << id << " in the course");
    return 0;
}

std::vector<fs::path> files_containing(const fs::path& dir, const std::string& part) {
    std::vector<fs::path> out;
    if (!fs::is_directory(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (contains(e.path().filename().string(), part)) out.push_back(e.path());
    return out;
}

const std::string kSolution = (kCourse / "split-heads" / "solution.cpp").string();
const std::string kStarter = (kCourse / "split-heads" / "starter.cpp").string();

}  // namespace

TEST_CASE("list shows the course in order, in English and in Indonesian") {
    const auto exercises = course_exercises();
    // The course order of issue 19: projections, split heads before the fused
    // projection, scores, mask, softmax, weighted sum, merge, the full layer and
    // why several heads, batches, online softmax, the figures; then the CUDA kernels.
    const std::vector<std::string> order = {
        "qkv-projections", "split-heads",    "fused-qkv",        "scaled-scores",  "causal-mask",
        "stable-softmax",  "weighted-sum",   "concat-project",   "causal-mhsa",    "why-many-heads",
        "batched-layout",  "batched-mhsa",   "online-softmax",   "param-count",    "head-dim-tiles",
        "cuda-first-kernel", "cuda-split-heads", "cuda-coalescing", "cuda-row-sum", "cuda-causal-softmax", "cuda-float4-softmax",
        "cuda-attention", "cuda-attention-tiles", "cuda-online-softmax", "cuda-coalescing-untransposed", "cuda-qkv-gemm", "cuda-register-tiled-gemm",
        "cuda-tensor-core-qkv", "cuda-flash-attention", "cuda-flash-attention-wmma"};
    REQUIRE(exercises.size() == order.size());
    for (size_t i = 0; i < order.size(); ++i) CHECK(exercises[i].id == order[i]);

    Cli cli;
    const Result en = cli.run({"list"});
    INFO(en);
    CHECK(en.code == 0);
    size_t last = 0;
    for (const auto& e : exercises) {
        CAPTURE(e.id);
        const size_t at = en.out.find(e.id);
        REQUIRE(at != std::string::npos);
        CHECK(at >= last);  // manifest order
        last = at;
        CHECK(contains(en.out, e.title_en));
        if (!contains(e.title_en, e.title_id)) CHECK_FALSE(contains(en.out, e.title_id));
    }
    // No command at all opens the window; without a display (as here) it says
    // so, points to the command line, and exits 2.
    const Result none = cli.run({});
    CHECK(none.code == 2);
    CHECK((contains(none.err, "attnlab list") || contains(none.err, "without its GUI")));

    const Result id = cli.run({"--lang", "id", "list"});
    INFO(id);
    CHECK(id.code == 0);
    for (const auto& e : exercises) {
        CAPTURE(e.id);
        CHECK(contains(id.out, e.id));
        CHECK(contains(id.out, e.title_id));
        if (!contains(e.title_id, e.title_en)) CHECK_FALSE(contains(id.out, e.title_en));
    }
    CHECK(id.out != en.out);

    // The language also comes from ATTNLAB_LANG and from LANG.
    CHECK(cli.run({"list"}, {{"ATTNLAB_LANG", "id"}}).out == id.out);
    CHECK(cli.run({"list"}, {{"LANG", "id_ID.UTF-8"}}).out == id.out);
    CHECK(cli.run({"list", "--lang=en"}, {{"LANG", "id_ID.UTF-8"}}).out == en.out);
}

TEST_CASE("list --json") {
    const auto exercises = course_exercises();
    Cli cli;
    const json j = cli.run_json({"list", "--json"}, 0);
    CHECK(j["language"] == "en");
    REQUIRE(j["exercises"].is_array());
    REQUIRE(j["exercises"].size() == exercises.size());
    for (size_t i = 0; i < exercises.size(); ++i) {
        const json& e = j["exercises"][i];
        CHECK(e["position"] == i + 1);
        CHECK(e["id"] == exercises[i].id);
        CHECK(e["title"] == exercises[i].title_en);
        CHECK(e["status"] == "not_started");
        CHECK(e["attempts"] == 0);
        CHECK(e["topics"].is_array());
        CHECK_FALSE(e["topics"].empty());
    }
    CHECK(j["problems"].empty());

    const json ji = cli.run_json({"list", "--json", "--lang", "id"}, 0);
    CHECK(ji["language"] == "id");
    REQUIRE(ji["exercises"].size() == exercises.size());
    for (size_t i = 0; i < exercises.size(); ++i) CHECK(ji["exercises"][i]["title"] == exercises[i].title_id);
}

TEST_CASE("show --json gives the signature and creates the learner's file") {
    Cli cli;
    const json j = cli.run_json({"show", "split-heads", "--json"}, 0);
    CHECK(j["id"] == "split-heads");
    CHECK(j["signature"] == "Tensor split_heads(const Tensor& x, int n_heads)");
    CHECK(j["title"] == course_exercises()[position_of("split-heads")].title_en);
    CHECK(j["statement"] == slurp(kCourse / "split-heads" / "statement.en.md"));
    CHECK(j["hints"] == 3);
    REQUIRE(j["params"].size() == 2);
    CHECK(j["params"][0]["name"] == "x");
    CHECK(j["params"][1]["kind"] == "int");
    const fs::path file = cli.home() / "workspace" / "split-heads.cpp";
    CHECK(j["file"] == file.string());
    CHECK(slurp(file) == slurp(kStarter));

    const json ji = cli.run_json({"show", "split-heads", "--json", "--lang", "id"}, 0);
    CHECK(ji["statement"] == slurp(kCourse / "split-heads" / "statement.id.md"));

    const Result text = cli.run({"show", "split-heads"});
    INFO(text);
    CHECK(text.code == 0);
    CHECK(contains(text.out, "Tensor split_heads(const Tensor& x, int n_heads)"));
    CHECK(contains(text.out, file.string()));

    CHECK(cli.run({"show"}).code == 2);
    CHECK(cli.run({"show", "nope"}).code == 2);
}

TEST_CASE("check: the solution passes, the starter fails") {
    Cli cli;
    const Result pass = cli.run({"check", "split-heads", kSolution});
    INFO(pass);
    CHECK(pass.code == 0);
    CHECK(contains(pass.out, "attnlab solution split-heads"));

    const json pj = cli.run_json({"check", "split-heads", kSolution, "--json"}, 0);
    CHECK(pj["verdict"] == "pass");
    CHECK(pj["exercise"] == "split-heads");
    CHECK(pj["cases"].is_array());
    CHECK_FALSE(pj["cases"].empty());

    const json fj = cli.run_json({"check", "split-heads", kStarter, "--json"}, 1);
    CHECK(fj["verdict"] == "wrong_answer");
    CHECK(fj["failed_case"] == 0);

    // The default file is the learner's workspace copy of the starter.
    const Result fail = cli.run({"check", "split-heads"});
    INFO(fail);
    CHECK(fail.code == 1);
    CHECK(contains(fail.out, "attnlab hint split-heads"));
    CHECK(fs::exists(cli.home() / "workspace" / "split-heads.cpp"));

    // Progress remembers: passed stays passed, attempts count every check.
    const json list = cli.run_json({"list", "--json"}, 0);
    const json& split = list["exercises"][position_of("split-heads")];
    CHECK(split["id"] == "split-heads");
    CHECK(split["status"] == "passed");
    CHECK(split["attempts"] == 4);
}

TEST_CASE("check --json: the recorded stages with their lines, for a solution without one probe()") {
    Cli cli;
    const fs::path file = kCourse / "causal-mhsa" / "wrong" / "scale_sqrt_d.cpp";  // no probe() in it
    std::map<std::string, int> marked;  // the line that computes each stage
    for (const auto& [stage, code] : attnlab::testing::causal_mhsa_stage_code()) marked[stage] = attnlab::testing::line_containing(file, code);
    for (const auto& [stage, line] : marked) REQUIRE_MESSAGE(line > 0, stage);

    const json j = cli.run_json({"check", "causal-mhsa", file.string(), "--json"}, 1);
    CHECK(j["mistake"]["id"] == "scale_sqrt_d");
    CHECK(j["mistake"]["stage"] == "scores");
    const json& c = j["cases"][j["failed_case"].get<int>()];
    CHECK(c["probes"].empty());
    REQUIRE(c.contains("recorded_stages"));
    std::map<std::string, json> by_stage;
    for (const json& s : c["recorded_stages"]) by_stage[s["stage"]] = s;
    for (const char* stage : {"Q", "K", "V", "scores", "masked", "weights", "heads", "concat", "out"}) {
        INFO(stage);
        REQUIRE(by_stage.count(stage));
        CHECK(by_stage[stage]["line"] == marked[stage]);
    }
    CHECK(by_stage["Q"]["matches"] == true);
    CHECK(by_stage["scores"]["matches"] == false);
    CHECK(by_stage["scores"]["op"] == "multiply");  // q k^T * (1 / sqrt(D))
    // Every recorded tensor is listed with its line and operation; the placed ones name their stage.
    bool scores_listed = false;
    for (const json& t : c["recorded"]) {
        CHECK(t["line"].get<int>() > 0);
        CHECK(t["op"].is_string());
        if (t.contains("stages"))
            for (const json& s : t["stages"]) scores_listed |= s == "scores" && t["line"] == marked["scores"];
    }
    CHECK(scores_listed);
    // The words say it too.
    const Result text = cli.run({"check", "causal-mhsa", file.string()});
    CHECK(contains(text.out, "tensor from line " + std::to_string(marked["scores"])));
}

TEST_CASE("check: the sandbox's protections are in --json; a layer turned off stops the check unless the user opted in, and then every verdict says so") {
    Cli cli;
    const json j = cli.run_json({"check", "split-heads", kSolution, "--json"}, 0);
    REQUIRE(j.contains("protections"));
    for (const char* layer : {"pidns", "mountns", "netns", "ipcns", "utsns", "seccomp", "identity"}) CHECK(j["protections"].contains(layer));
    const Result stopped = cli.run({"check", "split-heads", kSolution}, {{"ATTNLAB_NO_NETNS", "1"}});
    INFO(stopped);
    CHECK(stopped.code == 2);
    CHECK(contains(stopped.out, "did not run your code"));
    CHECK(contains(stopped.out, "Unset ATTNLAB_NO_NETNS"));
    // The opt-in: the variable and the setting.
    spit(cli.home() / "config" / "settings.json", "{\"allow_weak_sandbox\": true}\n");
    const std::map<std::string, std::string> opted_in = {{"ATTNLAB_NO_NETNS", "1"}, {"ATTNLAB_ALLOW_WEAK_SANDBOX", "1"}};
    for (int verdict = 0; verdict < 2; ++verdict) {
        const Result off = cli.run({"check", "split-heads", kSolution, "--lang", "id"}, opted_in);
        INFO(off);
        CHECK(off.code == 0);
        CHECK(contains(off.err, "ATTNLAB_NO_NETNS"));
        CHECK(contains(off.err, "perlindungan"));
    }
    const json offj = cli.run_json({"check", "split-heads", kSolution, "--json"}, 0, opted_in);
    CHECK(offj["protections"]["netns"]["state"] == "disabled");
}

TEST_CASE("check: on a kernel that refuses namespaces, the check stops and says how to enable them; no attempt is recorded") {
    Cli cli;
    const std::map<std::string, std::string> refusing = {{"ATTNLAB_SANDBOX", ATTNLAB_REFUSE_NAMESPACES},
                                                         {"ATTNLAB_REFUSE_REAL_SANDBOX", ATTNLAB_SANDBOX_PATH}};
    const Result r = cli.run({"check", "split-heads", kSolution}, refusing);
    INFO(r);
    CHECK(r.code == 2);
    CHECK(contains(r.out, "did not run your code"));
    CHECK(contains(r.out, "PID namespace"));
    CHECK(contains(r.out, "--security-opt seccomp=unconfined"));
    CHECK(contains(r.out, "ATTNLAB_ALLOW_WEAK_SANDBOX=1"));
    const json j = cli.run_json({"check", "split-heads", kSolution, "--json"}, 2, refusing);
    CHECK(j["problem"]["code"] == "isolation_unavailable");
    CHECK(j["protections"]["mountns"]["state"] == "refused");
    CHECK(cli.run_json({"list", "--json"}, 0)["exercises"][position_of("split-heads")]["attempts"] == 0);
    // doctor says the same, and that checks cannot run.
    const Result doctor = cli.run({"doctor"}, refusing);
    CHECK(doctor.code == 2);
    CHECK(contains(doctor.out, "did not run your code"));
    const json dj = cli.run_json({"doctor", "--json"}, 2, refusing);
    CHECK(dj["namespaces"]["pidns"]["state"] == "refused");
    CHECK(dj["checks_can_run"] == false);
    CHECK(dj["weak_sandbox_opt_in"]["allowed"] == false);
}

TEST_CASE("doctor --json: who learner code runs as, its namespaces, the cgroup, the compiler's sandbox") {
    Cli cli;
    const json j = cli.run_json({"doctor", "--json"}, 0);
    CHECK(j["identity"]["unprivileged"] == true);
    CHECK(j["identity"]["uid"].get<long>() > 0);
    for (const char* ns : {"pidns", "mountns", "netns", "ipcns", "utsns"}) CHECK(j["namespaces"][ns]["state"] == "on");
    CHECK((j["cgroup"]["accounting"] == "cgroup" || j["cgroup"]["accounting"] == "fallback"));
    CHECK(j["compiler_sandbox"]["complete"] == true);
    CHECK(j["compiler_sandbox"]["isolated"] == true);
    CHECK(j["weak_sandbox_opt_in"]["env"] == "ATTNLAB_ALLOW_WEAK_SANDBOX");
}

TEST_CASE("check FILE: only a regular file of at most 1 MB, refused at once") {
    Cli cli;
    const fs::path fifo = cli.home() / "a-fifo";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const fs::path big = cli.home() / "big.cpp";
    spit(big, "// " + std::string(2u << 20, 'x') + "\n");
    for (const std::string& file : {std::string("/dev/zero"), fifo.string(), cli.home().string(), big.string()}) {
        CAPTURE(file);
        const Result r = cli.run({"check", "split-heads", file});
        INFO(r);
        CHECK(r.code == 2);
        CHECK((contains(r.err, "not a regular file") || contains(r.err, "larger than 1 MB")));
    }
    // The limit is said in the learner's language, with the file's own size.
    const Result id = cli.run({"--lang", "id", "check", "split-heads", big.string()});
    CHECK(id.code == 2);
    REQUIRE(fs::file_size(big) == 2097156);  // "// ", 2 MiB of x, "\n"
    CHECK(contains(id.err, "lebih besar dari 1 MB (2.097.156 byte)"));
    CHECK(cli.run_json({"list", "--json"}, 0)["exercises"][position_of("split-heads")]["attempts"] == 0);
}

TEST_CASE("check: a learner's output cannot drive the terminal") {
    Cli cli;
    std::string source = slurp(kSolution);
    source.replace(source.find("    const int64_t T"), 0,
                   "    std::printf(\"\\x1b[2J\\x1b[H\\x1b[32mPassed\\x1b[0m\\r\\xc2\\x9b\" \"31m\\x1b]0;title\\x07\\n\");\n");
    source.insert(0, "#include <cstdio>\n");
    const fs::path file = cli.home() / "escapes.cpp";
    spit(file, source);
    const Result r = cli.run({"check", "split-heads", file.string()});
    INFO(r);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "\\x1b[2J"));
    for (const std::string& text : {r.out, r.err}) {
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find('\r') == std::string::npos);
        CHECK(text.find('\x07') == std::string::npos);
        CHECK(text.find("\xc2\x9b") == std::string::npos);
    }
}

TEST_CASE("check: a full disk while compiling is the machine's problem, not the learner's, and no attempt") {
    Cli cli;
    const fs::path tools = cli.home() / "tools";
    fs::create_directories(tools);
    fs::permissions(cli.home(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    const fs::path full = tools / "g++-disk-full";
    spit(full, "#!/bin/sh\necho \"/scratch/ccX.s: fatal error: error writing to /scratch/ccX.s: No space left on device\" >&2\nexit 1\n");
    const fs::path xfsz = tools / "g++-file-size";
    spit(xfsz, "#!/bin/sh\nkill -XFSZ $$\n");
    for (const fs::path& p : {tools, full, xfsz}) fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    for (const fs::path& compiler : {full, xfsz}) {
        CAPTURE(compiler);
        const std::string source = slurp(kSolution) + "\n// " + compiler.filename().string() + "\n";  // never a cached binary
        const fs::path file = cli.home() / "mine.cpp";
        spit(file, source);
        const Result r = cli.run({"check", "split-heads", file.string()}, {{"ATTNLAB_CXX", compiler.string()}, {"ATTNLAB_NO_PCH", "1"}});
        INFO(r);
        CHECK(r.code == 2);
        CHECK(contains(r.out, "the machine, not your code"));
        CHECK_FALSE(contains(r.out, "did not compile"));
    }
    CHECK(cli.run_json({"list", "--json"}, 0)["exercises"][position_of("split-heads")]["attempts"] == 0);
}

TEST_CASE("check --json: every case has the CUDA column when attnlab has kernels") {
    Cli cli;
    const json j = cli.run_json({"check", "split-heads", kSolution, "--json"}, 0);
    REQUIRE_FALSE(j["cases"].empty());
#ifdef ATTNLAB_HAVE_KERNELS
    for (const json& c : j["cases"]) {
        INFO(c.dump());
        REQUIRE(c.contains("cuda"));
        const json& cuda = c["cuda"];
        CHECK((cuda["backend"] == "emulator" || cuda["backend"] == "gpu"));
        CHECK_FALSE(cuda["device"].get<std::string>().empty());
        CHECK(cuda["ok"] == true);
        CHECK(cuda["max_abs_error_vs_reference"].get<double>() <= 1e-5);
    }
    const Result id = cli.run({"check", "split-heads", kSolution, "--lang", "id"});
    INFO(id);
    CHECK((contains(id.out, "CUDA: emulator CPU — sepakat dengan referensi Eigen") || contains(id.out, "CUDA: GPU ")));
#else
    for (const json& c : j["cases"]) CHECK_FALSE(c.contains("cuda"));
#endif
}

TEST_CASE("check: a CUDA check reports its speed: traffic against the minimum, FLOPs, a roofline estimate per GPU; text in both languages") {
    Cli cli;
    const std::string solution = (kCourse / "cuda-attention" / "solution.cu").string();
    const json j = cli.run_json({"check", "cuda-attention", solution, "--json"}, 0);
    REQUIRE(j.contains("performance"));
    const json& p = j["performance"];
    INFO(p.dump());
    // The case reported is the one that needs the most traffic; its least traffic is q, k, v and
    // the output once, each (B, H, T, hd) tensor in whole 32-byte sectors.
    const json& c = j["cases"][p["case"].get<size_t>()];
    const auto shape = c["expected_shape"].get<std::vector<int64_t>>();
    REQUIRE(shape.size() == 4);
    const int64_t B = shape[0], H = shape[1], T = shape[2], hd = shape[3];
    for (const json& other : j["cases"]) {
        int64_t n = 1;
        for (int64_t d : other["expected_shape"].get<std::vector<int64_t>>()) n *= d;
        CHECK(n <= B * H * T * hd);
    }
    CHECK(p["min_bytes"].get<int64_t>() == 4 * ((B * H * T * hd * 4 + 31) / 32) * 32);
    CHECK(p["bytes"].get<int64_t>() >= p["min_bytes"].get<int64_t>());
    CHECK(p["bytes"].get<int64_t>() % 32 == 0);
    CHECK(p["traffic_ratio"].get<double>() == doctest::Approx(p["bytes"].get<double>() / p["min_bytes"].get<double>()));
    // QKᵀ and PV over the causal half, 5 per softmax element.
    CHECK(p["flops"].get<double>() == doctest::Approx(double(B * H) * T * (T + 1) / 2.0 * (4.0 * hd + 5)));
    CHECK(p["intensity"].get<double>() == doctest::Approx(p["flops"].get<double>() / p["bytes"].get<double>()));
    REQUIRE(p["estimates"].size() == 4);
    std::vector<std::string> gpus;
    for (const json& e : p["estimates"]) {
        gpus.push_back(e["gpu"]);
        CHECK(e["seconds"].get<double>() > 0);
        const std::string bound = e["bound"];
        CHECK((bound == "memory" || bound == "compute" || bound == "too_few_blocks"));
        // DRAM under the cache model: never below the least traffic, never above what was requested.
        CHECK(e["dram_bytes"].get<double>() >= p["min_bytes"].get<double>());
        CHECK(e["dram_bytes"].get<double>() <= p["bytes"].get<double>());
        CHECK(e["dram_ratio"].get<double>() >= 1.0);
        CHECK(e["waves"].get<double>() > 0);
        CHECK(e["roof"] == "fp32");  // no wmma here
    }
    CHECK(gpus == std::vector<std::string>{"RTX 4090", "A100 80GB SXM", "H100 SXM", "H200"});
    REQUIRE_FALSE(p["launches"].empty());
    int64_t bytes = 0;
    for (const json& L : p["launches"]) bytes += L["bytes"].get<int64_t>();
    CHECK(bytes == p["bytes"].get<int64_t>());
    CHECK(contains(p["assumptions"].get<std::string>(), "estimate"));

    for (const char* lang : {"en", "id"}) {
        const Result r = cli.run({"check", "cuda-attention", solution, "--lang", lang});
        INFO(r);
        CHECK(r.code == 0);
        CHECK(contains(r.out, std::string(lang) == "en" ? "Estimated kernel time (roofline, wave by wave):"
                                                        : "Perkiraan waktu kernel (roofline, gelombang demi gelombang):"));
        CHECK(contains(r.out, std::string(lang) == "en" ? "L2 hit rate" : "tingkat hit L2"));
        CHECK(contains(r.out, std::string(lang) == "en" ? "an estimate, not a measurement" : "perkiraan, bukan pengukuran"));
        CHECK(contains(r.out, "H200: "));
        for (const char* raw : {"perf.", "too_few_blocks", "{gpu}", "{time}"}) CHECK_MESSAGE(r.out.find(raw) == std::string::npos, raw);
    }
    // A C++ exercise has no performance report.
    CHECK_FALSE(cli.run_json({"check", "split-heads", kSolution, "--json"}, 0).contains("performance"));
}

TEST_CASE("--lang id: a wrong answer and a CUDA fault in words, numbers the Indonesian way; --json keeps plain numbers") {
    Cli cli;
    // A thousands separator is '.', followed by exactly three digits; a decimal '.' (4.00) is English.
    // Version numbers (NVRTC 13.0) are names, not quantities.
    const std::regex english_decimal(R"(\d\.(\d{1,2}|\d{4,})(?!\d))"), version(R"(NVRTC \d+\.\d+)");
    auto english_numbers = [&](const std::string& out) { return std::regex_search(std::regex_replace(out, version, "NVRTC"), english_decimal); };
    auto no_raw_ids = [](const std::string& out) {
        for (const char* id : {"shared_race", "out_of_bounds", "wrong_answer", "kernel_fault", "barrier_divergence", "output_not_written"})
            CHECK_MESSAGE(out.find(id) == std::string::npos, id);
    };
    const std::string wrong = (kCourse / "causal-mask" / "starter.cpp").string();
    const Result w = cli.run({"check", "causal-mask", wrong, "--lang", "id"});
    INFO(w);
    CHECK(w.code == 1);
    CHECK(contains(w.out, "Jawaban salah"));
    CHECK(contains(w.out, "0,0001"));  // the tolerance's rtol, with a decimal comma
    CHECK_FALSE(english_numbers(w.out));
    no_raw_ids(w.out);

    const std::string race = (kCourse / "cuda-causal-softmax" / "wrong" / "missing_syncthreads.cu").string();
    const Result f = cli.run({"check", "cuda-causal-softmax", race, "--lang", "id"});
    INFO(f);
    CHECK(f.code == 1);
    CHECK(contains(f.out, "racecheck"));
    CHECK_FALSE(english_numbers(f.out));
    no_raw_ids(f.out);

    // The JSON beside it: numbers are numbers, codes stay codes.
    const json j = cli.run_json({"check", "causal-mask", wrong, "--json", "--lang", "id"}, 1);
    CHECK(j["verdict"] == "wrong_answer");
    for (const json& c : j["cases"])
        if (c.contains("max_abs_error")) CHECK(c["max_abs_error"].is_number());
    CHECK(j["timing_ms"]["total"].is_number());
}

TEST_CASE("usage errors exit 2") {
    Cli cli;
    const Result unknown_ex = cli.run({"check", "nope"});
    INFO(unknown_ex);
    CHECK(unknown_ex.code == 2);
    CHECK(contains(unknown_ex.err, "nope"));
    CHECK(unknown_ex.out.empty());

    const Result bad_option = cli.run({"list", "--frobnicate"});
    INFO(bad_option);
    CHECK(bad_option.code == 2);
    CHECK(contains(bad_option.err, "--frobnicate"));

    CHECK(cli.run({"frobnicate"}).code == 2);
    CHECK(cli.run({"--lang", "fr", "list"}).code == 2);
    CHECK(cli.run({"--lang"}).code == 2);
    CHECK(cli.run({"check"}).code == 2);
    CHECK(cli.run({"check", "split-heads", (cli.home() / "missing.cpp").string()}).code == 2);
    CHECK(cli.run({"dev", "frobnicate"}).code == 2);
    CHECK(cli.run({"list", "--course", (cli.home() / "no-course").string()}).code == 2);

    // In the learner's language, also those found before the course is loaded.
    const Result bad_option_id = cli.run({"--lang", "id", "list", "--frobnicate"});
    INFO(bad_option_id);
    CHECK(bad_option_id.code == 2);
    CHECK(contains(bad_option_id.err, "opsi --frobnicate tidak dikenal"));
    CHECK(contains(cli.run({"--lang", "id", "frobnicate"}).err, "perintah frobnicate tidak dikenal"));
    CHECK(contains(cli.run({"check"}).err, "check needs an exercise id"));
    CHECK(contains(cli.run({"--lang", "id", "check"}).err, "check memerlukan ID latihan"));
}

TEST_CASE("--help in both languages") {
    Cli cli;
    const Result en = cli.run({"--help"});
    const Result id = cli.run({"--help", "--lang", "id"});
    const Result check_en = cli.run({"check", "--help"});
    const Result check_id = cli.run({"check", "--help", "--lang", "id"});
    for (const Result* r : {&en, &id, &check_en, &check_id}) {
        INFO(*r);
        CHECK(r->code == 0);
        CHECK_FALSE(r->out.empty());
        CHECK(contains(r->out, "attnlab"));
    }
    CHECK(en.out != id.out);
    CHECK(check_en.out != check_id.out);
    CHECK(check_en.out != en.out);
    CHECK(contains(en.out, "check"));
    CHECK(contains(en.out, "hint"));
    CHECK(contains(check_en.out, "attnlab check"));
    CHECK(contains(check_id.out, "attnlab check"));
    CHECK(cli.run({"-h"}).out == en.out);
    CHECK(cli.run({"help", "check"}).out == check_en.out);
    // Help needs no course and changes nothing in the home.
    CHECK(cli.run({"--help", "--course", (cli.home() / "no-course").string()}).code == 0);
    CHECK_FALSE(fs::exists(cli.home() / "progress.json"));
}

TEST_CASE("solution is shown only after a pass") {
    Cli cli;
    const std::string solution_text = slurp(kSolution);
    const Result locked = cli.run({"solution", "split-heads"});
    INFO(locked);
    CHECK(locked.code == 1);
    CHECK_FALSE(contains(locked.out, solution_text));
    CHECK_FALSE(locked.err.empty());

    // A failed check does not unlock it.
    CHECK(cli.run({"check", "split-heads", kStarter}).code == 1);
    CHECK(cli.run({"solution", "split-heads"}).code == 1);

    REQUIRE(cli.run({"check", "split-heads", kSolution}).code == 0);
    const Result shown = cli.run({"solution", "split-heads"});
    INFO(shown);
    CHECK(shown.code == 0);
    CHECK(contains(shown.out, solution_text));
    CHECK(contains(shown.out, slurp(kCourse / "split-heads" / "explanation.en.md")));
    CHECK(shown.out.find("# Why it works") == shown.out.rfind("# Why it works"));  // the explanation's heading, once
    const Result shown_id = cli.run({"solution", "split-heads", "--lang", "id"});
    CHECK(contains(shown_id.out, slurp(kCourse / "split-heads" / "explanation.id.md")));

    // --force looks anyway, for another exercise.
    const Result forced = cli.run({"solution", "causal-mask", "--force"});
    CHECK(forced.code == 0);
    CHECK(contains(forced.out, slurp(kCourse / "causal-mask" / "solution.cpp")));
    CHECK(cli.run({"solution", "causal-mask"}).code == 1);
}

TEST_CASE("hint N prints that hint's file") {
    Cli cli;
    const Result h2 = cli.run({"hint", "split-heads", "2"});
    INFO(h2);
    CHECK(h2.code == 0);
    CHECK(contains(h2.out, slurp(kCourse / "split-heads" / "hint-2.en.md")));
    CHECK_FALSE(contains(h2.out, slurp(kCourse / "split-heads" / "hint-1.en.md")));

    const Result h2id = cli.run({"hint", "split-heads", "2", "--lang", "id"});
    CHECK(h2id.code == 0);
    CHECK(contains(h2id.out, slurp(kCourse / "split-heads" / "hint-2.id.md")));

    // Without N: the next one not yet seen (2 was seen, so 3).
    const Result next = cli.run({"hint", "split-heads"});
    CHECK(next.code == 0);
    CHECK(contains(next.out, slurp(kCourse / "split-heads" / "hint-3.en.md")));

    for (const char* bad : {"9", "0", "-1", "two", "4"}) {
        CAPTURE(bad);
        const Result r = cli.run({"hint", "split-heads", bad});
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK_FALSE(r.err.empty());
    }
    CHECK(cli.run({"hint", "nope", "1"}).code == 2);
}

TEST_CASE("reset --yes keeps a backup") {
    Cli cli;
    REQUIRE(cli.run({"show", "split-heads"}).code == 0);
    const fs::path file = cli.home() / "workspace" / "split-heads.cpp";
    spit(file, "// my own attempt\n");

    // Without --yes and without a terminal it refuses and changes nothing.
    CHECK(cli.run({"reset", "split-heads"}).code == 2);
    CHECK(slurp(file) == "// my own attempt\n");

    const Result r = cli.run({"reset", "split-heads", "--yes"});
    INFO(r);
    CHECK(r.code == 0);
    CHECK(slurp(file) == slurp(kStarter));
    const auto backups = files_containing(file.parent_path(), "split-heads.cpp.bak-");
    REQUIRE(backups.size() == 1);
    CHECK(slurp(backups[0]) == "// my own attempt\n");
    CHECK(contains(r.out, backups[0].string()));

    // A second reset right away keeps the first backup.
    spit(file, "// second attempt\n");
    CHECK(cli.run({"reset", "split-heads", "-y"}).code == 0);
    const auto after = files_containing(file.parent_path(), "split-heads.cpp.bak-");
    CHECK(after.size() == 2);
    CHECK(slurp(backups[0]) == "// my own attempt\n");
}

TEST_CASE("a corrupt progress file gives a warning, not a failure") {
    Cli cli;
    spit(cli.home() / "progress.json", "{\"version\": 1, \"exercises\": {\"split-he");
    const Result r = cli.run({"list"});
    INFO(r);
    CHECK(r.code == 0);
    CHECK(contains(r.err, "warning"));
    CHECK(contains(r.err, "progress.json"));
    CHECK(contains(r.out, "split-heads"));
    const auto aside = files_containing(cli.home(), "progress.json.corrupt-");
    REQUIRE(aside.size() == 1);
    CHECK(slurp(aside[0]) == "{\"version\": 1, \"exercises\": {\"split-he");

    // Recovered: the next run is quiet, and progress is recorded again.
    const Result again = cli.run({"list"});
    CHECK(again.code == 0);
    CHECK(again.err.empty());
    CHECK(cli.run({"check", "split-heads", kSolution}).code == 0);
    CHECK(cli.run_json({"list", "--json"}, 0)["exercises"][position_of("split-heads")]["status"] == "passed");

    // A corrupt settings file is also only a warning.
    spit(cli.home() / "config" / "settings.json", "not json");
    const Result s = cli.run({"list"});
    CHECK(s.code == 0);
    CHECK(contains(s.err, "settings.json"));
}

namespace {

// `dev ops` as blocks: an op's signature line, then its indented lines.
std::map<std::string, std::vector<std::string>> op_blocks(const std::string& out) {
    std::map<std::string, std::vector<std::string>> blocks;
    std::istringstream in(out);
    std::string line, op;
    while (std::getline(in, line)) {
        if (line.rfind("    ", 0) == 0) blocks[op].push_back(line.substr(4));
        else blocks[op = line.substr(0, line.find('('))];
    }
    return blocks;
}

// The block's line that starts with `label`, without the label; "" when none.
std::string labelled(const std::vector<std::string>& block, const std::string& label) {
    for (const std::string& line : block)
        if (line.rfind(label, 0) == 0) return line.substr(label.size());
    return "";
}

}  // namespace

TEST_CASE("dev ops: every op with its mistakes and the exercises that name it") {
    Cli cli;
    SUBCASE("the fixture course names two ops; an op it does not name says none") {
        const Result r = cli.run({"dev", "ops", "--course", kFixtureCourse.string()});
        INFO(r);
        REQUIRE(r.code == 0);
        const auto blocks = op_blocks(r.out);
        REQUIRE(blocks.count("split_heads"));
        CHECK(labelled(blocks.at("split_heads"), "exercises: ") == "mini-split");
        CHECK(contains(labelled(blocks.at("split_heads"), "mistakes: "), "split_without_transpose"));
        CHECK(labelled(blocks.at("merge_heads"), "exercises: ") == "mini-merge");
        CHECK(labelled(blocks.at("causal_mhsa"), "exercises: ") == "none");
        // A mistake with several forms (causal_softmax's) is listed once.
        const std::string mistakes = labelled(blocks.at("causal_softmax"), "mistakes: ");
        CHECK(contains(mistakes, "mask_includes_diagonal"));
        CHECK(mistakes.find("mask_includes_diagonal") == mistakes.rfind("mask_includes_diagonal"));
        for (const auto& [op, block] : blocks) {
            CAPTURE(op);
            CHECK(std::count_if(block.begin(), block.end(), [](const std::string& l) { return l.rfind("exercises: ", 0) == 0; }) == 1);
        }
    }
    SUBCASE("every exercise of the real course is listed under its op") {
        const Result r = cli.run({"dev", "ops"});
        INFO(r);
        REQUIRE(r.code == 0);
        std::string listed;
        for (const auto& [op, block] : op_blocks(r.out)) listed += ", " + labelled(block, "exercises: ") + ",";
        for (const auto& e : course_exercises()) CHECK_MESSAGE(contains(listed, ", " + e.id + ","), e.id);
    }
}

TEST_CASE("dev check") {
    Cli cli;
    SUBCASE("the real course is consistent") {
        const Result r = cli.run({"dev", "check"});
        INFO(r);
        CHECK(r.code == 0);
        for (const auto& e : course_exercises()) CHECK(contains(r.out, e.id));
        const json j = cli.run_json({"dev", "check", "--json"}, 0);
        CHECK(j["problems"].empty());
        CHECK(j["exercises"].size() == course_exercises().size());
    }
    SUBCASE("the valid fixture course is consistent") {
        const json j = cli.run_json({"dev", "check", "--json", "--course", kFixtureCourse.string()}, 0);
        CHECK(j["problems"].empty());
        REQUIRE(j["exercises"].size() == 2);
        for (const auto& e : j["exercises"]) {
            CHECK(e["starter"] == "wrong_answer");
            CHECK(e["solution"] == "pass");
        }
    }
    SUBCASE("a course whose solution fails") {
        TempDir tmp;
        const fs::path course = tmp.path() / "course";
        fs::copy(kFixtureCourse, course, fs::copy_options::recursive);
        // The "solution" is now the starter: it compiles but does not pass.
        fs::copy_file(course / "mini-merge" / "starter.cpp", course / "mini-merge" / "solution.cpp",
                      fs::copy_options::overwrite_existing);
        const Result r = cli.run({"dev", "check", "--course", course.string()});
        INFO(r);
        CHECK(r.code == 1);
        CHECK(contains(r.out, "mini-merge"));
        CHECK(contains(r.out, "solution does not pass"));
        const json j = cli.run_json({"dev", "check", "--json", "--course", course.string()}, 1);
        REQUIRE(j["problems"].size() == 1);
        CHECK(contains(j["problems"][0].get<std::string>(), "mini-merge"));
        CHECK(j["exercises"][0]["solution"] == "pass");  // mini-split is still fine
        CHECK(j["exercises"][1]["solution"] == "wrong_answer");
    }
    SUBCASE("a course with a starter that already passes") {
        TempDir tmp;
        const fs::path course = tmp.path() / "course";
        fs::copy(kFixtureCourse, course, fs::copy_options::recursive);
        fs::copy_file(course / "mini-split" / "solution.cpp", course / "mini-split" / "starter.cpp",
                      fs::copy_options::overwrite_existing);
        const json j = cli.run_json({"dev", "check", "--json", "--course", course.string()}, 1);
        REQUIRE(j["problems"].size() == 1);
        CHECK(contains(j["problems"][0].get<std::string>(), "starter passes"));
    }
    SUBCASE("a course with a broken exercise") {
        TempDir tmp;
        const fs::path course = tmp.path() / "course";
        fs::copy(kFixtureCourse, course, fs::copy_options::recursive);
        fs::remove(course / "mini-merge" / "hint-3.id.md");
        const Result r = cli.run({"dev", "check", "--course", course.string()});
        INFO(r);
        CHECK(r.code == 1);
        CHECK(contains(r.out, "hint-3.id.md"));
        // `list` shows the rest and names the problem, but exits 2.
        const Result list = cli.run({"list", "--course", course.string()});
        INFO(list);
        CHECK(list.code == 2);
        CHECK(contains(list.out, "mini-split"));
        CHECK(contains(list.out, "hint-3.id.md"));
        // `check` of the broken exercise gives the loader's reason, not "unknown exercise".
        const Result check = cli.run({"check", "mini-merge", "--course", course.string()});
        INFO(check);
        CHECK(check.code == 2);
        CHECK(contains(check.err, "mini-merge could not be loaded"));
        CHECK(contains(check.err, "hint-3.id.md"));
        CHECK_FALSE(contains(check.err, "unknown exercise"));
    }
    SUBCASE("a fixture that is not diagnosed as its declared mistake fails dev check") {
        TempDir tmp;
        const fs::path course = tmp.path() / "course";
        fs::copy(kFixtureCourse, course, fs::copy_options::recursive);
        // A "right" fixture that is really the starter: it must pass, and does not.
        fs::copy_file(course / "mini-split" / "starter.cpp", course / "mini-split" / "not_right.cpp");
        json ex = json::parse(slurp(course / "mini-split" / "exercise.json"));
        ex["fixtures"] = json::array({{{"file", "not_right.cpp"}, {"expect", "pass"}}});
        std::ofstream(course / "mini-split" / "exercise.json") << ex.dump(2);
        const json j = cli.run_json({"dev", "check", "--json", "--course", course.string()}, 1);
        REQUIRE(j["problems"].size() == 1);
        CHECK(contains(j["problems"][0].get<std::string>(), "fixture not_right.cpp should give pass"));
        CHECK(j["exercises"][0]["fixtures"][0]["ok"] == false);
    }
    SUBCASE("an unlisted exercise folder and an unlisted wrong/ file fail dev check, by name") {
        TempDir tmp;
        const fs::path course = tmp.path() / "course";
        fs::copy(kFixtureCourse, course, fs::copy_options::recursive);
        fs::copy(course / "mini-split", course / "mini-stray", fs::copy_options::recursive);
        fs::create_directories(course / "mini-split" / "wrong");
        fs::copy_file(course / "mini-split" / "starter.cpp", course / "mini-split" / "wrong" / "forgotten.cpp");
        const Result r = cli.run({"dev", "check", "--course", course.string()});
        INFO(r);
        CHECK(r.code == 1);
        CHECK(contains(r.out, "mini-stray/: an exercise folder that manifest.json does not list"));
        CHECK(contains(r.out, "wrong/forgotten.cpp is not one of exercise.json's \"fixtures\""));
        const json j = cli.run_json({"dev", "check", "--json", "--course", course.string()}, 1);
        CHECK(j["problems"].size() == 2);
    }
}

TEST_CASE("watch re-checks when the file is saved and stops on Ctrl+C") {
    Cli cli;
    const fs::path fixtures = fs::path(ATTNLAB_TEST_FIXTURES);
    const fs::path file = cli.home() / "mine.cpp";
    fs::copy_file(fixtures / "solutions" / "wrong_values.cpp", file);
    const pid_t pid = cli.start({"--course", (fixtures / "course").string(), "watch", "fx-split", file.string()});
    auto wait_for = [&](const std::string& text, int occurrences) {
        for (int i = 0; i < 1800; ++i) {  // a hang guard (3 min), not a speed requirement
            const std::string out = cli.current_stdout();
            int n = 0;
            for (size_t at = out.find(text); at != std::string::npos; at = out.find(text, at + 1)) ++n;
            if (n >= occurrences) return true;
            usleep(100 * 1000);
        }
        return false;
    };
    CHECK(wait_for("Wrong answer", 1));
    // Save a fixed version, as an editor would (new content, new mtime).
    std::ofstream(file, std::ios::trunc) << slurp(fixtures / "solutions" / "correct.cpp");
    CHECK(wait_for("Passed", 1));
    kill(pid, SIGINT);
    const Result r = cli.finish(pid);
    INFO(r);
    CHECK(r.code == 0);  // the last check passed
    CHECK(contains(r.out, "Watching"));
    // Progress recorded both checks.
    const json progress = json::parse(slurp(cli.home() / "progress.json"));
    CHECK(progress["exercises"]["fx-split"]["status"] == "passed");
    CHECK(progress["exercises"]["fx-split"]["attempts"].get<int>() >= 2);
}

TEST_CASE("history and restore: a version at every check of the learner's file; a restore keeps the file first; --json, --lang id, bad numbers, a corrupt index") {
    Cli cli;
    REQUIRE(cli.run({"show", "split-heads"}).code == 0);
    const fs::path file = cli.home() / "workspace" / "split-heads.cpp";
    Result r = cli.run({"history", "split-heads"});
    CHECK(r.code == 0);
    CHECK(contains(r.out, "No versions of split-heads yet"));

    spit(file, "// attempt one\n");
    CHECK(cli.run({"check", "split-heads"}).code == 1);
    spit(file, slurp(kSolution));
    CHECK(cli.run({"check", "split-heads"}).code == 0);
    CHECK(cli.run({"check", "split-heads", kStarter}).code == 1);  // a file that is not theirs: no version
    json j = cli.run_json({"history", "split-heads", "--json"}, 0);
    REQUIRE(j["versions"].size() == 2);
    CHECK(j["versions"][0]["number"] == 2);  // newest first
    CHECK(j["versions"][0]["reason"] == "checked");
    CHECK(j["versions"][0]["current"] == true);
    CHECK(j["versions"][1]["current"] == false);
    CHECK(j["versions"][1]["lines"] == 1);

    r = cli.run({"restore", "split-heads", "1"});
    INFO(r);
    CHECK(r.code == 0);
    CHECK(slurp(file) == "// attempt one\n");
    CHECK(contains(r.out, "Version 1 is back"));
    CHECK(contains(r.out, "kept as version 2"));
    j = cli.run_json({"history", "split-heads", "--json"}, 0);
    REQUIRE(j["versions"].size() == 3);
    CHECK(j["versions"][0]["reason"] == "restored");
    CHECK(j["versions"][0]["restored_from"] == 1);
    CHECK(j["versions"][0]["current"] == true);

    r = cli.run({"history", "split-heads", "--lang", "id"});
    CHECK(contains(r.out, "versi 1 dipulihkan"));
    CHECK(contains(r.out, "diperiksa"));
    CHECK(contains(r.out, "ini berkasmu sekarang"));

    // Numbers that name no version change nothing.
    CHECK(cli.run({"restore", "split-heads", "99"}).code == 2);
    CHECK(cli.run({"restore", "split-heads", "x"}).code == 2);
    CHECK(cli.run({"restore", "split-heads"}).code == 2);
    CHECK(slurp(file) == "// attempt one\n");

    j = cli.run_json({"restore", "split-heads", "2", "--json"}, 0);
    CHECK(j["restored"] == 2);
    CHECK(j["kept"] == 3);  // the file was version 3's text already
    CHECK(slurp(file) == slurp(kSolution));

    // A corrupt index: said on stderr, the versions found again from their texts, nothing lost.
    spit(cli.home() / "history" / "split-heads" / "index.json", "{ not json");
    r = cli.run({"history", "split-heads"});
    INFO(r);
    CHECK(r.code == 0);
    CHECK(contains(r.err, "unreadable"));
    CHECK(contains(r.out, "recovered"));
    CHECK(cli.run({"restore", "split-heads", "1"}).code == 0);
    const std::string restored = slurp(file);
    CHECK((restored == "// attempt one\n" || restored == slurp(kSolution)));
}
