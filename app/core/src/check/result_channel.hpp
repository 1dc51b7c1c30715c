#pragma once
// Internal to the runner: the learner program's result channel (fd 3),
// decoded frame by frame as bytes arrive, with the protocol's rules enforced
// (cases begin in order, one at a time; Done only after every case).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/protocol.hpp"
#include "attnlab/common/wire.hpp"
#include "attnlab/core/check/verdict.hpp"

namespace attnlab {

class ResultChannel {
public:
    // on_case_begin(k) is called when case k starts running (progress reports).
    // `expected`: the cases this program runs, ascending (empty: all of them).
    // `kernel_data_required`: a CUDA program's runtime sends every case's
    // launches; a result without them is not the harness talking.
    ResultChannel(size_t case_count, std::function<void(int)> on_case_begin, std::vector<uint32_t> expected = {},
                  bool kernel_data_required = false);

    // Bytes as they arrive; false once the channel is corrupt (stop the run).
    bool feed(const char* data, size_t size);

    ChannelSummary summary() const;
    // What case k reported; nullopt when it never did.
    std::optional<protocol::CaseReport>& report(size_t k) { return reports_[k]; }

private:
    bool handle(wire::FrameType type, const std::string& payload);
    bool fail(protocol::DecodeError e);

    wire::FrameDecoder decoder_{protocol::ProtocolLimits::max_frame_bytes};
    std::function<void(int)> on_case_begin_;
    std::vector<std::optional<protocol::CaseReport>> reports_;
    bool hello_ = false;
    bool guarded_ = false;
    bool done_ = false;
    bool kernel_data_required_ = false;
    std::vector<uint32_t> expected_;  // the cases to run, in order
    int running_ = -1;   // case that began and has not reported
    size_t next_ = 0;    // position in expected_ of the case to begin next
    std::string corrupt_code_;
    size_t received_ = 0;  // bytes so far, all frames: bounded by ProtocolLimits::max_channel_bytes
};

}  // namespace attnlab
