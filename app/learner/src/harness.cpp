// The main() of every learner program. attnlab runs it inside attnlab-sandbox:
//   argv[1]  path of the cases file (wire format, see wire.hpp)
//   argv[2]  optional: --trace-kernels (CUDA programs record every access for the Kernel view),
//            --trace-case N --trace-launch L --trace-block B (only that block, see HarnessOptions),
//            --only-cases I,J,... (only those cases, ascending: the runner may split them between two programs)
//   fd 3     the result channel: one frame per event, written as cases run
// Exceptions are caught per case so one bad case does not hide the others;
// crashes, hangs and floods are the sandbox's and the parent's business.
#include <cxxabi.h>
#include <cerrno>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "attnlab/common/protocol.hpp"
#include "attnlab/common/wire.hpp"
#include "attnlab/entry.hpp"
#include "channel_writer.hpp"
#include "harness_hooks.hpp"
#include "recorder.hpp"

namespace attnlab {
namespace {

struct Entry {
    std::string name;
    int arity = -1;
    detail::ErasedFn fn = nullptr;
    detail::Invoker invoker = nullptr;
};

Entry& registered_entry() {
    static Entry entry;
    return entry;
}

// Probes recorded during the current case, in first-recorded order.
struct ProbeStore {
    std::vector<std::pair<std::string, Tensor>> items;
    size_t bytes = 0;
    uint32_t dropped = 0;  // probe() calls ignored because of the limits
};
ProbeStore& probes() {
    static ProbeStore store;
    return store;
}

const char* kind_name(detail::Kind k) {
    switch (k) {
        case detail::Kind::Tensor: return "Tensor";
        case detail::Kind::Int: return "int";
        case detail::Kind::Float: return "float";
    }
    return "?";
}

void send(wire::FrameType type, const std::string& payload) {
    const std::string frame = wire::encode_frame(type, payload);
    channel::write_all(frame.data(), frame.size());
}

// The learner's Tensor (a view with strides) and the protocol's plain Value.
Value to_value(const detail::Slot& s) {
    switch (s.kind) {
        case detail::Kind::Tensor: {
            Tensor c = s.tensor.contiguous();
            return Value::of_tensor(TensorData(c.shape(), std::vector<float>(c.data(), c.data() + c.size())));
        }
        case detail::Kind::Int: return Value::of_int(s.int_value);
        case detail::Kind::Float: return Value::of_float(s.float_value);
    }
    return {};
}

detail::Slot to_slot(Value v) {
    detail::Slot s;
    switch (v.kind) {
        case ValueKind::Tensor:
            s.kind = detail::Kind::Tensor;
            s.tensor = Tensor::from_data(v.tensor.shape, std::move(v.tensor.data));
            break;
        case ValueKind::Int:
            s.kind = detail::Kind::Int;
            s.int_value = static_cast<long long>(v.int_value);
            break;
        case ValueKind::Float:
            s.kind = detail::Kind::Float;
            s.float_value = v.float_value;
            break;
    }
    return s;
}

std::string demangle(const char* name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = (status == 0 && d) ? d : name;
    std::free(d);
    return out;
}

bool read_cases(const char* path, std::vector<std::vector<detail::Slot>>& cases) {
    FILE* f = std::fopen(path, "rb");
    if (!f) return false;
    std::string bytes;
    char buf[1 << 16];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
    std::fclose(f);
    std::vector<protocol::CaseArgs> values;
    if (protocol::decode_cases(bytes, values) != protocol::DecodeError::None) return false;
    cases.clear();
    for (protocol::CaseArgs& args : values) {
        std::vector<detail::Slot> slots;
        for (Value& v : args) slots.push_back(to_slot(std::move(v)));
        cases.push_back(std::move(slots));
    }
    return true;
}

// A copy of every tensor argument's values before the call, so that a write
// into the caller's tensor (through a view that shares its storage) is caught.
std::vector<std::vector<float>> snapshot_inputs(const std::vector<detail::Slot>& args) {
    std::vector<std::vector<float>> copies(args.size());
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i].kind == detail::Kind::Tensor) copies[i].assign(args[i].tensor.data(), args[i].tensor.data() + args[i].tensor.size());
    return copies;
}

// The first argument whose values changed (bit for bit, so NaN == NaN), or -1.
int modified_input(const std::vector<detail::Slot>& args, const std::vector<std::vector<float>>& before) {
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].kind != detail::Kind::Tensor) continue;
        const Tensor& t = args[i].tensor;
        if (static_cast<size_t>(t.size()) != before[i].size() ||
            (t.size() > 0 && std::memcmp(t.data(), before[i].data(), before[i].size() * sizeof(float)) != 0))
            return static_cast<int>(i);
    }
    return -1;
}

// Runs one case and says what happened, exceptions included.
protocol::CaseReport failure_report(uint32_t k, protocol::CaseStatus status) {
    protocol::CaseReport report;
    report.index = k;
    report.status = status;
    return report;
}

// A returned tensor the protocol cannot carry (too many dimensions, or too many
// bytes for a case): its shape goes back instead, so the verdict is a wrong shape.
bool output_too_large(const detail::Slot& out, protocol::CaseReport& report) {
    using Limits = protocol::ProtocolLimits;
    if (out.kind != detail::Kind::Tensor) return false;
    const uint64_t bytes = static_cast<uint64_t>(out.tensor.size()) * sizeof(float);
    if (out.tensor.shape().size() <= Limits::max_rank && bytes <= Limits::max_output_bytes) return false;
    report.status = protocol::CaseStatus::OutputTooLarge;
    report.output_shape = shape_to_string(out.tensor.shape());
    report.output_bytes = bytes;
    return true;
}

// Runs one case and encodes what happened, exceptions included: a bad_alloc
// while encoding a huge output is a memory verdict, not std::terminate.
std::string run_case(const Entry& entry, uint32_t k, const std::vector<detail::Slot>& args) {
    try {
        protocol::CaseReport report;
        report.index = k;
        if (!entry.fn || !entry.invoker) throw std::logic_error("attnlab: no entry point was registered");
        if (static_cast<size_t>(entry.arity) != args.size())
            throw std::logic_error("attnlab: the entry point takes " + std::to_string(entry.arity) +
                                   " arguments but the case supplies " + std::to_string(args.size()));
        const auto before = snapshot_inputs(args);
        if (detail::case_hooks().begin) detail::case_hooks().begin();
        const bool record = detail::case_hooks().record_tensor_ops;
        if (record) detail::begin_recording();
        const auto t0 = std::chrono::steady_clock::now();
        detail::Slot out = entry.invoker(entry.fn, args);
        report.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (record) {
            detail::Recording recorded = detail::end_recording();
            report.recorded = std::move(recorded.tensors);
            report.recorded_dropped = recorded.dropped;
        }
        if (int i = modified_input(args, before); i >= 0) {
            report.status = protocol::CaseStatus::InputModified;
            report.modified_arg = static_cast<uint32_t>(i);
            return protocol::encode_case_result(report);
        }
        if (output_too_large(out, report)) return protocol::encode_case_result(report);
        report.output = to_value(out);
        out = detail::Slot{};  // the learner's copy is not needed any more
        for (auto& [name, t] : probes().items)
            report.probes.push_back({name, TensorData(t.shape(), std::vector<float>(t.data(), t.data() + t.size()))});
        report.probes_dropped = probes().dropped;
        if (detail::case_hooks().finish) detail::case_hooks().finish(report);
        return protocol::encode_case_result(report);
    } catch (const std::bad_alloc&) {
        probes() = ProbeStore{};
        detail::discard_recording();
        return protocol::encode_case_result(failure_report(k, protocol::CaseStatus::OutOfMemory));
    } catch (const std::exception& e) {
        detail::discard_recording();
        protocol::CaseReport report = failure_report(k, protocol::CaseStatus::Exception);
        report.exception_type = demangle(typeid(e).name());
        report.exception_what = e.what();
        return protocol::encode_case_result(report);
    } catch (...) {
        detail::discard_recording();
        protocol::CaseReport report = failure_report(k, protocol::CaseStatus::Exception);
        report.exception_type = "unknown";
        report.exception_what = "an exception that is not a std::exception";
        return protocol::encode_case_result(report);
    }
}

}  // namespace

namespace detail {

CaseHooks& case_hooks() {
    static CaseHooks hooks;
    return hooks;
}

HarnessOptions& harness_options() {
    static HarnessOptions options;
    return options;
}

void register_entry(const char* name, int arity, ErasedFn fn, Invoker invoker) {
    Entry& e = registered_entry();
    e.name = name;
    e.arity = arity;
    e.fn = fn;
    e.invoker = invoker;
}

void argument_kind_mismatch(int index, Kind expected, Kind got) {
    throw std::logic_error("attnlab: argument " + std::to_string(index + 1) + " should be " + kind_name(expected) +
                           " but the case supplies " + kind_name(got));
}

}  // namespace detail

// A name written as a literal becomes its std::string here, in the library,
// not in the learner's file.
void probe(const char* name, const Tensor& t) { probe(std::string(name ? name : ""), t); }

void probe(const std::string& name, const Tensor& t) {
    using Limits = protocol::ProtocolLimits;
    ProbeStore& store = probes();
    const size_t bytes = static_cast<size_t>(t.size()) * sizeof(float);
    const std::string key = name.substr(0, Limits::max_name_bytes);
    auto drop = [&](const char* why) {
        if (store.dropped++ == 0) std::fprintf(stderr, "attnlab: probe(\"%s\") ignored: %s\n", key.c_str(), why);
    };
    if (t.shape().size() > Limits::max_rank) return drop("a probe has at most 8 dimensions");
    for (auto& item : store.items) {
        if (item.first == key) {  // a new value for a name: the old one's bytes are given back first
            const size_t old_bytes = static_cast<size_t>(item.second.size()) * sizeof(float);
            if (store.bytes - old_bytes + bytes > Limits::max_probe_bytes) return drop("the probes of one case are limited to 64 MB");
            item.second = t.clone();
            store.bytes = store.bytes - old_bytes + bytes;
            return;
        }
    }
    if (store.bytes + bytes > Limits::max_probe_bytes) return drop("the probes of one case are limited to 64 MB");
    if (store.items.size() >= Limits::max_probes) return drop("one case keeps at most 4096 probes");
    store.items.emplace_back(key, t.clone());
    store.bytes += bytes;
}

}  // namespace attnlab

namespace {

int running_case = -1;  // the case whose CaseResult is not sent yet

// exit() inside the learner's code (a CUDA_CHECK macro after a fault): the
// running case's result still goes out when the runtime has something to say,
// so the verdict names the fault instead of "exited early".
void report_running_case_at_exit() {
    using namespace attnlab;
    if (running_case < 0 || !detail::case_hooks().output_at_exit) return;
    detail::Slot output;
    if (!detail::case_hooks().output_at_exit(output)) return;
    protocol::CaseReport report;
    report.index = static_cast<uint32_t>(running_case);
    report.output = to_value(output);
    if (detail::case_hooks().finish) detail::case_hooks().finish(report);
    running_case = -1;
    std::fflush(stdout);
    send(wire::FrameType::CaseResult, protocol::encode_case_result(report));
}

}  // namespace

namespace attnlab::detail {

void fail_running_case(const char* exception_type, const std::string& what) {
    std::fflush(stdout);
    std::fflush(stderr);
    if (running_case >= 0) {
        protocol::CaseReport report = failure_report(static_cast<uint32_t>(running_case), protocol::CaseStatus::Exception);
        report.exception_type = exception_type;
        report.exception_what = what;
        running_case = -1;
        send(wire::FrameType::CaseResult, protocol::encode_case_result(report));
    } else {
        std::fprintf(stderr, "attnlab: %s: %s\n", exception_type, what.c_str());
    }
    std::_Exit(0);
}

}  // namespace attnlab::detail

// Which cases to run, in order: all of them, or the ascending list after
// --only-cases (the runner splits a check's cases between two programs).
static bool cases_to_run(int argc, char** argv, size_t count, std::vector<uint32_t>& order) {
    order.clear();
    for (int i = 2; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--only-cases") != 0) continue;
        for (const char* p = argv[i + 1];;) {
            char* end = nullptr;
            const unsigned long k = std::strtoul(p, &end, 10);
            if (end == p || k >= count || (!order.empty() && k <= order.back())) return false;
            order.push_back(static_cast<uint32_t>(k));
            if (*end == '\0') return true;
            if (*end != ',') return false;
            p = end + 1;
        }
    }
    for (uint32_t k = 0; k < count; ++k) order.push_back(k);
    return true;
}

int main(int argc, char** argv) {
    using namespace attnlab;
    // Line-buffer the learner's prints so the last lines before a crash survive.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc < 2) {
        std::fprintf(stderr, "This program is a compiled attnlab solution; run it through `attnlab check`.\n");
        return 2;
    }
    send(wire::FrameType::Hello, protocol::encode_hello({static_cast<uint32_t>(::getpid()), channel::guarded()}));
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--trace-kernels") == 0) detail::harness_options().trace_kernels = true;
        if (std::strcmp(argv[i], "--trace-case") == 0 && i + 1 < argc) detail::harness_options().trace_case = std::atoi(argv[++i]);
        if (std::strcmp(argv[i], "--trace-launch") == 0 && i + 1 < argc) detail::harness_options().trace_launch = std::strtoull(argv[++i], nullptr, 10);
        if (std::strcmp(argv[i], "--trace-block") == 0 && i + 1 < argc) detail::harness_options().trace_block = std::strtoull(argv[++i], nullptr, 10);
        if (std::strcmp(argv[i], "--max-dynamic-shared") == 0 && i + 1 < argc)
            detail::harness_options().max_dynamic_shared = std::strtoull(argv[++i], nullptr, 10);
        if (std::strcmp(argv[i], "--sampled-cases") == 0 && i + 1 < argc)
            for (const char* at = argv[++i]; *at;) {
                char* end = nullptr;
                detail::harness_options().sampled_cases.push_back(uint32_t(std::strtoul(at, &end, 10)));
                at = *end == ',' ? end + 1 : end + std::strlen(end);
            }
        if (std::strcmp(argv[i], "--kernel-registers") == 0 && i + 1 < argc) {
            const std::string list = argv[++i];  // name=N,name=N (kernel names hold no ',' or '=')
            for (size_t at = 0; at < list.size();) {
                const size_t end = std::min(list.find(',', at), list.size()), eq = list.find('=', at);
                if (eq < end) detail::harness_options().kernel_registers[list.substr(at, eq - at)] = std::atoi(list.substr(eq + 1, end - eq - 1).c_str());
                at = end + 1;
            }
        }
    }
    std::vector<std::vector<detail::Slot>> cases;
    if (!read_cases(argv[1], cases)) {
        std::fprintf(stderr, "attnlab: could not read the cases file %s\n", argv[1]);
        return 4;
    }
    std::vector<uint32_t> order;
    if (!cases_to_run(argc, argv, cases.size(), order)) {
        std::fprintf(stderr, "attnlab: --only-cases needs ascending case numbers below %zu\n", cases.size());
        return 4;
    }
    const Entry& entry = registered_entry();
    std::atexit(report_running_case_at_exit);  // after the runtimes' statics exist: they outlive the handler
    for (const uint32_t k : order) {
        send(wire::FrameType::CaseBegin, protocol::encode_case_begin(k));
        probes() = ProbeStore{};
        running_case = static_cast<int>(k);
        detail::HarnessOptions& options = detail::harness_options();
        if (options.trace_case >= 0) options.trace_kernels = static_cast<int>(k) == options.trace_case;
        options.sampled = std::find(options.sampled_cases.begin(), options.sampled_cases.end(), k) != options.sampled_cases.end();
        const std::string result = run_case(entry, k, cases[k]);
        running_case = -1;
        std::fflush(stdout);
        send(wire::FrameType::CaseResult, result);
    }
    std::fflush(stdout);
    send(wire::FrameType::Done, std::string());
    if (detail::case_hooks().all_reported) detail::case_hooks().all_reported();
    return 0;  // the learner's static destructors still run (a crash in one is reported)
}
