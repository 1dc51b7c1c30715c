#pragma once
// (x, y, z) ids and sizes, like CUDA's dim3 / uint3, as plain data: what a
// launch report records and what the emulator's dim3 converts to. Its own
// header because every learner file's dim3 needs it, and nothing more.
namespace attnlab::emu {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    unsigned long long count() const { return 1ull * x * y * z; }
    bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

}  // namespace attnlab::emu
