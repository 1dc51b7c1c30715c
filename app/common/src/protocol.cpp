#include "attnlab/common/protocol.hpp"

#include <algorithm>

namespace attnlab::protocol {

const char* decode_error_code(DecodeError e) {
    switch (e) {
        case DecodeError::None: return "none";
        case DecodeError::BadMagic: return "bad_magic";
        case DecodeError::VersionMismatch: return "version_mismatch";
        case DecodeError::Truncated: return "truncated";
        case DecodeError::BadValueTag: return "bad_value_tag";
        case DecodeError::TooManyArgs: return "too_many_args";
        case DecodeError::TooManyProbes: return "too_many_probes";
        case DecodeError::UnknownStatus: return "unknown_status";
        case DecodeError::TrailingBytes: return "trailing_bytes";
        case DecodeError::OutOfOrder: return "out_of_order";
        case DecodeError::UnknownFrame: return "unknown_frame";
        case DecodeError::FinishedEarly: return "finished_early";
    }
    return "?";
}

namespace {

void write_value(wire::Writer& w, const Value& v) {
    switch (v.kind) {
        case ValueKind::Tensor:
            w.u8(static_cast<uint8_t>(wire::ValueTag::Tensor));
            w.tensor(v.tensor.shape, v.tensor.data.data());
            break;
        case ValueKind::Int:
            w.u8(static_cast<uint8_t>(wire::ValueTag::Int));
            w.i64(v.int_value);
            break;
        case ValueKind::Float:
            w.u8(static_cast<uint8_t>(wire::ValueTag::Float));
            w.f64(v.float_value);
            break;
    }
}

DecodeError read_value(wire::Reader& r, Value& v) {
    uint8_t tag = 0;
    if (!r.u8(tag)) return DecodeError::Truncated;
    bool ok = false;
    switch (static_cast<wire::ValueTag>(tag)) {
        case wire::ValueTag::Tensor:
            v = Value{};
            v.kind = ValueKind::Tensor;
            ok = r.tensor(v.tensor.shape, v.tensor.data);
            break;
        case wire::ValueTag::Int:
            v = Value::of_int(0);
            ok = r.i64(v.int_value);
            break;
        case wire::ValueTag::Float:
            v = Value::of_float(0);
            ok = r.f64(v.float_value);
            break;
        default: return DecodeError::BadValueTag;
    }
    return ok ? DecodeError::None : DecodeError::Truncated;
}

// The decoders' common ending: everything read, nothing left over.
DecodeError finished(const wire::Reader& r) {
    if (!r.ok()) return DecodeError::Truncated;
    return r.at_end() ? DecodeError::None : DecodeError::TrailingBytes;
}

}  // namespace

std::string encode_cases(const std::vector<CaseArgs>& cases) {
    wire::Writer w;
    w.u32(wire::kCasesMagic);
    w.u32(wire::kVersion);
    w.u32(static_cast<uint32_t>(cases.size()));
    for (const CaseArgs& args : cases) {
        w.u32(static_cast<uint32_t>(args.size()));
        for (const Value& v : args) write_value(w, v);
    }
    return w.take();
}

DecodeError decode_cases(const std::string& bytes, std::vector<CaseArgs>& cases) {
    wire::Reader r(bytes);
    uint32_t magic = 0, version = 0, count = 0;
    if (!r.u32(magic)) return DecodeError::Truncated;
    if (magic != wire::kCasesMagic) return DecodeError::BadMagic;
    if (!r.u32(version)) return DecodeError::Truncated;
    if (version != wire::kVersion) return DecodeError::VersionMismatch;
    if (!r.u32(count)) return DecodeError::Truncated;
    // Each case takes at least 4 bytes: a forged count cannot allocate more than the file holds.
    if (count > bytes.size() / 4) return DecodeError::Truncated;
    cases.assign(count, {});
    for (CaseArgs& args : cases) {
        uint32_t nargs = 0;
        if (!r.u32(nargs)) return DecodeError::Truncated;
        if (nargs > ProtocolLimits::max_args) return DecodeError::TooManyArgs;
        args.resize(nargs);
        for (Value& a : args)
            if (DecodeError e = read_value(r, a); e != DecodeError::None) return e;
    }
    return finished(r);
}

std::string encode_hello(uint32_t pid) {
    wire::Writer w;
    w.u32(wire::kVersion);
    w.u32(pid);
    return w.take();
}

DecodeError decode_hello(const std::string& payload) {
    wire::Reader r(payload);
    uint32_t version = 0, pid = 0;
    if (!r.u32(version)) return DecodeError::Truncated;
    if (version != wire::kVersion) return DecodeError::VersionMismatch;
    if (!r.u32(pid)) return DecodeError::Truncated;
    return finished(r);
}

std::string encode_case_begin(uint32_t index) {
    wire::Writer w;
    w.u32(index);
    return w.take();
}

DecodeError decode_case_begin(const std::string& payload, uint32_t& index) {
    wire::Reader r(payload);
    if (!r.u32(index)) return DecodeError::Truncated;
    return finished(r);
}

std::string encode_case_result(const CaseReport& report) {
    wire::Writer w;
    w.u32(report.index);
    w.u8(static_cast<uint8_t>(report.status));
    switch (report.status) {
        case CaseStatus::Ok:
            write_value(w, report.output);
            w.u32(static_cast<uint32_t>(report.probes.size()));
            for (const NamedTensor& p : report.probes) {
                w.str(p.name);
                w.tensor(p.tensor.shape, p.tensor.data.data());
            }
            w.u32(report.probes_dropped);
            w.f64(report.ms);
            break;
        case CaseStatus::Exception:
            w.str(report.exception_type);
            w.str(report.exception_what);
            break;
        case CaseStatus::OutOfMemory: break;
        case CaseStatus::InputModified: w.u32(report.modified_arg); break;
        case CaseStatus::OutputTooLarge:
            w.str(report.output_shape);
            w.i64(static_cast<int64_t>(report.output_bytes));
            break;
    }
    return w.take();
}

namespace {

DecodeError decode_ok_body(wire::Reader& r, CaseReport& report) {
    if (DecodeError e = read_value(r, report.output); e != DecodeError::None) return e;
    uint32_t nprobes = 0;
    if (!r.u32(nprobes)) return DecodeError::Truncated;
    if (nprobes > ProtocolLimits::max_probes) return DecodeError::TooManyProbes;
    report.probes.resize(nprobes);
    for (NamedTensor& p : report.probes)
        if (!r.str(p.name) || !r.tensor(p.tensor.shape, p.tensor.data)) return DecodeError::Truncated;
    if (!r.u32(report.probes_dropped) || !r.f64(report.ms)) return DecodeError::Truncated;
    return DecodeError::None;
}

}  // namespace

DecodeError decode_case_result(const std::string& payload, CaseReport& report) {
    wire::Reader r(payload);
    report = CaseReport{};
    uint8_t status = 0;
    if (!r.u32(report.index) || !r.u8(status)) return DecodeError::Truncated;
    report.status = static_cast<CaseStatus>(status);
    switch (report.status) {
        case CaseStatus::Ok:
            if (DecodeError e = decode_ok_body(r, report); e != DecodeError::None) return e;
            break;
        case CaseStatus::Exception:
            if (!r.str(report.exception_type) || !r.str(report.exception_what)) return DecodeError::Truncated;
            break;
        case CaseStatus::OutOfMemory: break;
        case CaseStatus::InputModified:
            if (!r.u32(report.modified_arg)) return DecodeError::Truncated;
            break;
        case CaseStatus::OutputTooLarge: {
            int64_t bytes = 0;
            if (!r.str(report.output_shape) || !r.i64(bytes)) return DecodeError::Truncated;
            report.output_shape.resize(std::min<size_t>(report.output_shape.size(), ProtocolLimits::max_name_bytes));
            report.output_bytes = static_cast<uint64_t>(bytes);
            break;
        }
        default: return DecodeError::UnknownStatus;
    }
    return finished(r);
}

}  // namespace attnlab::protocol
