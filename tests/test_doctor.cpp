// attnlab doctor: the probing finds what this machine has, and the texts say
// it in both languages; the "protections off" notice goes with every verdict.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/text/protection_words.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
namespace status = attnlab::sandbox_status;

namespace {

const DoctorReport& report() {
    static const DoctorReport r = run_doctor(Toolchain::detect());
    return r;
}

}  // namespace

TEST_CASE("doctor finds the compiler, the learner runtime and the sandbox of this build") {
    const DoctorReport& r = report();
    CHECK(r.compiler.found);
    CHECK_FALSE(r.compiler.version.empty());
    CHECK(r.runtime_found);
    CHECK(r.runtime_problem.empty());
    CHECK(r.sandbox.found);
    CHECK(r.checks_can_run());
    CHECK(r.protections_problem.empty());
    // Every layer of a learner program is either on or off with a reason.
    for (status::Layer l : status::kLayers) {
        const auto& s = r.protections[l];
        CHECK((s.state == status::LayerState::Applied || (s.state == status::LayerState::Refused && s.error > 0)));
    }
}

TEST_CASE("doctor's text names every item in both languages, with no key left untranslated") {
    const std::string en = doctor_text(report(), Lang::En);
    const std::string id = doctor_text(report(), Lang::Id);
    CHECK(contains(en, "compiler:"));
    CHECK(contains(en, "system-call filter:"));
    CHECK(contains(en, "CUDA toolkit (nvcc):"));
    CHECK(contains(en, "program runs as:"));
    CHECK(contains(en, "own IPC (shared memory):"));
    CHECK(contains(en, "memory per check:"));
    CHECK(contains(en, "compiler sandbox:"));
    CHECK(contains(en, "weak-sandbox opt-in:"));
    CHECK(contains(en, "ATTNLAB_ALLOW_WEAK_SANDBOX"));
    CHECK(contains(id, "kompiler:"));
    CHECK(contains(id, "filter system call:"));
    CHECK(contains(id, "batas per pemeriksaan:"));
    CHECK_FALSE(contains(en, "doctor."));  // tr() shows an unknown key as itself
    CHECK_FALSE(contains(id, "doctor."));
    CHECK_FALSE(contains(id, "not found"));
    CHECK_FALSE(contains(id, "Learner programs"));
}

TEST_CASE("without a cgroup, doctor names the fallback's process margin and OOM score as the sandbox applies them") {
    DoctorReport r = report();
    r.accounting = status::Accounting::Fallback;
    const std::string margin = std::to_string(status::kFallbackProcessMargin);
    CHECK(contains(doctor_text(r, Lang::En), "at most " + margin + " more processes"));
    CHECK(contains(doctor_text(r, Lang::En), "(oom_score_adj " + std::to_string(status::kProgramOomScoreAdj) + ")"));
    CHECK(contains(doctor_text(r, Lang::Id), "paling banyak " + margin + " proses tambahan"));
    const nlohmann::json fallback = nlohmann::json::parse(doctor_json(r))["cgroup"]["fallback"];
    CHECK(fallback["process_margin"] == status::kFallbackProcessMargin);
    CHECK(fallback["oom_score_adj"] == status::kProgramOomScoreAdj);
}

TEST_CASE("doctor --json carries the same facts") {
    const DoctorReport& r = report();
    const nlohmann::json j = nlohmann::json::parse(doctor_json(r));
    CHECK(j["compiler"]["path"] == r.compiler.path);
    CHECK(j["checks_can_run"] == true);
    CHECK(j["learner_runtime"]["found"] == r.runtime_found);
    CHECK(j["limits"]["memory_mb"] == r.default_limits.memory_mb);
    for (status::Layer l : status::kLayers) {
        const std::string state = j["protections"]["layers"][status::layer_code(l)]["state"];
        CHECK(state == (r.protections[l].state == status::LayerState::Applied ? "on" : "refused"));
    }
    CHECK(j["gpu"]["device_node"].is_boolean());
    // Who learner code runs as, its namespaces, how a check is accounted, and the compiler's sandbox.
    CHECK(j["identity"]["uid"] == r.program_uid);
    CHECK(j["identity"]["unprivileged"] == true);
    CHECK(j["identity"]["uid"] != 0);
    for (const char* ns : {"pidns", "mountns", "netns", "ipcns", "utsns"}) CHECK(j["namespaces"].contains(ns));
    CHECK((j["cgroup"]["accounting"] == "cgroup" || j["cgroup"]["accounting"] == "fallback"));
    CHECK(j["compiler_sandbox"]["layers"]["mountns"]["state"].is_string());
    CHECK(j["compiler_sandbox"]["problem"] == r.compiler_problem);
    CHECK(j["weak_sandbox_opt_in"]["env"] == "ATTNLAB_ALLOW_WEAK_SANDBOX");
    CHECK(j["weak_sandbox_opt_in"]["setting"] == "allow_weak_sandbox");
    CHECK(j["cuda_toolkit"]["found"] == r.nvcc.found);
    CHECK(j["nvrtc"]["found"] == r.nvrtc.found);
}

TEST_CASE("a protection that is off is named with its reason, in both languages") {
    status::Protections p;
    p[status::Layer::PidNamespace] = {status::LayerState::Applied, 0};
    p[status::Layer::MountNamespace] = {status::LayerState::Refused, 1};  // EPERM
    p[status::Layer::NetworkNamespace] = {status::LayerState::DisabledByUser, 0};
    p[status::Layer::Seccomp] = {status::LayerState::Applied, 0};
    const std::string en = protections_summary(p, Lang::En);
    CHECK(contains(en, "private files — off: the system does not allow it"));
    CHECK(contains(en, "no network — off (ATTNLAB_NO_NETNS is set)"));
    CHECK_FALSE(contains(en, "system-call filter"));
    const std::string id = protections_summary(p, Lang::Id);
    CHECK(contains(id, "berkas privat — mati: sistem tidak mengizinkannya"));
    CHECK(contains(id, "tanpa jaringan — mati (ATTNLAB_NO_NETNS diset)"));

    status::Protections all_on = p;
    all_on[status::Layer::MountNamespace] = {status::LayerState::Applied, 0};
    all_on[status::Layer::NetworkNamespace] = {status::LayerState::Applied, 0};
    CHECK(protections_summary(all_on, Lang::En) == "Learner programs run with every protection on.");
}

TEST_CASE("every verdict of a run with a missing protection says so, and names the opt-in that allowed it") {
    status::Protections p;
    p[status::Layer::Seccomp] = {status::LayerState::Refused, 38};  // ENOSYS
    const std::string first = protections_notice(p, Lang::En);
    CHECK(contains(first, "system-call filter — off: this kernel does not support it"));
    CHECK(contains(first, "ATTNLAB_ALLOW_WEAK_SANDBOX=1"));
    CHECK(protections_notice(p, Lang::En) == first);  // the second verdict too
    CHECK(protections_notice_once(p, Lang::En) == first);
    CHECK_FALSE(protections_notice(p, Lang::Id).empty());
    status::Protections complete;
    CHECK(protections_notice(complete, Lang::En).empty());
}

TEST_CASE("a namespace refusal says what was observed, and gives sysctl advice only for a setting that is off") {
    status::Protections p;
    p[status::Layer::MountNamespace] = {status::LayerState::Refused, EPERM};
    p[status::Layer::Identity] = {status::LayerState::Applied, 0};
    p[status::Layer::Seccomp] = {status::LayerState::Applied, 0};
    struct Row {
        const char* what;
        NamespaceSettings settings;
        std::vector<std::string> said, not_said;
    } rows[] = {
        // A kernel that allows user namespaces, refused by a container's seccomp profile: no sysctl.
        {"all on", {false, 1, 15000, 0}, {"failed with EPERM", "--security-opt seccomp=unconfined"}, {"sysctl"}},
        {"Debian's switch off", {false, 0, 15000, std::nullopt}, {"kernel.unprivileged_userns_clone = 0", "sysctl -w kernel.unprivileged_userns_clone=1"},
         {"max_user_namespaces", "apparmor_restrict"}},
        {"no namespaces at all", {false, std::nullopt, 0, std::nullopt}, {"user.max_user_namespaces = 0"}, {"unprivileged_userns_clone"}},
        {"Ubuntu's AppArmor rule", {false, std::nullopt, 15000, 1}, {"apparmor_restrict_unprivileged_userns = 1"}, {"max_user_namespaces"}},
        {"root: no user namespace needed", {true, 0, 0, 1}, {"Even root may not create namespaces here"}, {"sysctl"}},
    };
    for (const Row& r : rows) {
        const std::string en = isolation_refusal_text(p, Lang::En, r.settings);
        const std::string id = isolation_refusal_text(p, Lang::Id, r.settings);
        INFO(r.what << "\n" << en);
        for (const std::string& s : r.said) CHECK(contains(en, s));
        for (const std::string& s : r.not_said) CHECK_FALSE(contains(en, s));
        CHECK(contains(id, "gagal dengan EPERM"));
        CHECK_FALSE(contains(id, "If you accept"));
    }
}

TEST_CASE("a refusal says what is missing, why, and how to enable it") {
    status::Protections p;
    for (status::Layer l : {status::Layer::PidNamespace, status::Layer::MountNamespace, status::Layer::NetworkNamespace,
                            status::Layer::IpcNamespace, status::Layer::UtsNamespace})
        p[l] = {status::LayerState::Refused, 1};  // EPERM
    p[status::Layer::Identity] = {status::LayerState::Applied, 0};
    p[status::Layer::Seccomp] = {status::LayerState::Applied, 0};
    const std::string en = isolation_refusal_text(p, Lang::En);
    CHECK(contains(en, "private files — off: the system does not allow it"));
    CHECK(contains(en, "--security-opt seccomp=unconfined"));
    CHECK(contains(en, "ATTNLAB_ALLOW_WEAK_SANDBOX=1"));
    CHECK(contains(en, "\"allow_weak_sandbox\": true"));
    CHECK(contains(en, "failed with EPERM (Operation not permitted)"));
    CHECK_FALSE(contains(isolation_refusal_text(p, Lang::Id), "If you accept"));
    p[status::Layer::NetworkNamespace] = {status::LayerState::DisabledByUser, 0};
    CHECK(contains(isolation_refusal_text(p, Lang::En), "Unset ATTNLAB_NO_NETNS"));
}
