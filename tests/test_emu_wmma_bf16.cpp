// bf16 WMMA on the emulator (<mma.h>'s __nv_bfloat16 fragments, sm_80's
// m16n16k16 bf16 -> f32), on hand-computed values: a float given to a bf16
// fragment is rounded as a GPU rounds it (to nearest, ties to even, of the
// float's top 16 bits), values that a __half fragment keeps or rounds
// otherwise; a bf16 tile loaded from memory keeps its bits; products are
// exact and sums in float; loads and mma_sync are counted as the __half
// path's; ldm is checked in bf16 elements. The kernels
// (emu_wmma_bf16_kernels.cu) are plain CUDA that nvcc compiles too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/emu/raw_runtime.hpp"

// The kernels' element types as the emulator's headers define them (one
// declaration each, enough for the kernels' signatures).
struct __nv_bfloat16;
typedef _Float16 __half;

namespace emu_test {
void wmma_bf16_fill(float* out, const __nv_bfloat16* identity, float fill_value);
void wmma_half_fill(float* out, const __half* identity, float fill_value);
void wmma_bf16_product(float* out, const __nv_bfloat16* a, unsigned lda, const __nv_bfloat16* b, const float* c);
void wmma_bf16_convert(float* out, const __nv_bfloat16* identity, float value);
template <int Copy> void wmma_bf16_shared_tile(float* out, const __nv_bfloat16* identity, float value);
}  // namespace emu_test

using namespace attnlab::emu;
using attnlab::Lang;

namespace {

// A device buffer of `count` elements of 2 or 4 bytes, set from the host.
template <class T> class Buffer {
public:
    Buffer(const char* name, const std::vector<T>& values)
        : data_(static_cast<T*>(raw::allocate(values.size() * sizeof(T), name, 0, false, sizeof(T), raw::element_type_name<T>()))),
          count_(values.size()) {
        std::memcpy(data_, values.data(), values.size() * sizeof(T));
        raw::host_wrote(data_, values.size() * sizeof(T));
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { raw::release(data_); }
    T* get() const { return data_; }
    std::vector<T> download() const { return std::vector<T>(data_, data_ + count_); }

private:
    T* data_;
    size_t count_;
};

// bf16 bit patterns written by hand (sign, 8-bit exponent, 7-bit mantissa):
// the test must not share the rounding code it tests.
constexpr unsigned short kBf16One = 0x3f80;

const __nv_bfloat16* as_bf16(const unsigned short* p) { return reinterpret_cast<const __nv_bfloat16*>(p); }

std::vector<unsigned short> bf16_identity() {
    std::vector<unsigned short> m(256, 0);
    for (int i = 0; i < 16; ++i) m[i * 16 + i] = kBf16One;
    return m;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
bool same(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Every element of the 16 x 16 result: one value, the fill as rounded.
float only_value(const std::vector<float>& out) {
    for (float v : out)
        if (!same(v, out[0])) return -12345.0f;
    return out[0];
}

// The value a bf16 fragment holds after `kernel` puts `value` in it (A·I).
float through_bf16(void (*kernel)(float*, const __nv_bfloat16*, float), float value) {
    Buffer<unsigned short> identity("identity", bf16_identity());
    Buffer<float> out("out", std::vector<float>(256, 0.0f));
    const LaunchReport r = launch("bf16", kernel, dim3(1), dim3(32), 0, out.get(), as_bf16(identity.get()), value);
    REQUIRE(r.ok());
    return only_value(out.download());
}
float bf16_fill(float value) { return through_bf16(emu_test::wmma_bf16_fill, value); }
float bf16_convert(float value) { return through_bf16(emu_test::wmma_bf16_convert, value); }

float half_fill(float value) {
    std::vector<__half> id(256, __half(0.0f));
    for (int i = 0; i < 16; ++i) id[i * 16 + i] = __half(1.0f);
    Buffer<__half> identity("identity", id);
    Buffer<float> out("out", std::vector<float>(256, 0.0f));
    const LaunchReport r = launch("wmma_half_fill", emu_test::wmma_half_fill, dim3(1), dim3(32), 0, out.get(), identity.get(), value);
    REQUIRE(r.ok());
    return only_value(out.download());
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("wmma bf16: fill_fragment and __float2bfloat16 round to nearest even, where __half keeps or rounds otherwise") {
    struct Row {
        float value, bf16, half;
    };
    const Row rows[] = {
        {1.00390625f, 1.0f, 1.00390625f},            // 1 + 2^-8: a tie in bf16, to the even 1; exact in half
        {1.01171875f, 1.015625f, 1.01171875f},       // 1 + 3·2^-8: a tie, to the even 1 + 2^-6 (truncation gives 1 + 2^-7)
        {1.0048828125f, 1.0078125f, 1.0048828125f},  // just above the tie: up to 1 + 2^-7
        {1.99609375f, 2.0f, 1.99609375f},            // 2 - 2^-8: a tie that carries into the exponent
        {-2.99609375f, -3.0f, -2.99609375f},         // the sign is kept; half's finer step keeps it exact
        {70000.0f, 70144.0f, kNaN},                  // past half's 65504: inf, times the identity's zeros NaN; in bf16's range
        {0x1.01p-100f, 0x1p-100f, 0.0f},             // (1 + 2^-8)·2^-100: bf16 has float's exponent, half underflows to 0
    };
    for (const Row& row : rows) {
        CAPTURE(row.value);
        CHECK(same(bf16_fill(row.value), row.bf16));
        CHECK(same(bf16_convert(row.value), row.bf16));
        CHECK(same(half_fill(row.value), row.half));
    }
    CHECK(std::isnan(bf16_fill(kNaN)));
}

TEST_CASE("wmma bf16: loaded tiles keep their bits, products are exact and sums in float; counted as the GPU moves them") {
    // A (16 x 16, rows padded to lda = 24) and B (column by column): values 1 + i·2^-7, exact in bf16,
    // whose bit patterns read as __half would be other numbers. Each product needs 15 bits and 16 of
    // them sum exactly in float, so the expected result is exact in double.
    const unsigned lda = 24;
    std::vector<unsigned short> a(16 * lda, 0x7fc0 /* padding: NaN, never read */), b(256);
    std::vector<float> c(256);
    std::vector<double> want(256, 0.0);
    auto value = [](int i) { return 1.0 + (i % 8) / 128.0; };       // 1 + (i mod 8)·2^-7
    auto bits = [](int i) { return static_cast<unsigned short>(kBf16One + i % 8); };
    for (int m = 0; m < 16; ++m)
        for (int k = 0; k < 16; ++k) a[m * lda + k] = bits(m + 3 * k);
    for (int n = 0; n < 16; ++n)
        for (int k = 0; k < 16; ++k) b[n * 16 + k] = bits(5 * n + k);  // col_major: element (k, n) at b[n*16 + k]
    for (int m = 0; m < 16; ++m)
        for (int n = 0; n < 16; ++n) {
            c[m * 16 + n] = 0.25f * float(m - n);
            double s = c[m * 16 + n];
            for (int k = 0; k < 16; ++k) s += value(m + 3 * k) * value(5 * n + k);
            want[m * 16 + n] = s;
        }
    Buffer<unsigned short> da("a", a), db("b", b);
    Buffer<float> dc("c", c), out("out", std::vector<float>(256, 0.0f));
    const LaunchReport r = launch("wmma_bf16_product", emu_test::wmma_bf16_product, dim3(1), dim3(32), 0, out.get(),
                                  as_bf16(da.get()), lda, as_bf16(db.get()), dc.get());
    REQUIRE(r.ok());
    const std::vector<float> got = out.download();
    for (int i = 0; i < 256; ++i) {
        CAPTURE(i);
        CHECK(double(got[i]) == want[i]);
    }
    // One request per 16 x 16 bf16 tile, two for C's 1 KB of floats. B's 16 rows of 32 bytes are 16
    // full sectors; A's rows are 48 bytes apart (lda = 24), so every odd row straddles two sectors:
    // 24 moved for 16 filled. C: 32 sectors; the store the same. One mma_sync by one warp:
    // 2·16·16·16 tensor-core FLOPs.
    CHECK(r.counters.global_load_requests == 4);
    CHECK(r.counters.global_load_sectors == 24 + 16 + 32);
    CHECK(r.counters.global_load_wasted_sectors == 8);
    CHECK(r.counters.global_store_requests == 2);
    CHECK(r.counters.global_store_sectors == 32);
    CHECK(r.counters.tensor_flops == 2 * 16 * 16 * 16);
}

TEST_CASE("wmma bf16: ldm is counted in bf16 elements (a multiple of 8), and a tile pointer must be 32-byte aligned") {
    std::vector<unsigned short> a(16 * 24, kBf16One), b(256, kBf16One);
    Buffer<unsigned short> da("a", a), db("b", b);
    Buffer<float> dc("c", std::vector<float>(256, 0.0f)), out("out", std::vector<float>(256, 0.0f));
    const LaunchReport bad_ldm = launch("wmma_bf16_product", emu_test::wmma_bf16_product, dim3(1), dim3(32), 0, out.get(),
                                        as_bf16(da.get()), 12u, as_bf16(db.get()), dc.get());
    REQUIRE(bad_ldm.fault.kind == FaultKind::MisalignedAddress);
    CHECK(bad_ldm.fault.detail == "ldm");
    CHECK(bad_ldm.fault.index == 12);
    CHECK(bad_ldm.fault.element_type == "__nv_bfloat16");
    const std::string en = attnlab::describe_fault(bad_ldm.fault, Lang::En);
    CHECK(en.find("For __nv_bfloat16 elements") != std::string::npos);
    CHECK(en.find("multiple of 8") != std::string::npos);
    CHECK(attnlab::describe_fault(bad_ldm.fault, Lang::Id).find("kelipatan 8") != std::string::npos);

    const LaunchReport off = launch("wmma_bf16_product", emu_test::wmma_bf16_product, dim3(1), dim3(32), 0, out.get(),
                                    as_bf16(da.get() + 8), 24u, as_bf16(db.get()), dc.get());
    REQUIRE(off.fault.kind == FaultKind::MisalignedAddress);
    CHECK(off.fault.detail == "32");
    CHECK(off.fault.index == 16);  // 8 bf16 elements: 16 bytes past the aligned start
}

TEST_CASE("wmma in a sampled launch: the unchecked blocks' fragment calls are not counted, their shared tile not twice") {
    // Five blocks, the middle three on the copy, whose tile only wmma calls touch: before, those
    // calls marked the copy's __shared__ tile as used, and the launch reported 2 KiB per block.
    Buffer<float> out("out", std::vector<float>(5 * 256, 0.0f));
    LaunchOptions sampled;
    sampled.checked_blocks = CheckedBlocks::FirstAndLast;
    const ScopedLaunchOptions options(sampled);
    Buffer<unsigned short> identity("identity", bf16_identity());
    float* o = out.get();
    const __nv_bfloat16* id = as_bf16(identity.get());
    const LaunchReport r = launch_function(
        "wmma_bf16_shared_tile", Dim3{5, 1, 1}, Dim3{32, 1, 1}, 0, [o, id] { emu_test::wmma_bf16_shared_tile<0>(o, id, 1.01171875f); },
        [o, id] { emu_test::wmma_bf16_shared_tile<1>(o, id, 1.01171875f); });
    REQUIRE(r.ok());
    CHECK(r.counters.unchecked_blocks == 3);
    CHECK(r.counters.static_shared_bytes == 256 * 4);  // one float tile, not the copy's as well
    CHECK(r.counters.tensor_flops == 2 * (2 * 16 * 16 * 16));  // the two checked blocks' mma_sync
    const raw::DeviceMemoryWindow window;
    for (float v : out.download()) CHECK((v == 0.0f || v == 1.015625f));  // A·I: the fill on the diagonal
    int64_t first = -1;
    CHECK(raw::not_kernel_written(out.get(), 5 * 256, sizeof(float), first) == 0);
    for (int b = 0; b < 5; ++b) CHECK(out.download()[size_t(b) * 256] == 1.015625f);  // every block's (0, 0)
}

}  // TEST_SUITE
