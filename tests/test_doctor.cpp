// attnlab doctor: the probing finds what this machine has, and the texts say
// it in both languages; the "protections off" notice is said once.
#include <cstdlib>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "attnlab/core/doctor.hpp"
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
    CHECK(contains(id, "kompiler:"));
    CHECK(contains(id, "filter system call:"));
    CHECK(contains(id, "batas per pemeriksaan:"));
    CHECK_FALSE(contains(en, "doctor."));  // tr() shows an unknown key as itself
    CHECK_FALSE(contains(id, "doctor."));
    CHECK_FALSE(contains(id, "not found"));
    CHECK_FALSE(contains(id, "Learner programs"));
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

TEST_CASE("the notice about missing protections is given once per state") {
    status::Protections p;
    p[status::Layer::Seccomp] = {status::LayerState::Refused, 38};  // ENOSYS
    const std::string first = protections_notice_once(p, Lang::En);
    CHECK(contains(first, "system-call filter — off: this kernel does not support it"));
    CHECK(protections_notice_once(p, Lang::En).empty());
    CHECK(protections_notice_once(p, Lang::Id).empty());  // the same state, already told
    p[status::Layer::NetworkNamespace] = {status::LayerState::Refused, 1};
    CHECK_FALSE(protections_notice_once(p, Lang::Id).empty());  // a new state is news
    status::Protections complete;
    CHECK(protections_notice_once(complete, Lang::En).empty());
}
