// The parent's end of the result channel as a table: what bytes a learner
// program could put there if its guard were gone (channel_writer.hpp keeps
// them away), and what the channel makes of them. No process is spawned.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/common/protocol.hpp"
#include "attnlab/common/wire.hpp"
#include "result_channel.hpp"

using namespace attnlab;
using protocol::CaseReport;
using protocol::CaseStatus;
using wire::FrameType;

namespace {

std::string frame(FrameType type, const std::string& payload) { return wire::encode_frame(type, payload); }
std::string hello(bool guarded = true) { return frame(FrameType::Hello, protocol::encode_hello({42, guarded})); }
std::string begin(uint32_t k) { return frame(FrameType::CaseBegin, protocol::encode_case_begin(k)); }
std::string result(uint32_t k, bool has_kernel = false) {
    CaseReport r;
    r.index = k;
    r.output = Value::of_int(7);
    r.has_kernel = has_kernel;
    return frame(FrameType::CaseResult, protocol::encode_case_result(r));
}
std::string done() { return frame(FrameType::Done, ""); }

struct Fed {
    bool accepted;
    ChannelSummary summary;
};
Fed feed(const std::string& bytes, size_t cases = 2, bool kernel_data_required = false) {
    ResultChannel channel(cases, nullptr, {}, kernel_data_required);
    const bool ok = channel.feed(bytes.data(), bytes.size());
    return {ok, channel.summary()};
}

}  // namespace

TEST_CASE("a channel carries the harness's frames in order, and nothing else") {
    struct Row {
        const char* what;
        std::string bytes;
        bool accepted;
        std::string code;
    } rows[] = {
        {"a whole run", hello() + begin(0) + result(0) + begin(1) + result(1) + done(), true, ""},
        {"garbage", "this is not a result frame", false, "bad_frame_magic"},
        {"a result for case 0xFFFFFFFF", hello() + begin(0) + result(0xFFFFFFFFu), false, "out_of_order"},
        {"done before every case", hello() + begin(0) + result(0) + done(), false, "finished_early"},
        {"a second hello", hello() + begin(0) + result(0) + hello(), false, "repeated_hello"},
        {"a result without a begin", hello() + result(0), false, "out_of_order"},
    };
    for (const Row& r : rows) {
        const Fed f = feed(r.bytes);
        CHECK_MESSAGE(f.accepted == r.accepted, r.what);
        CHECK_MESSAGE(f.summary.corrupt_code == r.code, r.what);
    }
}

TEST_CASE("a CUDA program's result without its launches is a broken channel, never 'skip the kernel checks'") {
    const Fed forged = feed(hello() + begin(0) + result(0, false), 1, true);
    CHECK_FALSE(forged.accepted);
    CHECK(forged.summary.corrupt_code == "missing_kernel_data");
    const Fed real = feed(hello() + begin(0) + result(0, true) + done(), 1, true);
    CHECK(real.accepted);
    CHECK(real.summary.done);
    // A C++ program has no launches to send.
    CHECK(feed(hello() + begin(0) + result(0, false) + done(), 1, false).accepted);
}

TEST_CASE("the Hello says whether the channel is guarded; the verdict refuses an unguarded one under the sandbox's filter") {
    CHECK(feed(hello(true)).summary.channel_guarded);
    CHECK_FALSE(feed(hello(false)).summary.channel_guarded);
    const std::string bad_flag = frame(FrameType::Hello, [] {
        std::string p = protocol::encode_hello({1, true});
        p.back() = 2;
        return p;
    }());
    CHECK(feed(bad_flag).summary.corrupt_code == "bad_flag");

    ChannelSummary unguarded;
    unguarded.hello = true;
    unguarded.done = true;
    unguarded.channel_guarded = false;
    ProcessOutcome p;
    p.status = ProcessOutcome::Status::Exited;
    Limits limits;
    using sandbox_status::Layer;
    using sandbox_status::LayerState;
    p.protections[Layer::Seccomp] = {LayerState::Applied, 0};
    const ProcessVerdict refused = classify(p, unguarded, limits);
    CHECK(refused.verdict == Verdict::ProtocolError);
    CHECK(refused.problem == Problem::ChannelCorrupt);
    CHECK(refused.detail == "unguarded_channel");
    // Without the sandbox's filter (the user's weak-sandbox opt-in) the run stands.
    p.protections[Layer::Seccomp] = {LayerState::DisabledByUser, 0};
    CHECK(classify(p, unguarded, limits).verdict == Verdict::Pass);
    unguarded.channel_guarded = true;
    p.protections[Layer::Seccomp] = {LayerState::Applied, 0};
    CHECK(classify(p, unguarded, limits).verdict == Verdict::Pass);
}
