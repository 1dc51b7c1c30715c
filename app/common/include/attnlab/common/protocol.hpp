#pragma once
// What attnlab (parent) and a learner program (child) say to each other, on
// top of the frames of wire.hpp. This is the only place that encodes or
// decodes cases and results; the runner and the learner harness both call it,
// so the two sides cannot drift apart.
//
//  parent -> child : the cases file (argv[1]):  magic | version | count | per case: nargs | values
//  child  -> parent: frames on fd 3, in order:
//      Hello      version u32 | pid u32
//      CaseBegin  index u32                       (cases run in order, one at a time)
//      CaseResult index u32 | status u8 | body    (body depends on the status, see CaseReport;
//                                                  Ok: output | probes | recorded tensors | ms | kernel data)
//      Done       (empty)
//
// Every limit either side enforces is in ProtocolLimits: the child keeps to
// them (dropping probes past the limit and saying so) and the parent rejects
// anything beyond them as a corrupted channel.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/common/recorded_tensor.hpp"
#include "attnlab/common/value.hpp"
#include "attnlab/common/wire.hpp"
#include "attnlab/common/launch_report.hpp"  // plain data: what a CUDA program's kernel launches reported

namespace attnlab::protocol {

struct ProtocolLimits {
    static constexpr uint32_t max_args = 64;                // arguments of one case
    static constexpr uint32_t max_rank = wire::kMaxRank;    // dimensions of any tensor sent
    static constexpr uint32_t max_probes = 4096;            // probe() records kept per case
    static constexpr size_t max_probe_bytes = 64u << 20;    // their tensors' bytes per case
    static constexpr size_t max_output_bytes = 16u << 20;   // a returned tensor's bytes (4M floats)
    static constexpr size_t max_name_bytes = 256;           // a probe's name (longer ones are cut)
    // Automatic stages: the tensors the learner's Tensor operations made, kept
    // per case up to these (the recorder drops later ones and counts them).
    static constexpr uint32_t max_recorded = 1024;
    static constexpr size_t max_recorded_bytes = 16u << 20;
    static constexpr uint32_t max_recorded_per_site = 4;    // per (line, operation): a loop's first iterations
    // One frame: an output, the probes, the recorded tensors, and names and
    // headers. The parent buffers no more than this, however many bytes a
    // program writes.
    static constexpr size_t max_frame_bytes = max_output_bytes + max_probe_bytes + max_recorded_bytes + max_recorded * 128 + (1u << 20);
    // Everything one run may send, all cases together.
    static constexpr size_t max_channel_bytes = 512u << 20;
    // CUDA programs: kernel launches reported per case, their access trace
    // (for the per-block view), and a fault's thread groups.
    static constexpr uint32_t max_launches = 256;
    static constexpr uint32_t max_trace_events = 1u << 18;  // all launches of a case together
    static constexpr uint32_t max_fault_groups = 64;
    static constexpr uint32_t max_group_threads = 1024;
};

// Why a frame or a file could not be decoded. Codes, not prose: the learner's
// words for them are in the core's message tables.
enum class DecodeError {
    None,
    BadMagic,          // not attnlab's bytes
    VersionMismatch,   // the program was built against another protocol version
    Truncated,         // the bytes end in the middle of a value
    BadValueTag,       // an unknown value kind
    TooManyArgs,
    TooManyProbes,
    UnknownStatus,
    TrailingBytes,     // more bytes than the message holds
    OutOfOrder,        // a case began or reported out of turn
    UnknownFrame,
    FinishedEarly,     // Done before every case reported
    TooManyRecords,    // kernel launches, trace events or fault thread groups beyond the limits
    BadFlag,           // a yes/no byte that is neither
    RepeatedHello,     // a second Hello: not the harness talking
    UnguardedChannel,  // the harness could not guard the channel where the sandbox's own filter was applied
    MissingKernelData, // a CUDA program's case result without its launches: the runtime always sends them
};
const char* decode_error_code(DecodeError e);  // "bad_magic", ... (stable)

// ------------------------------------------------------------- the cases file

using CaseArgs = std::vector<Value>;
std::string encode_cases(const std::vector<CaseArgs>& cases);
DecodeError decode_cases(const std::string& bytes, std::vector<CaseArgs>& cases);

// --------------------------------------------------------------- the results

enum class CaseStatus : uint8_t {
    Ok = 0,             // output, probes, ms
    Exception = 1,      // type, what
    OutOfMemory = 2,    // (nothing)
    InputModified = 3,  // the index of the argument the learner's function wrote into
    OutputTooLarge = 4, // the returned tensor is beyond the limits: its shape as text, and its bytes
};

// What a CUDA program's case did on the device (the emulator): every kernel
// launch in order (a fault stops the case's later launches, as a sticky CUDA
// error would), and the output elements no kernel ever wrote.
struct KernelCaseData {
    std::vector<emu::LaunchReport> launches;
    int64_t unwritten_count = 0;     // output elements never written
    int64_t first_unwritten = -1;    // row-major index of the first one (-1: none)
    int64_t host_set_count = 0;      // of those, set by the host instead (cudaMemset, cudaMemcpy)
    int64_t device_time_ns = -1;     // on a GPU: the learner's function, CUDA events around it (-1: not measured)
    // cudaMalloc'd buffers the host function never freed (compute-sanitizer's leak check)
    int64_t leaked_buffers = 0, leaked_bytes = 0;
    std::string first_leak_name;     // the first one's name ("cudaMalloc at line 40")
    int first_leak_line = 0;         // the learner's line of its cudaMalloc
};

struct CaseReport {
    uint32_t index = 0;
    CaseStatus status = CaseStatus::Ok;
    Value output;                      // Ok
    std::vector<NamedTensor> probes;   // Ok
    uint32_t probes_dropped = 0;       // Ok: probe() calls past the limits
    std::vector<RecordedTensor> recorded;  // Ok: the Tensor operations' results, in the order they happened
    uint32_t recorded_dropped = 0;     // Ok: tensors not recorded for the limits (max_recorded, max_recorded_bytes)
    double ms = 0;                     // Ok
    bool has_kernel = false;           // Ok: a CUDA program (kernel data follows)
    KernelCaseData kernel;             // Ok, has_kernel
    std::string exception_type;        // Exception
    std::string exception_what;        // Exception
    uint32_t modified_arg = 0;         // InputModified
    std::string output_shape;          // OutputTooLarge: e.g. "(100, 100, 4000)"
    uint64_t output_bytes = 0;         // OutputTooLarge
};

// The harness's first frame: the protocol's version, and whether the channel is
// guarded (only the harness's own instruction can write it: channel_writer.hpp).
struct Hello {
    uint32_t pid = 0;
    bool channel_guarded = false;
};
std::string encode_hello(const Hello& hello);
DecodeError decode_hello(const std::string& payload, Hello& hello);  // checks the version

std::string encode_case_begin(uint32_t index);
DecodeError decode_case_begin(const std::string& payload, uint32_t& index);

std::string encode_case_result(const CaseReport& report);
DecodeError decode_case_result(const std::string& payload, CaseReport& report);

}  // namespace attnlab::protocol
