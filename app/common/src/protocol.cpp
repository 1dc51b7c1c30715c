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
        case DecodeError::TooManyRecords: return "too_many_records";
        case DecodeError::BadFlag: return "bad_flag";
        case DecodeError::RepeatedHello: return "repeated_hello";
        case DecodeError::UnguardedChannel: return "unguarded_channel";
        case DecodeError::MissingKernelData: return "missing_kernel_data";
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

// ---- CUDA: launch reports (plain data from attnlab/common/launch_report.hpp)

void write_dim3(wire::Writer& w, const emu::Dim3& d) {
    w.u32(d.x);
    w.u32(d.y);
    w.u32(d.z);
}
bool read_dim3(wire::Reader& r, emu::Dim3& d) { return r.u32(d.x) && r.u32(d.y) && r.u32(d.z); }

void write_fault(wire::Writer& w, const emu::Fault& f) {
    w.u8(static_cast<uint8_t>(f.kind));
    write_dim3(w, f.block);
    write_dim3(w, f.thread);
    w.i64(f.line);
    w.u8(static_cast<uint8_t>(f.space));
    w.u8(f.is_write);
    w.str(f.buffer);
    w.i64(f.index);
    w.i64(f.size);
    w.str(f.element_type);
    write_dim3(w, f.other_block);
    write_dim3(w, f.other_thread);
    w.u8(f.other_is_write);
    w.i64(f.other_line);
    const size_t ngroups = std::min<size_t>(f.groups.size(), ProtocolLimits::max_fault_groups);
    w.u32(static_cast<uint32_t>(ngroups));
    for (size_t g = 0; g < ngroups; ++g) {
        const emu::ThreadGroup& group = f.groups[g];
        w.str(emu::thread_activity_code(group.what));  // its code: the bytes of wire v6
        w.i64(group.line);
        const size_t n = std::min<size_t>(group.threads.size(), ProtocolLimits::max_group_threads);
        w.u32(static_cast<uint32_t>(n));
        for (size_t i = 0; i < n; ++i) w.u32(group.threads[i]);
    }
    w.str(f.detail);
}

bool read_small_int(wire::Reader& r, int& out) {
    int64_t v = 0;
    if (!r.i64(v)) return false;
    out = static_cast<int>(std::clamp<int64_t>(v, -1, 1 << 30));
    return true;
}

DecodeError read_fault(wire::Reader& r, emu::Fault& f) {
    uint8_t kind = 0, space = 0, is_write = 0, other_write = 0;
    if (!r.u8(kind) || !read_dim3(r, f.block) || !read_dim3(r, f.thread) || !read_small_int(r, f.line) || !r.u8(space) ||
        !r.u8(is_write) || !r.str(f.buffer) || !r.i64(f.index) || !r.i64(f.size) || !r.str(f.element_type) ||
        !read_dim3(r, f.other_block) || !read_dim3(r, f.other_thread) || !r.u8(other_write) || !read_small_int(r, f.other_line))
        return DecodeError::Truncated;
    if (kind > static_cast<uint8_t>(emu::kLastFaultKind) || space > static_cast<uint8_t>(emu::MemorySpace::Local))
        return DecodeError::BadValueTag;
    f.kind = static_cast<emu::FaultKind>(kind);
    f.space = static_cast<emu::MemorySpace>(space);
    f.is_write = is_write != 0;
    f.other_is_write = other_write != 0;
    uint32_t ngroups = 0;
    if (!r.u32(ngroups)) return DecodeError::Truncated;
    if (ngroups > ProtocolLimits::max_fault_groups) return DecodeError::TooManyRecords;
    f.groups.resize(ngroups);
    for (emu::ThreadGroup& g : f.groups) {
        uint32_t n = 0;
        std::string what;
        if (!r.str(what) || !read_small_int(r, g.line) || !r.u32(n)) return DecodeError::Truncated;
        if (!emu::parse_thread_activity(what, g.what)) return DecodeError::BadValueTag;
        if (n > ProtocolLimits::max_group_threads) return DecodeError::TooManyRecords;
        g.threads.resize(n);
        for (unsigned& t : g.threads)
            if (!r.u32(t)) return DecodeError::Truncated;
    }
    return r.str(f.detail) ? DecodeError::None : DecodeError::Truncated;
}

// The counters travel as kLaunchCounterFields lists them; a new counter
// changes the bytes, so it comes with a new wire::kVersion.
static_assert(emu::kLaunchCounterCount == 27, "a new launch counter changes the wire format: bump wire::kVersion, then this count");

void write_event(wire::Writer& w, const emu::AccessEvent& e) {
    w.i64(static_cast<int64_t>(e.block));
    w.u32(e.thread);
    w.u8(static_cast<uint8_t>((e.space == emu::MemorySpace::Shared ? 2 : 0) | (e.is_write ? 1 : 0)));
    w.str(e.buffer);
    w.i64(e.index);
    w.i64(static_cast<int64_t>(e.sector));
    w.u32(e.interval);
    w.u32(e.k);
    w.i64(e.line);
}

bool read_event(wire::Reader& r, emu::AccessEvent& e) {
    int64_t block = 0, sector = 0;
    uint8_t bits = 0;
    if (!r.i64(block) || !r.u32(e.thread) || !r.u8(bits) || !r.str(e.buffer) || !r.i64(e.index) || !r.i64(sector) ||
        !r.u32(e.interval) || !r.u32(e.k) || !read_small_int(r, e.line))
        return false;
    e.block = static_cast<uint64_t>(block);
    e.sector = static_cast<uint64_t>(sector);
    e.space = (bits & 2) ? emu::MemorySpace::Shared : emu::MemorySpace::Global;
    e.is_write = (bits & 1) != 0;
    return true;
}

void write_launch(wire::Writer& w, const emu::LaunchReport& L, size_t events) {
    w.str(L.kernel);
    write_dim3(w, L.grid);
    write_dim3(w, L.block);
    w.i64(static_cast<int64_t>(L.dynamic_shared_bytes));
    write_fault(w, L.fault);
    emu::for_each_counter(L.counters, [&](const char*, int64_t v) { w.i64(v); });
    w.u32(static_cast<uint32_t>(events));
    for (size_t i = 0; i < events; ++i) write_event(w, L.trace[i]);
    w.u8(L.trace_truncated || events < L.trace.size());
}

DecodeError read_launch(wire::Reader& r, emu::LaunchReport& L, uint32_t& events_left) {
    int64_t smem = 0;
    if (!r.str(L.kernel) || !read_dim3(r, L.grid) || !read_dim3(r, L.block) || !r.i64(smem)) return DecodeError::Truncated;
    L.dynamic_shared_bytes = static_cast<uint64_t>(smem);
    if (DecodeError e = read_fault(r, L.fault); e != DecodeError::None) return e;
    bool ok = true;
    emu::for_each_counter(L.counters, [&](const char*, int64_t& v) { ok = ok && r.i64(v); });
    uint32_t nevents = 0;
    if (!ok || !r.u32(nevents)) return DecodeError::Truncated;
    if (nevents > events_left) return DecodeError::TooManyRecords;
    events_left -= nevents;
    L.trace.resize(nevents);
    for (emu::AccessEvent& e : L.trace)
        if (!read_event(r, e)) return DecodeError::Truncated;
    uint8_t truncated = 0;
    if (!r.u8(truncated)) return DecodeError::Truncated;
    L.trace_truncated = truncated != 0;
    return DecodeError::None;
}

void write_kernel_data(wire::Writer& w, const KernelCaseData& k) {
    const size_t n = std::min<size_t>(k.launches.size(), ProtocolLimits::max_launches);
    w.u32(static_cast<uint32_t>(n));
    size_t events_left = ProtocolLimits::max_trace_events;
    for (size_t i = 0; i < n; ++i) {
        const size_t events = std::min(k.launches[i].trace.size(), events_left);
        events_left -= events;
        write_launch(w, k.launches[i], events);
    }
    w.i64(k.unwritten_count);
    w.i64(k.first_unwritten);
    w.i64(k.host_set_count);
    w.i64(k.device_time_ns);
    w.i64(k.leaked_buffers);
    w.i64(k.leaked_bytes);
    w.str(k.first_leak_name);
    w.i64(k.first_leak_line);
}

DecodeError read_kernel_data(wire::Reader& r, KernelCaseData& k) {
    uint32_t n = 0;
    if (!r.u32(n)) return DecodeError::Truncated;
    if (n > ProtocolLimits::max_launches) return DecodeError::TooManyRecords;
    k.launches.resize(n);
    uint32_t events_left = ProtocolLimits::max_trace_events;
    for (emu::LaunchReport& L : k.launches)
        if (DecodeError e = read_launch(r, L, events_left); e != DecodeError::None) return e;
    if (!r.i64(k.unwritten_count) || !r.i64(k.first_unwritten) || !r.i64(k.host_set_count) || !r.i64(k.device_time_ns) || !r.i64(k.leaked_buffers) || !r.i64(k.leaked_bytes) ||
        !r.str(k.first_leak_name) || !read_small_int(r, k.first_leak_line))
        return DecodeError::Truncated;
    return DecodeError::None;
}

// ---- the learner's recorded tensors (automatic stages)

// At most the limits' worth: the recorder keeps to them, and a writer that
// did not is cut here rather than trusted by the reader.
void write_recorded(wire::Writer& w, const std::vector<RecordedTensor>& recorded) {
    size_t n = 0, bytes = 0;
    while (n < recorded.size() && n < ProtocolLimits::max_recorded &&
           bytes + recorded[n].tensor.data.size() * sizeof(float) <= ProtocolLimits::max_recorded_bytes)
        bytes += recorded[n++].tensor.data.size() * sizeof(float);
    w.u32(static_cast<uint32_t>(n));
    for (size_t i = 0; i < n; ++i) {
        w.i64(recorded[i].line);
        w.u8(static_cast<uint8_t>(recorded[i].op));
        w.tensor(recorded[i].tensor.shape, recorded[i].tensor.data.data());
    }
}

DecodeError read_recorded(wire::Reader& r, std::vector<RecordedTensor>& recorded) {
    uint32_t n = 0;
    if (!r.u32(n)) return DecodeError::Truncated;
    if (n > ProtocolLimits::max_recorded) return DecodeError::TooManyRecords;
    recorded.resize(n);
    size_t bytes = 0;
    for (RecordedTensor& t : recorded) {
        uint8_t op = 0;
        if (!read_small_int(r, t.line) || !r.u8(op) || !r.tensor(t.tensor.shape, t.tensor.data)) return DecodeError::Truncated;
        if (op > static_cast<uint8_t>(kLastTensorOp)) return DecodeError::BadValueTag;
        t.op = static_cast<TensorOp>(op);
        bytes += t.tensor.data.size() * sizeof(float);
        if (bytes > ProtocolLimits::max_recorded_bytes) return DecodeError::TooManyRecords;
    }
    return DecodeError::None;
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

std::string encode_hello(const Hello& hello) {
    wire::Writer w;
    w.u32(wire::kVersion);
    w.u32(hello.pid);
    w.u8(hello.channel_guarded ? 1 : 0);
    return w.take();
}

DecodeError decode_hello(const std::string& payload, Hello& hello) {
    wire::Reader r(payload);
    uint32_t version = 0;
    uint8_t guarded = 0;
    if (!r.u32(version)) return DecodeError::Truncated;
    if (version != wire::kVersion) return DecodeError::VersionMismatch;
    if (!r.u32(hello.pid) || !r.u8(guarded)) return DecodeError::Truncated;
    if (guarded > 1) return DecodeError::BadFlag;
    hello.channel_guarded = guarded == 1;
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
            write_recorded(w, report.recorded);
            w.u32(report.recorded_dropped);
            w.f64(report.ms);
            w.u8(report.has_kernel);
            if (report.has_kernel) write_kernel_data(w, report.kernel);
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
    if (!r.u32(report.probes_dropped)) return DecodeError::Truncated;
    if (DecodeError e = read_recorded(r, report.recorded); e != DecodeError::None) return e;
    if (!r.u32(report.recorded_dropped) || !r.f64(report.ms)) return DecodeError::Truncated;
    uint8_t has_kernel = 0;
    if (!r.u8(has_kernel)) return DecodeError::Truncated;
    report.has_kernel = has_kernel != 0;
    return report.has_kernel ? read_kernel_data(r, report.kernel) : DecodeError::None;
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
