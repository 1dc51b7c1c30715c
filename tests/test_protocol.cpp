// The parent/child protocol, both directions: what one side encodes the other
// decodes unchanged, and truncated or corrupted bytes are rejected with a
// code, never read past their end or trusted for a size.
#include <cstring>
#include <random>

#include <doctest/doctest.h>

#include "attnlab/common/protocol.hpp"

using namespace attnlab;
using namespace attnlab::protocol;

namespace {

TensorData tensor(Shape shape, float start) {
    TensorData t = TensorData::zeros(shape);
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = start + static_cast<float>(i);
    return t;
}

std::vector<CaseArgs> sample_cases() {
    return {{Value::of_tensor(tensor({2, 3}, 1)), Value::of_int(2)},
            {Value::of_tensor(tensor({1, 1, 4}, -2)), Value::of_float(0.125), Value::of_int(-7)},
            {}};
}

bool same(const Value& a, const Value& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
        case ValueKind::Tensor: return a.tensor.shape == b.tensor.shape && a.tensor.data == b.tensor.data;
        case ValueKind::Int: return a.int_value == b.int_value;
        case ValueKind::Float: return a.float_value == b.float_value;
    }
    return false;
}

CaseReport ok_report() {
    CaseReport r;
    r.index = 3;
    r.status = CaseStatus::Ok;
    r.output = Value::of_tensor(tensor({2, 2}, 0.5f));
    r.probes = {{"scores", tensor({2, 2, 2}, 3)}, {"weights", tensor({4}, 0)}};
    r.probes_dropped = 2;
    r.recorded = {{52, TensorOp::Matmul, tensor({2, 2}, 1)}, {28, TensorOp::Writes, tensor({2, 2, 2}, -1)}};
    r.recorded_dropped = 3;
    r.ms = 1.5;
    return r;
}

}  // namespace

TEST_CASE("cases round-trip") {
    const auto cases = sample_cases();
    std::vector<CaseArgs> back;
    REQUIRE(decode_cases(encode_cases(cases), back) == DecodeError::None);
    REQUIRE(back.size() == cases.size());
    for (size_t k = 0; k < cases.size(); ++k) {
        REQUIRE(back[k].size() == cases[k].size());
        for (size_t i = 0; i < cases[k].size(); ++i) CHECK(same(back[k][i], cases[k][i]));
    }
}

TEST_CASE("case results round-trip for every status") {
    CaseReport exception;
    exception.index = 1;
    exception.status = CaseStatus::Exception;
    exception.exception_type = "std::runtime_error";
    exception.exception_what = "boom";
    CaseReport oom;
    oom.status = CaseStatus::OutOfMemory;
    CaseReport modified;
    modified.status = CaseStatus::InputModified;
    modified.modified_arg = 4;
    CaseReport too_large;
    too_large.status = CaseStatus::OutputTooLarge;
    too_large.output_shape = "(100, 100, 4000)";
    too_large.output_bytes = 160000000;
    for (const CaseReport& r : {ok_report(), exception, oom, modified, too_large}) {
        CaseReport back;
        REQUIRE(decode_case_result(encode_case_result(r), back) == DecodeError::None);
        CHECK(back.index == r.index);
        CHECK(back.status == r.status);
        CHECK(same(back.output, r.output));
        REQUIRE(back.probes.size() == r.probes.size());
        for (size_t i = 0; i < r.probes.size(); ++i) {
            CHECK(back.probes[i].name == r.probes[i].name);
            CHECK(back.probes[i].tensor.data == r.probes[i].tensor.data);
        }
        CHECK(back.probes_dropped == r.probes_dropped);
        REQUIRE(back.recorded.size() == r.recorded.size());
        for (size_t i = 0; i < r.recorded.size(); ++i) {
            CHECK(back.recorded[i].line == r.recorded[i].line);
            CHECK(back.recorded[i].op == r.recorded[i].op);
            CHECK(back.recorded[i].tensor.shape == r.recorded[i].tensor.shape);
            CHECK(back.recorded[i].tensor.data == r.recorded[i].tensor.data);
        }
        CHECK(back.recorded_dropped == r.recorded_dropped);
        CHECK(back.ms == r.ms);
        CHECK(back.exception_type == r.exception_type);
        CHECK(back.exception_what == r.exception_what);
        CHECK(back.modified_arg == r.modified_arg);
        CHECK(back.output_shape == r.output_shape);
        CHECK(back.output_bytes == r.output_bytes);
    }
}

TEST_CASE("hello and case-begin round-trip; another version is refused") {
    Hello hello;
    CHECK(decode_hello(encode_hello({1234, true}), hello) == DecodeError::None);
    CHECK(hello.pid == 1234);
    CHECK(hello.channel_guarded);
    CHECK(decode_hello(encode_hello({1234, false}), hello) == DecodeError::None);
    CHECK_FALSE(hello.channel_guarded);
    uint32_t k = 0;
    CHECK(decode_case_begin(encode_case_begin(7), k) == DecodeError::None);
    CHECK(k == 7);
    wire::Writer w;
    w.u32(wire::kVersion + 1);
    w.u32(1);
    w.u8(1);
    CHECK(decode_hello(w.take(), hello) == DecodeError::VersionMismatch);
}

TEST_CASE("every truncation of a message is rejected, never misread") {
    const std::string cases = encode_cases(sample_cases());
    for (size_t n = 0; n < cases.size(); ++n) {
        std::vector<CaseArgs> back;
        CHECK(decode_cases(cases.substr(0, n), back) != DecodeError::None);
    }
    const std::string result = encode_case_result(ok_report());
    for (size_t n = 0; n < result.size(); ++n) {
        CaseReport back;
        CHECK(decode_case_result(result.substr(0, n), back) != DecodeError::None);
    }
    CaseReport back;
    CHECK(decode_case_result(result + "x", back) == DecodeError::TrailingBytes);
}

TEST_CASE("limits are enforced by the decoder") {
    CaseReport r = ok_report();
    r.probes.assign(ProtocolLimits::max_probes + 1, {"p", tensor({1}, 0)});
    CaseReport back;
    CHECK(decode_case_result(encode_case_result(r), back) == DecodeError::TooManyProbes);
    std::vector<CaseArgs> many(1, CaseArgs(ProtocolLimits::max_args + 1, Value::of_int(1)));
    std::vector<CaseArgs> out;
    CHECK(decode_cases(encode_cases(many), out) == DecodeError::TooManyArgs);
    std::string bad = encode_case_result(ok_report());
    bad[4] = 9;  // the status byte
    CHECK(decode_case_result(bad, back) == DecodeError::UnknownStatus);
}

TEST_CASE("recorded tensors: the encoder keeps to the limits, the decoder refuses more and unknown operations") {
    CaseReport r = ok_report();
    r.recorded.assign(ProtocolLimits::max_recorded + 5, {7, TensorOp::Add, tensor({1}, 0)});
    CaseReport back;
    REQUIRE(decode_case_result(encode_case_result(r), back) == DecodeError::None);
    CHECK(back.recorded.size() == ProtocolLimits::max_recorded);  // cut by the writer, not trusted by the reader

    // A writer that ignores the limit (hand-made bytes): refused.
    const size_t one_tensor = (ProtocolLimits::max_recorded_bytes / sizeof(float)) / 2 + 1;
    r.recorded.assign(2, {7, TensorOp::Add, TensorData::zeros({static_cast<int64_t>(one_tensor)})});
    REQUIRE(decode_case_result(encode_case_result(r), back) == DecodeError::None);
    CHECK(back.recorded.size() == 1);  // the second would pass 16 MB

    wire::Writer w;  // a result whose recorded list claims one more than the limit
    w.u32(0);
    w.u8(static_cast<uint8_t>(CaseStatus::Ok));
    w.u8(static_cast<uint8_t>(wire::ValueTag::Int));
    w.i64(1);
    w.u32(0);  // probes
    w.u32(0);  // probes dropped
    w.u32(ProtocolLimits::max_recorded + 1);
    CHECK(decode_case_result(w.take(), back) == DecodeError::TooManyRecords);

    r.recorded = {{7, TensorOp::Add, tensor({1}, 0)}};
    std::string bytes = encode_case_result(r);
    // The op byte follows the line (i64): find the pair and put the op out of range.
    const std::string needle = std::string("\x07\0\0\0\0\0\0\0", 8) + static_cast<char>(TensorOp::Add);
    const size_t at = bytes.find(needle);
    REQUIRE(at != std::string::npos);
    bytes[at + 8] = static_cast<char>(static_cast<uint8_t>(kLastTensorOp) + 1);
    CHECK(decode_case_result(bytes, back) == DecodeError::BadValueTag);
}

TEST_CASE("random corruption never crashes the decoders (fuzz, fixed seed)") {
    std::mt19937 rng(12345);
    const std::string cases = encode_cases(sample_cases());
    const std::string result = encode_case_result(ok_report());
    int rejected = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string c = round % 2 ? cases : result;
        const int flips = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < flips; ++i) c[rng() % c.size()] = static_cast<char>(rng() & 0xff);
        if (rng() % 3 == 0) c.resize(rng() % (c.size() + 1));
        std::vector<CaseArgs> out;
        CaseReport back;
        const DecodeError e = round % 2 ? decode_cases(c, out) : decode_case_result(c, back);
        if (e != DecodeError::None) {
            ++rejected;
            continue;
        }
        // What decodes is self-consistent: every tensor holds what its shape says.
        for (const auto& args : out)
            for (const Value& v : args)
                if (v.kind == ValueKind::Tensor) CHECK(static_cast<int64_t>(v.tensor.data.size()) == v.tensor.numel());
        for (const auto& p : back.probes) CHECK(static_cast<int64_t>(p.tensor.data.size()) == p.tensor.numel());
    }
    CHECK(rejected > 0);
}

TEST_CASE("frames: corrupt bytes give a stable code") {
    wire::FrameDecoder d(1024);
    d.feed("garbage!garbage!", 16);
    wire::FrameType type;
    std::string payload;
    CHECK(d.next(type, payload) == wire::FrameDecoder::Status::Corrupt);
    CHECK(d.error() == "bad_frame_magic");
    wire::FrameDecoder big(8);
    const std::string frame = wire::encode_frame(wire::FrameType::Hello, std::string(64, 'x'));
    big.feed(frame.data(), frame.size());
    CHECK(big.next(type, payload) == wire::FrameDecoder::Status::Corrupt);
    CHECK(big.error() == "frame_too_large");
    std::string flipped = wire::encode_frame(wire::FrameType::Hello, encode_hello({1, true}));
    flipped[10] ^= 1;
    wire::FrameDecoder sum(1024);
    sum.feed(flipped.data(), flipped.size());
    CHECK(sum.next(type, payload) == wire::FrameDecoder::Status::Corrupt);
    CHECK(sum.error() == "bad_checksum");
}

namespace {

// A CUDA case: two launches, the second one faulted (racecheck), with a
// trace and thread groups, and two output elements never written.
CaseReport kernel_report() {
    CaseReport r = ok_report();
    r.has_kernel = true;
    emu::LaunchReport first;
    first.kernel = "split_kernel";
    first.grid = {3, 2, 1};
    first.block = {64, 1, 1};
    first.counters.global_load_requests = 10;
    first.counters.global_load_sectors = 40;
    first.counters.global_pages = 7;
    first.counters.warp_syncs = 5;
    emu::AccessEvent e;
    e.block = 5;
    e.thread = 33;
    e.space = emu::MemorySpace::Shared;
    e.is_write = true;
    e.buffer = "shared";
    e.index = 12;
    e.sector = 12;
    e.interval = 2;
    e.k = 1;
    e.line = 17;
    first.trace = {e, e};
    first.trace[1].space = emu::MemorySpace::Global;
    first.trace[1].is_write = false;
    first.trace[1].buffer = "x";
    emu::LaunchReport second;
    second.kernel = "softmax_kernel";
    second.dynamic_shared_bytes = 512;
    second.fault.kind = emu::FaultKind::BarrierDivergence;
    second.fault.block = {1, 0, 0};
    second.fault.thread = {31, 0, 0};
    second.fault.line = 22;
    second.fault.groups = {{emu::ThreadActivity::Waiting, 22, {0, 1, 2}}, {emu::ThreadActivity::Exited, 0, {3}}};
    second.fault.detail = "why";
    r.kernel.launches = {first, second};
    r.kernel.unwritten_count = 2;
    r.kernel.host_set_count = 1;
    r.kernel.device_time_ns = 1'250'000;
    r.kernel.first_unwritten = 9;
    return r;
}

}  // namespace

TEST_CASE("a CUDA case's launches, faults and trace round-trip") {
    const CaseReport r = kernel_report();
    CaseReport back;
    REQUIRE(decode_case_result(encode_case_result(r), back) == DecodeError::None);
    REQUIRE(back.has_kernel);
    REQUIRE(back.kernel.launches.size() == 2);
    const emu::LaunchReport& a = back.kernel.launches[0];
    CHECK(a.kernel == "split_kernel");
    CHECK(a.grid == emu::Dim3{3, 2, 1});
    CHECK(a.block == emu::Dim3{64, 1, 1});
    CHECK(a.counters.sectors_per_load_request() == 4.0);
    CHECK(a.counters.global_pages == 7);
    CHECK(a.counters.warp_syncs == 5);
    CHECK(a.ok());
    REQUIRE(a.trace.size() == 2);
    CHECK(a.trace[0].block == 5);
    CHECK(a.trace[0].thread == 33);
    CHECK(a.trace[0].space == emu::MemorySpace::Shared);
    CHECK(a.trace[0].is_write);
    CHECK(a.trace[0].line == 17);
    CHECK(a.trace[1].buffer == "x");
    CHECK(a.trace[1].space == emu::MemorySpace::Global);
    CHECK_FALSE(a.trace[1].is_write);
    const emu::LaunchReport& b = back.kernel.launches[1];
    CHECK(b.dynamic_shared_bytes == 512);
    CHECK(b.fault.kind == emu::FaultKind::BarrierDivergence);
    CHECK(b.fault.thread == emu::Dim3{31, 0, 0});
    CHECK(b.fault.line == 22);
    REQUIRE(b.fault.groups.size() == 2);
    CHECK(b.fault.groups[0].threads == std::vector<unsigned>{0, 1, 2});
    CHECK(b.fault.groups[1].what == emu::ThreadActivity::Exited);
    CHECK(b.fault.detail == "why");
    CHECK(back.kernel.unwritten_count == 2);
    CHECK(back.kernel.host_set_count == 1);
    CHECK(back.kernel.device_time_ns == 1'250'000);
    CHECK(back.kernel.first_unwritten == 9);
    // A C++ case carries no kernel section.
    CaseReport plain;
    REQUIRE(decode_case_result(encode_case_result(ok_report()), plain) == DecodeError::None);
    CHECK_FALSE(plain.has_kernel);
}

TEST_CASE("a CUDA case: every truncation is rejected; the trace is capped by the encoder, refused past it by the decoder") {
    const std::string bytes = encode_case_result(kernel_report());
    for (size_t n = 0; n < bytes.size(); ++n) {
        CaseReport back;
        CHECK(decode_case_result(bytes.substr(0, n), back) != DecodeError::None);
    }
    CaseReport big = kernel_report();
    big.kernel.launches.resize(1);
    big.kernel.launches[0].trace.assign(ProtocolLimits::max_trace_events + 10, emu::AccessEvent{});
    CaseReport back;
    REQUIRE(decode_case_result(encode_case_result(big), back) == DecodeError::None);
    CHECK(back.kernel.launches[0].trace.size() == ProtocolLimits::max_trace_events);
    CHECK(back.kernel.launches[0].trace_truncated);
    // A forged count beyond the limit (the launch count is the first u32 of the kernel section).
    std::string forged = encode_case_result(kernel_report());
    const std::string plain = encode_case_result(ok_report());
    const size_t at = plain.size();  // the kernel section starts where a plain result ends
    const uint32_t too_many = ProtocolLimits::max_launches + 1;
    std::memcpy(&forged[at], &too_many, 4);
    CHECK(decode_case_result(forged, back) == DecodeError::TooManyRecords);
}
