// The sandbox's status lines (attnlab/common/sandbox_status.hpp): what the
// sandbox writes is what the core reads back, and a cut or damaged line is
// never taken for a report.
#include <string>

#include <doctest/doctest.h>

#include "attnlab/common/sandbox_status.hpp"

using namespace attnlab::sandbox_status;

namespace {

Report sample_report() {
    Report r;
    r.status = RunStatus::Signaled;
    r.code = 0;
    r.signal = 9;
    r.cpu_ms = 1234;
    r.wall_ms = 5678;
    r.maxrss_kb = 91011;
    r.peak_kb = 120000;
    r.uid = 65534;
    r.accounting = Accounting::Fallback;
    r.protections[Layer::PidNamespace] = {LayerState::Applied, 0};
    r.protections[Layer::MountNamespace] = {LayerState::Refused, 1};
    r.protections[Layer::NetworkNamespace] = {LayerState::DisabledByUser, 0};
    r.protections[Layer::Seccomp] = {LayerState::NotAsked, 0};
    return r;
}

void check_same(const Report& a, const Report& b) {
    CHECK(a.status == b.status);
    CHECK(a.code == b.code);
    CHECK(a.signal == b.signal);
    CHECK(a.cpu_ms == b.cpu_ms);
    CHECK(a.wall_ms == b.wall_ms);
    CHECK(a.maxrss_kb == b.maxrss_kb);
    CHECK(a.peak_kb == b.peak_kb);
    CHECK(a.uid == b.uid);
    CHECK(a.accounting == b.accounting);
    CHECK(a.protections == b.protections);
}

}  // namespace

TEST_CASE("a start line and a report survive the round trip") {
    const Report sent = sample_report();
    const Decoded d = decode(encode_started(4321) + encode_report(sent));
    CHECK(d.pgid == 4321);
    REQUIRE(d.has_report);
    check_same(d.report, sent);
}

TEST_CASE("every run status and layer state round-trips") {
    for (RunStatus s : {RunStatus::Exited, RunStatus::Signaled, RunStatus::WallTimeout, RunStatus::Cancelled, RunStatus::ExecFailed,
                        RunStatus::IsolationRefused, RunStatus::MemoryLimit}) {
        for (LayerState st : {LayerState::NotAsked, LayerState::Applied, LayerState::DisabledByUser, LayerState::Refused}) {
            Report r;
            r.status = s;
            r.code = s == RunStatus::ExecFailed ? 2 : 0;
            for (Layer l : kLayers) r.protections[l] = {st, st == LayerState::Refused ? 38 : 0};
            const Decoded d = decode(encode_report(r));
            REQUIRE(d.has_report);
            check_same(d.report, r);
        }
    }
}

TEST_CASE("a line cut anywhere is not a report") {
    const std::string line = encode_report(sample_report());
    for (size_t n = 0; n < line.size(); ++n) {
        const Decoded d = decode(line.substr(0, n));
        CHECK_FALSE(d.has_report);  // no final newline: the sandbox died mid-write
    }
    // Cut but terminated (a prefix followed by a newline): never the wrong
    // status; either no report or, once every field is in, the same one.
    for (size_t n = 0; n + 1 < line.size(); ++n) {
        const Decoded d = decode(line.substr(0, n) + "\n");
        if (d.has_report) CHECK(d.report.status == RunStatus::Signaled);
    }
}

TEST_CASE("damaged lines are rejected, not half-read") {
    const char* damaged[] = {
        "status=exploded code=0\n",           // unknown status
        "status=exited code=zero\n",          // not a number
        "status=exited code=1x\n",            // trailing garbage in a number
        "status=exited cpu_ms=99999999999999999999999\n",  // overflow
        "status=exited pidns=maybe\n",        // unknown layer state
        "status=exited seccomp=refused:\n",   // refusal without its errno
        "status=exited seccomp=refused:-1\n", // impossible errno
        "status=exited =3\n",                 // empty key
        "status=exited garbage\n",            // a token without '='
        "code=0 signal=0\n",                  // no status at all
        "\n",
    };
    for (const char* text : damaged) {
        INFO(text);
        CHECK_FALSE(decode(text).has_report);
    }
}

TEST_CASE("the start line: only a plausible process group counts") {
    CHECK(decode("pgid=77\n").pgid == 77);
    CHECK(decode("pgid=1\n").pgid == 0);   // init: never ours to kill
    CHECK(decode("pgid=0\n").pgid == 0);
    CHECK(decode("pgid=-5\n").pgid == 0);
    CHECK(decode("pgid=12ab\n").pgid == 0);
    CHECK(decode("pgid=77").pgid == 0);    // not finished
    CHECK_FALSE(decode("pgid=77\n").has_report);
}

TEST_CASE("keys from a newer sandbox are ignored") {
    Report r = sample_report();
    std::string line = encode_report(r);
    line.insert(line.size() - 1, " gpu=on future_field=1");
    const Decoded d = decode(line);
    REQUIRE(d.has_report);
    check_same(d.report, r);
}

TEST_CASE("complete() is false only when a wanted layer is missing") {
    Protections p;
    CHECK(p.complete());  // nothing asked (a trusted tool: a version query)
    p[Layer::PidNamespace] = {LayerState::Applied, 0};
    p[Layer::Seccomp] = {LayerState::Applied, 0};
    CHECK(p.complete());
    p[Layer::NetworkNamespace] = {LayerState::DisabledByUser, 0};
    CHECK_FALSE(p.complete());
    p[Layer::NetworkNamespace] = {LayerState::Refused, 1};
    CHECK_FALSE(p.complete());
}

TEST_CASE("layer codes and switches are distinct") {
    for (Layer a : kLayers)
        for (Layer b : kLayers)
            if (a != b) {
                CHECK(std::string(layer_code(a)) != layer_code(b));
                CHECK(std::string(layer_env_switch(a)) != layer_env_switch(b));
            }
}
