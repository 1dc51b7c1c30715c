#pragma once
// The byte level of the protocol between attnlab (parent) and a learner
// program (child): bounded readers and writers, and frames. What the frames
// carry is protocol.hpp's business.
//
//  parent -> child : a cases file (path in argv[1]): every case's arguments.
//  child -> parent : frames on file descriptor 3, written as each case runs.
//
// A frame is  magic "ATLR" | type u8 | length u32 | payload | fnv1a32(payload).
// The parent treats anything else on fd 3 (garbage written by learner code, a
// truncated frame) as a corrupted channel and says so; it never trusts sizes
// without checking them against what was actually received.
//
// Compiled once into attnlab_common's objects, which both the core and the
// learner runtime (libattnlab_learner.a, which learner programs link alone) hold.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::wire {

inline constexpr uint32_t kCasesMagic = 0x434C5441;  // "ATLC" little-endian
inline constexpr uint32_t kFrameMagic = 0x524C5441;  // "ATLR"
inline constexpr uint32_t kVersion = 10;  // 2: CUDA kernel data in case results; 3: global races, leaks; 4: wasted sectors;
                                         // 5: output set by the host; 6: a GPU's measured time per case;
                                         // 7: Hello says whether the channel is guarded; 8: cache and tensor-core counters
                                         // 9: the tensors a learner's Tensor operations made (automatic stages)
                                         // 10: unchecked blocks (sampled cases)
inline constexpr int kChannelFd = 3;
inline constexpr int kMaxRank = 8;

enum class FrameType : uint8_t { Hello = 1, CaseBegin = 2, CaseResult = 3, Done = 4 };
enum class ValueTag : uint8_t { Tensor = 1, Int = 2, Float = 3 };

uint32_t fnv1a(const char* data, size_t size);

class Writer {
public:
    void u8(uint8_t v) { raw(&v, 1); }
    void u32(uint32_t v) { raw(&v, 4); }
    void i64(int64_t v) { raw(&v, 8); }
    void f64(double v) { raw(&v, 8); }
    void str(const std::string& s);
    // A tensor: rank u32, dims i64..., then numel float32 values (row-major).
    void tensor(const std::vector<int64_t>& shape, const float* data);
    const std::string& bytes() const { return buf_; }
    std::string take() { return std::move(buf_); }

private:
    void raw(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
    std::string buf_;
};

// Bounds-checked reader: every read returns false (and stays failed) instead
// of reading past the end or allocating more than the bytes present allow.
class Reader {
public:
    Reader(const char* data, size_t size) : p_(data), end_(data + size) {}
    explicit Reader(const std::string& s) : Reader(s.data(), s.size()) {}
    bool u8(uint8_t& v) { return raw(&v, 1); }
    bool u32(uint32_t& v) { return raw(&v, 4); }
    bool i64(int64_t& v) { return raw(&v, 8); }
    bool f64(double& v) { return raw(&v, 8); }
    bool str(std::string& s);
    bool tensor(std::vector<int64_t>& shape, std::vector<float>& data);
    bool ok() const { return ok_; }
    bool at_end() const { return p_ == end_; }

private:
    bool raw(void* out, size_t n);
    const char* p_;
    const char* end_;
    bool ok_ = true;
};

std::string encode_frame(FrameType type, const std::string& payload);

// Incremental decoder for the parent: feed bytes as they arrive, pull frames.
class FrameDecoder {
public:
    enum class Status { NeedMore, Frame, Corrupt };
    explicit FrameDecoder(size_t max_frame_bytes) : max_frame_(max_frame_bytes) {}
    void feed(const char* data, size_t size) { buf_.append(data, size); }
    Status next(FrameType& type, std::string& payload);
    // Why the bytes are corrupt, as a stable code: bad_frame_magic,
    // unknown_frame_type, frame_too_large or bad_checksum.
    const std::string& error() const { return error_; }
    size_t buffered() const { return buf_.size() - pos_; }

private:
    std::string buf_;
    size_t pos_ = 0;
    size_t max_frame_;
    std::string error_;
};

}  // namespace attnlab::wire
