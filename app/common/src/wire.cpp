#include "attnlab/common/wire.hpp"

#include <cstring>

namespace attnlab::wire {

uint32_t fnv1a(const char* data, size_t size) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; ++i) {
        h ^= static_cast<uint8_t>(data[i]);
        h *= 16777619u;
    }
    return h;
}

void Writer::str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
}

void Writer::tensor(const std::vector<int64_t>& shape, const float* data) {
    u32(static_cast<uint32_t>(shape.size()));
    int64_t n = 1;
    for (int64_t d : shape) {
        i64(d);
        n *= d;
    }
    if (n > 0) raw(data, static_cast<size_t>(n) * sizeof(float));
}

bool Reader::raw(void* out, size_t n) {
    if (!ok_ || static_cast<size_t>(end_ - p_) < n) return ok_ = false;
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
}

bool Reader::str(std::string& s) {
    uint32_t n = 0;
    if (!u32(n) || static_cast<size_t>(end_ - p_) < n) return ok_ = false;
    s.assign(p_, n);
    p_ += n;
    return true;
}

bool Reader::tensor(std::vector<int64_t>& shape, std::vector<float>& data) {
    uint32_t rank = 0;
    if (!u32(rank) || rank > static_cast<uint32_t>(kMaxRank)) return ok_ = false;
    shape.assign(rank, 0);
    uint64_t n = 1;
    const uint64_t available = static_cast<uint64_t>(end_ - p_) / sizeof(float);
    for (uint32_t i = 0; i < rank; ++i) {
        if (!i64(shape[i]) || shape[i] < 0) return ok_ = false;
        const uint64_t d = static_cast<uint64_t>(shape[i]);
        // Checked before multiplying, so a forged shape cannot wrap around.
        if (d != 0 && n > available / d) return ok_ = false;
        n *= d;
    }
    if (n > available) return ok_ = false;
    if (static_cast<uint64_t>(end_ - p_) < n * sizeof(float)) return ok_ = false;
    data.resize(static_cast<size_t>(n));
    if (n) raw(data.data(), static_cast<size_t>(n) * sizeof(float));
    return ok_;
}

std::string encode_frame(FrameType type, const std::string& payload) {
    Writer w;
    w.u32(kFrameMagic);
    w.u8(static_cast<uint8_t>(type));
    w.u32(static_cast<uint32_t>(payload.size()));
    std::string out = w.take();
    out += payload;
    uint32_t sum = fnv1a(payload.data(), payload.size());
    out.append(reinterpret_cast<const char*>(&sum), 4);
    return out;
}

FrameDecoder::Status FrameDecoder::next(FrameType& type, std::string& payload) {
    if (!error_.empty()) return Status::Corrupt;
    const size_t header = 9, trailer = 4;
    if (buf_.size() - pos_ < header) return Status::NeedMore;
    Reader r(buf_.data() + pos_, header);
    uint32_t magic = 0, length = 0;
    uint8_t t = 0;
    r.u32(magic);
    r.u8(t);
    r.u32(length);
    if (magic != kFrameMagic) {
        error_ = "bad_frame_magic";
        return Status::Corrupt;
    }
    if (t < 1 || t > 4) {
        error_ = "unknown_frame_type";
        return Status::Corrupt;
    }
    if (length > max_frame_) {
        error_ = "frame_too_large";
        return Status::Corrupt;
    }
    if (buf_.size() - pos_ < header + length + trailer) return Status::NeedMore;
    const char* body = buf_.data() + pos_ + header;
    uint32_t sum = 0;
    std::memcpy(&sum, body + length, 4);
    if (sum != fnv1a(body, length)) {
        error_ = "bad_checksum";
        return Status::Corrupt;
    }
    type = static_cast<FrameType>(t);
    payload.assign(body, length);
    pos_ += header + length + trailer;
    if (pos_ > (1u << 20) && pos_ * 2 > buf_.size()) {  // compact now and then
        buf_.erase(0, pos_);
        pos_ = 0;
    }
    return Status::Frame;
}

}  // namespace attnlab::wire
