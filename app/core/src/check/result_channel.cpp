#include "result_channel.hpp"

#include "attnlab/core/base/util.hpp"

namespace attnlab {

using protocol::DecodeError;

ResultChannel::ResultChannel(size_t case_count, std::function<void(int)> on_case_begin, std::vector<uint32_t> expected,
                             bool kernel_data_required)
    : on_case_begin_(std::move(on_case_begin)), reports_(case_count), kernel_data_required_(kernel_data_required), expected_(std::move(expected)) {
    if (expected_.empty())
        for (uint32_t k = 0; k < case_count; ++k) expected_.push_back(k);
}

bool ResultChannel::feed(const char* data, size_t size) {
    if (!corrupt_code_.empty()) return false;
    received_ += size;
    if (received_ > protocol::ProtocolLimits::max_channel_bytes) {
        corrupt_code_ = "channel_too_large";
        return false;
    }
    decoder_.feed(data, size);
    wire::FrameType type;
    std::string payload;
    while (true) {
        const auto status = decoder_.next(type, payload);
        if (status == wire::FrameDecoder::Status::NeedMore) return true;
        if (status == wire::FrameDecoder::Status::Corrupt) {
            corrupt_code_ = decoder_.error();
            return false;
        }
        if (!handle(type, payload)) return false;
    }
}

bool ResultChannel::fail(DecodeError e) {
    corrupt_code_ = protocol::decode_error_code(e);
    return false;
}

bool ResultChannel::handle(wire::FrameType type, const std::string& payload) {
    switch (type) {
        case wire::FrameType::Hello: {
            if (hello_) return fail(DecodeError::RepeatedHello);
            protocol::Hello hello;
            if (DecodeError e = protocol::decode_hello(payload, hello); e != DecodeError::None) return fail(e);
            hello_ = true;
            guarded_ = hello.channel_guarded;
            return true;
        }
        case wire::FrameType::CaseBegin: {
            uint32_t k = 0;
            if (DecodeError e = protocol::decode_case_begin(payload, k); e != DecodeError::None) return fail(e);
            // Cases run in order, one at a time: anything else is not the harness talking.
            if (running_ >= 0 || k >= reports_.size() || next_ >= expected_.size() || k != expected_[next_])
                return fail(DecodeError::OutOfOrder);
            running_ = static_cast<int>(k);
            if (on_case_begin_) on_case_begin_(running_);
            return true;
        }
        case wire::FrameType::CaseResult: {
            protocol::CaseReport report;
            if (DecodeError e = protocol::decode_case_result(payload, report); e != DecodeError::None) return fail(e);
            // Compared unsigned: an index of 0xFFFFFFFF must not pass as "no case running" (-1).
            if (running_ < 0 || report.index != static_cast<uint32_t>(running_)) return fail(DecodeError::OutOfOrder);
            // A CUDA runtime reports every finished case's launches (none is a
            // list of zero): a result without them would skip every kernel check.
            if (kernel_data_required_ && report.status == protocol::CaseStatus::Ok && !report.has_kernel)
                return fail(DecodeError::MissingKernelData);
            report.exception_type = sanitize_utf8(report.exception_type);
            report.exception_what = sanitize_utf8(report.exception_what);
            for (NamedTensor& p : report.probes) p.name = sanitize_utf8(p.name);
            reports_[report.index] = std::move(report);
            running_ = -1;
            ++next_;
            return true;
        }
        case wire::FrameType::Done:
            if (running_ >= 0 || next_ != expected_.size()) return fail(DecodeError::FinishedEarly);
            done_ = true;
            return true;
    }
    return fail(DecodeError::UnknownFrame);
}

ChannelSummary ResultChannel::summary() const {
    ChannelSummary s;
    s.hello = hello_;
    s.channel_guarded = guarded_;
    s.done = done_;
    s.running = running_;
    for (const uint32_t k : expected_)
        if (!reports_[k]) {
            s.first_unreported = static_cast<int>(k);
            break;
        }
    s.corrupt = !corrupt_code_.empty();
    s.corrupt_code = corrupt_code_;
    return s;
}

}  // namespace attnlab
