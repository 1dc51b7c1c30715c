// The main() of every learner program. attnlab runs it inside attnlab-sandbox:
//   argv[1]  path of the cases file (wire format, see wire.hpp)
//   fd 3     the result channel: one frame per event, written as cases run
// Exceptions are caught per case so one bad case does not hide the others;
// crashes, hangs and floods are the sandbox's and the parent's business.
#include <cxxabi.h>
#include <cerrno>
#include <unistd.h>

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

#include "attnlab/common/wire.hpp"
#include "attnlab/entry.hpp"

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
    bool dropped = false;
};
ProbeStore& probes() {
    static ProbeStore store;
    return store;
}
constexpr size_t kMaxProbeBytes = 64u << 20;

const char* kind_name(detail::Kind k) {
    switch (k) {
        case detail::Kind::Tensor: return "Tensor";
        case detail::Kind::Int: return "int";
        case detail::Kind::Float: return "float";
    }
    return "?";
}

void write_all(const std::string& bytes) {
    const char* p = bytes.data();
    size_t left = bytes.size();
    while (left > 0) {
        ssize_t n = ::write(wire::kChannelFd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            std::fprintf(stderr, "attnlab: the result channel closed (%s)\n", std::strerror(errno));
            std::_Exit(3);
        }
        p += n;
        left -= static_cast<size_t>(n);
    }
}

void send(wire::FrameType type, const wire::Writer& w) { write_all(wire::encode_frame(type, w.bytes())); }

void write_value(wire::Writer& w, const detail::Slot& s) {
    switch (s.kind) {
        case detail::Kind::Tensor: {
            w.u8(static_cast<uint8_t>(wire::ValueTag::Tensor));
            Tensor c = s.tensor.contiguous();
            w.tensor(c.shape(), c.data());
            break;
        }
        case detail::Kind::Int:
            w.u8(static_cast<uint8_t>(wire::ValueTag::Int));
            w.i64(s.int_value);
            break;
        case detail::Kind::Float:
            w.u8(static_cast<uint8_t>(wire::ValueTag::Float));
            w.f64(s.float_value);
            break;
    }
}

bool read_value(wire::Reader& r, detail::Slot& s) {
    uint8_t tag = 0;
    if (!r.u8(tag)) return false;
    switch (static_cast<wire::ValueTag>(tag)) {
        case wire::ValueTag::Tensor: {
            Shape shape;
            std::vector<float> data;
            if (!r.tensor(shape, data)) return false;
            s.kind = detail::Kind::Tensor;
            s.tensor = Tensor::from_data(shape, std::move(data));
            return true;
        }
        case wire::ValueTag::Int: {
            int64_t v = 0;
            s.kind = detail::Kind::Int;
            if (!r.i64(v)) return false;
            s.int_value = static_cast<long long>(v);
            return true;
        }
        case wire::ValueTag::Float: s.kind = detail::Kind::Float; return r.f64(s.float_value);
    }
    return false;
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
    wire::Reader r(bytes);
    uint32_t magic = 0, version = 0, count = 0;
    if (!r.u32(magic) || magic != wire::kCasesMagic || !r.u32(version) || version != wire::kVersion || !r.u32(count))
        return false;
    cases.resize(count);
    for (auto& args : cases) {
        uint32_t nargs = 0;
        if (!r.u32(nargs) || nargs > 64) return false;
        args.resize(nargs);
        for (auto& a : args)
            if (!read_value(r, a)) return false;
    }
    return r.ok();
}

}  // namespace

namespace detail {

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

void probe(const std::string& name, const Tensor& t) {
    ProbeStore& store = probes();
    const size_t bytes = static_cast<size_t>(t.size()) * sizeof(float);
    if (store.bytes + bytes > kMaxProbeBytes) {
        if (!store.dropped) std::fprintf(stderr, "attnlab: probe(\"%s\") ignored: probes of one case are limited to 64 MB\n", name.c_str());
        store.dropped = true;
        return;
    }
    for (auto& item : store.items) {
        if (item.first == name) {
            store.bytes -= static_cast<size_t>(item.second.size()) * sizeof(float);
            item.second = t.clone();
            store.bytes += bytes;
            return;
        }
    }
    store.items.emplace_back(name, t.clone());
    store.bytes += bytes;
}

}  // namespace attnlab

int main(int argc, char** argv) {
    using namespace attnlab;
    // Line-buffer the learner's prints so the last lines before a crash survive.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc < 2) {
        std::fprintf(stderr, "This program is a compiled attnlab solution; run it through `attnlab check`.\n");
        return 2;
    }
    {
        wire::Writer hello;
        hello.u32(wire::kVersion);
        hello.u32(static_cast<uint32_t>(::getpid()));
        send(wire::FrameType::Hello, hello);
    }
    std::vector<std::vector<detail::Slot>> cases;
    if (!read_cases(argv[1], cases)) {
        std::fprintf(stderr, "attnlab: could not read the cases file %s\n", argv[1]);
        return 4;
    }
    Entry& entry = registered_entry();
    for (uint32_t k = 0; k < cases.size(); ++k) {
        wire::Writer begin;
        begin.u32(k);
        send(wire::FrameType::CaseBegin, begin);
        probes() = ProbeStore{};

        wire::Writer result;
        result.u32(k);
        const auto t0 = std::chrono::steady_clock::now();
        try {
            if (!entry.fn || !entry.invoker) throw std::logic_error("attnlab: no entry point was registered");
            if (static_cast<size_t>(entry.arity) != cases[k].size())
                throw std::logic_error("attnlab: the entry point takes " + std::to_string(entry.arity) +
                                       " arguments but the case supplies " + std::to_string(cases[k].size()));
            detail::Slot out = entry.invoker(entry.fn, cases[k]);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            std::fflush(stdout);
            result.u8(static_cast<uint8_t>(wire::CaseStatus::Ok));
            write_value(result, out);
            result.u32(static_cast<uint32_t>(probes().items.size()));
            for (auto& [name, t] : probes().items) {
                result.str(name);
                result.tensor(t.shape(), t.data());  // clone()d: contiguous
            }
            result.f64(ms);
        } catch (const std::bad_alloc&) {
            result = wire::Writer{};
            result.u32(k);
            result.u8(static_cast<uint8_t>(wire::CaseStatus::OutOfMemory));
        } catch (const std::exception& e) {
            result = wire::Writer{};
            result.u32(k);
            result.u8(static_cast<uint8_t>(wire::CaseStatus::Exception));
            result.str(demangle(typeid(e).name()));
            result.str(e.what());
        } catch (...) {
            result = wire::Writer{};
            result.u32(k);
            result.u8(static_cast<uint8_t>(wire::CaseStatus::Exception));
            result.str("unknown");
            result.str("an exception that is not a std::exception");
        }
        std::fflush(stdout);
        send(wire::FrameType::CaseResult, result);
    }
    std::fflush(stdout);
    send(wire::FrameType::Done, wire::Writer{});
    return 0;
}
