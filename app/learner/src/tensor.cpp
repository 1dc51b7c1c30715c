// Implementation of the learner Tensor API (see attnlab/tensor.hpp).
//
// Built once with optimisation into libattnlab_learner.a; the header stays
// light so learner files compile quickly. Semantics follow numpy: row-major,
// strides in elements, views share storage.
#include <attnlab/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "recorder.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define ATTNLAB_COLD __attribute__((cold, noinline))
#define ATTNLAB_NORETURN [[noreturn]]
#else
#define ATTNLAB_COLD
#define ATTNLAB_NORETURN [[noreturn]]
#endif

namespace attnlab {

namespace {

using detail::OperationRecord;

// attnlab's own calls of the public API inside an operation: not the learner's line.
constexpr SourceLine kInternal{0};

// ---- small helpers ------------------------------------------------------------

int64_t product(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Shape row_major_strides(const Shape& shape) {
    Shape strides(shape.size());
    int64_t s = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = s;
        s *= std::max<int64_t>(shape[i], 1);
    }
    return strides;
}

std::string join(const int64_t* v, size_t n) {
    std::string s = "(";
    for (size_t i = 0; i < n; ++i) {
        if (i) s += ", ";
        s += std::to_string(v[i]);
    }
    if (n == 1) s += ",";
    s += ")";
    return s;
}

std::string join_ints(const std::vector<int>& v) {
    std::string s = "(";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(v[i]);
    }
    s += ")";
    return s;
}

std::string plural(int64_t n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

void check_shape_valid(const Shape& shape, const char* where) {
    for (int64_t d : shape) {
        if (d < 0) {
            throw std::invalid_argument(std::string(where) + ": negative dimension in shape " +
                                        shape_str(shape));
        }
    }
}

// Normalises a possibly negative axis against `ndim` axes; throws
// std::out_of_range naming the call and the shape.
int norm_axis(int axis, int ndim, const Shape& shape, const char* where) {
    const int a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim) {
        throw std::out_of_range(std::string(where) + ": axis " + std::to_string(axis) +
                                " is out of range for a tensor with " + std::to_string(ndim) +
                                (ndim == 1 ? " axis" : " axes") + ", shape " + shape_str(shape) +
                                " (valid axes: " + std::to_string(-ndim) + " .. " +
                                std::to_string(ndim - 1) + ")");
    }
    return a;
}

// Calls f(offset_a, offset_b) for every index of `shape`, in row-major order,
// where the offsets walk two strided layouts in lockstep.
template <class F>
void strided_apply2(const Shape& shape, const Shape& sa, int64_t oa, const Shape& sb, int64_t ob,
                    F&& f) {
    const size_t nd = shape.size();
    if (nd == 0) {
        f(oa, ob);
        return;
    }
    for (int64_t d : shape)
        if (d == 0) return;
    const int64_t inner = shape[nd - 1];
    const int64_t ia = sa[nd - 1];
    const int64_t ib = sb[nd - 1];
    std::vector<int64_t> idx(nd, 0);
    for (;;) {
        int64_t pa = oa, pb = ob;
        for (int64_t j = 0; j < inner; ++j, pa += ia, pb += ib) f(pa, pb);
        // Advance the odometer over the outer axes.
        size_t ax = nd - 1;
        for (;;) {
            if (ax == 0) return;
            --ax;
            ++idx[ax];
            oa += sa[ax];
            ob += sb[ax];
            if (idx[ax] < shape[ax]) break;
            oa -= sa[ax] * shape[ax];
            ob -= sb[ax] * shape[ax];
            idx[ax] = 0;
        }
    }
}

template <class F>
void strided_apply1(const Shape& shape, const Shape& s, int64_t o, F&& f) {
    strided_apply2(shape, s, o, s, o, [&](int64_t a, int64_t) { f(a); });
}

// ---- index errors (cold path of checked_offset) ---------------------------------

ATTNLAB_NORETURN ATTNLAB_COLD void throw_index_error(const int64_t* index, size_t count,
                                                     const Shape& shape) {
    const std::string idx = join(index, count);
    const std::string shp = shape_str(shape);
    if (count != shape.size()) {
        throw std::out_of_range("index " + idx + " has " + std::to_string(count) +
                                (count == 1 ? " index" : " indices") + " but shape " + shp +
                                " has " + std::to_string(shape.size()) +
                                (shape.size() == 1 ? " axis" : " axes") +
                                ": give exactly one index per axis");
    }
    std::string msg = "index " + idx + " out of range for shape " + shp;
    for (size_t i = 0; i < count; ++i) {
        if (index[i] < 0 || index[i] >= shape[i]) {
            msg += ": axis " + std::to_string(i) + " has size " + std::to_string(shape[i]);
            if (shape[i] > 0) {
                msg += ", valid indices are 0.." + std::to_string(shape[i] - 1);
            } else {
                msg += ", so it has no valid index";
            }
            if (index[i] < 0) msg += " (negative indices are not supported)";
            break;
        }
    }
    throw std::out_of_range(msg);
}

ATTNLAB_NORETURN ATTNLAB_COLD void throw_shape_mismatch(const char* op, const Shape& a,
                                                        const Shape& b) {
    throw std::invalid_argument(std::string(op) + ": shapes " + shape_str(a) + " and " +
                                shape_str(b) + " differ; elementwise operations need equal shapes");
}

// ---- value formatting for str() ------------------------------------------------

struct Formatter {
    enum Mode { Int, Fixed, Sci } mode = Int;
    int width = 1;

    std::string raw(float v) const {
        if (std::isnan(v)) return "nan";
        if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
        char buf[64];
        switch (mode) {
            case Int: std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(v)); break;
            case Fixed: std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(v)); break;
            case Sci: std::snprintf(buf, sizeof buf, "%.4e", static_cast<double>(v)); break;
        }
        std::string s = buf;
        if (s == "-0" || s == "-0.0000") s.erase(0, 1);  // print -0 as 0
        return s;
    }
    std::string operator()(float v) const {
        std::string s = raw(v);
        if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<size_t>(width) - s.size(), ' ');
        return s;
    }
};

constexpr int64_t kPrintThreshold = 1000;  // numpy's default threshold
constexpr int64_t kEdgeItems = 3;          // numpy's default edgeitems

// Indices printed along an axis of length n ( -1 marks the "..." gap ).
std::vector<int64_t> shown_indices(int64_t n, bool summarise) {
    std::vector<int64_t> out;
    if (summarise && n > 2 * kEdgeItems) {
        for (int64_t i = 0; i < kEdgeItems; ++i) out.push_back(i);
        out.push_back(-1);
        for (int64_t i = n - kEdgeItems; i < n; ++i) out.push_back(i);
    } else {
        for (int64_t i = 0; i < n; ++i) out.push_back(i);
    }
    return out;
}

void print_values(std::string& out, const float* base, const Shape& shape, const Shape& strides,
                  size_t axis, int64_t off, bool summarise, const Formatter& fmt) {
    const size_t nd = shape.size();
    const std::vector<int64_t> idx = shown_indices(shape[axis], summarise);
    out += '[';
    bool first = true;
    if (axis + 1 == nd) {
        for (int64_t i : idx) {
            if (!first) out += ", ";
            first = false;
            if (i < 0) {
                out += "...";
            } else {
                out += fmt(base[off + i * strides[axis]]);
            }
        }
    } else {
        // Blank lines between blocks grow with depth, like numpy.
        const std::string sep = "," + std::string(nd - axis - 1, '\n') + std::string(axis + 1, ' ');
        for (int64_t i : idx) {
            if (!first) out += sep;
            first = false;
            if (i < 0) {
                out += "...";
            } else {
                print_values(out, base, shape, strides, axis + 1, off + i * strides[axis], summarise,
                             fmt);
            }
        }
    }
    out += ']';
}

// ---- matmul kernel ----------------------------------------------------------------

#if defined(__GNUC__) || defined(__clang__)
typedef float v4f __attribute__((vector_size(16)));
inline v4f load4(const float* p) {
    v4f v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store4(float* p, v4f v) { std::memcpy(p, &v, sizeof v); }
#endif

// C[m, n] += A[m, k] @ B[k, n]; all row-major and contiguous, C pre-zeroed.
// i-k-j order, four rows of C at a time so each row of B is read once per
// four rows, and columns in blocks so the C rows being updated stay in L1.
void gemm(const float* __restrict A, const float* __restrict B, float* __restrict C, int64_t m,
          int64_t k, int64_t n) {
    constexpr int64_t kColBlock = 512;
    for (int64_t j0 = 0; j0 < n; j0 += kColBlock) {
        const int64_t j1 = std::min(n, j0 + kColBlock);
        int64_t i = 0;
        for (; i + 4 <= m; i += 4) {
            float* c0 = C + (i + 0) * n;
            float* c1 = C + (i + 1) * n;
            float* c2 = C + (i + 2) * n;
            float* c3 = C + (i + 3) * n;
            const float* a0 = A + (i + 0) * k;
            const float* a1 = A + (i + 1) * k;
            const float* a2 = A + (i + 2) * k;
            const float* a3 = A + (i + 3) * k;
            for (int64_t p = 0; p < k; ++p) {
                const float x0 = a0[p], x1 = a1[p], x2 = a2[p], x3 = a3[p];
                const float* b = B + p * n;
                int64_t j = j0;
#if defined(__GNUC__) || defined(__clang__)
                const v4f y0 = {x0, x0, x0, x0}, y1 = {x1, x1, x1, x1};
                const v4f y2 = {x2, x2, x2, x2}, y3 = {x3, x3, x3, x3};
                for (; j + 8 <= j1; j += 8) {
                    const v4f bl = load4(b + j), bh = load4(b + j + 4);
                    store4(c0 + j, load4(c0 + j) + y0 * bl);
                    store4(c0 + j + 4, load4(c0 + j + 4) + y0 * bh);
                    store4(c1 + j, load4(c1 + j) + y1 * bl);
                    store4(c1 + j + 4, load4(c1 + j + 4) + y1 * bh);
                    store4(c2 + j, load4(c2 + j) + y2 * bl);
                    store4(c2 + j + 4, load4(c2 + j + 4) + y2 * bh);
                    store4(c3 + j, load4(c3 + j) + y3 * bl);
                    store4(c3 + j + 4, load4(c3 + j + 4) + y3 * bh);
                }
#endif
                for (; j < j1; ++j) {
                    const float bj = b[j];
                    c0[j] += x0 * bj;
                    c1[j] += x1 * bj;
                    c2[j] += x2 * bj;
                    c3[j] += x3 * bj;
                }
            }
        }
        for (; i < m; ++i) {
            float* c = C + i * n;
            const float* a = A + i * k;
            for (int64_t p = 0; p < k; ++p) {
                const float x = a[p];
                const float* b = B + p * n;
                int64_t j = j0;
#if defined(__GNUC__) || defined(__clang__)
                const v4f y = {x, x, x, x};
                for (; j + 8 <= j1; j += 8) {
                    store4(c + j, load4(c + j) + y * load4(b + j));
                    store4(c + j + 4, load4(c + j + 4) + y * load4(b + j + 4));
                }
#endif
                for (; j < j1; ++j) c[j] += x * b[j];
            }
        }
    }
}

}  // namespace

// ---- construction ---------------------------------------------------------------

Tensor::Tensor()
    : storage_(std::make_shared<detail::Storage>(std::vector<float>(), Shape{0})), shape_{0}, strides_{1}, offset_(0) {}

Tensor::Tensor(Shape shape, float fill) {
    check_shape_valid(shape, "Tensor");
    const int64_t n = product(shape);
    storage_ = std::make_shared<detail::Storage>(std::vector<float>(static_cast<size_t>(n), fill), shape);
    strides_ = row_major_strides(shape);
    shape_ = std::move(shape);
}

Tensor::Tensor(const Tensor& other) = default;
Tensor::Tensor(Tensor&& other) noexcept = default;
Tensor& Tensor::operator=(const Tensor& other) = default;
Tensor& Tensor::operator=(Tensor&& other) noexcept = default;
Tensor::~Tensor() = default;

Tensor Tensor::zeros(Shape shape) { return Tensor(std::move(shape), 0.0f); }
Tensor Tensor::zeros(std::initializer_list<int64_t> shape) { return Tensor(Shape(shape), 0.0f); }

Tensor Tensor::full(Shape shape, float value) { return Tensor(std::move(shape), value); }
Tensor Tensor::full(std::initializer_list<int64_t> shape, float value) { return Tensor(Shape(shape), value); }

Tensor Tensor::from_data(Shape shape, std::vector<float> data) {
    check_shape_valid(shape, "from_data");
    const int64_t n = product(shape);
    if (static_cast<int64_t>(data.size()) != n) {
        throw std::invalid_argument("from_data: shape " + shape_str(shape) + " needs " +
                                    plural(n, "value") + ", got " +
                                    std::to_string(data.size()));
    }
    Tensor t;
    t.storage_ = std::make_shared<detail::Storage>(std::move(data), shape);
    t.strides_ = row_major_strides(shape);
    t.shape_ = std::move(shape);
    return t;
}

Tensor Tensor::eye(int64_t n) {
    if (n < 0) throw std::invalid_argument("eye: n must be >= 0, got " + std::to_string(n));
    Tensor t({n, n});
    float* d = TensorInternals::raw(t);
    for (int64_t i = 0; i < n; ++i) d[i * n + i] = 1.0f;
    return t;
}

Tensor Tensor::arange(int64_t n) {
    if (n < 0) throw std::invalid_argument("arange: n must be >= 0, got " + std::to_string(n));
    Tensor t({n});
    float* d = TensorInternals::raw(t);
    for (int64_t i = 0; i < n; ++i) d[i] = static_cast<float>(i);
    return t;
}

// ---- shape -------------------------------------------------------------------------

int64_t Tensor::shape(int axis) const {
    return shape_[static_cast<size_t>(norm_axis(axis, ndim(), shape_, "shape"))];
}

int64_t Tensor::size() const { return product(shape_); }

bool Tensor::is_contiguous() const {
    int64_t expected = 1;
    for (size_t i = shape_.size(); i-- > 0;) {
        if (shape_[i] == 0) return true;  // no elements: trivially contiguous
        if (shape_[i] != 1 && strides_[i] != expected) return false;
        expected *= shape_[i];
    }
    return true;
}

// ---- element access ---------------------------------------------------------------

void Tensor::index_error(const int64_t* index, size_t count) const { throw_index_error(index, count, shape_); }

float Tensor::at(const std::vector<int64_t>& index) const {
    return storage_data()[checked_offset(index.data(), index.size())];
}

std::vector<float> Tensor::to_vector() const {
    std::vector<float> out(static_cast<size_t>(size()));
    if (out.empty()) return out;
    const float* src = storage_data();
    if (is_contiguous()) {
        std::memcpy(out.data(), src + offset_, out.size() * sizeof(float));
        return out;
    }
    float* dst = out.data();
    strided_apply1(shape_, strides_, offset_, [&](int64_t o) { *dst++ = src[o]; });
    return out;
}

// ---- views and copies -------------------------------------------------------------

Tensor Tensor::reshape(std::initializer_list<int64_t> new_shape, SourceLine at) const { return reshape(Shape(new_shape), at); }

Tensor Tensor::reshape(Shape new_shape, SourceLine at) const {
    OperationRecord record(TensorOp::Reshape, at, {this});
    const int64_t n = size();
    int infer = -1;
    int64_t known = 1;
    bool bad = false;
    for (size_t i = 0; i < new_shape.size(); ++i) {
        if (new_shape[i] == -1) {
            if (infer >= 0) {
                throw std::invalid_argument("reshape: only one axis may be -1, got " +
                                            shape_str(new_shape) + " for tensor of shape " +
                                            shape_str(shape_));
            }
            infer = static_cast<int>(i);
        } else if (new_shape[i] < 0) {
            bad = true;
        } else {
            known *= new_shape[i];
        }
    }
    if (!bad) {
        if (infer >= 0) {
            if (known == 0 || n % known != 0) {
                bad = true;
            } else {
                new_shape[static_cast<size_t>(infer)] = n / known;
            }
        } else if (known != n) {
            bad = true;
        }
    }
    if (bad) {
        throw std::invalid_argument("cannot reshape tensor of shape " + shape_str(shape_) + " (" +
                                    plural(n, "element") + ") into shape " +
                                    shape_str(new_shape));
    }
    Tensor src = contiguous(kInternal);
    Tensor t;
    t.storage_ = src.storage_;
    t.offset_ = src.offset_;
    t.strides_ = row_major_strides(new_shape);
    t.shape_ = std::move(new_shape);
    return record.done(std::move(t));
}

Tensor Tensor::permute(const std::vector<int>& axes, SourceLine at) const {
    OperationRecord record(TensorOp::Transpose, at, {this});
    const int nd = ndim();
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument("invalid permutation " + join_ints(axes) + " for tensor of shape " +
                                    shape_str(shape_) + ": " + why);
    };
    if (static_cast<int>(axes.size()) != nd) {
        fail("it lists " + std::to_string(axes.size()) + " axes but the tensor has " +
             std::to_string(nd) + "; give each axis exactly once");
    }
    std::vector<bool> seen(static_cast<size_t>(nd), false);
    Tensor t = *this;
    for (int i = 0; i < nd; ++i) {
        const int a = axes[static_cast<size_t>(i)] < 0 ? axes[static_cast<size_t>(i)] + nd
                                                        : axes[static_cast<size_t>(i)];
        if (a < 0 || a >= nd) {
            fail("axis " + std::to_string(axes[static_cast<size_t>(i)]) + " does not exist (valid: " +
                 std::to_string(-nd) + " .. " + std::to_string(nd - 1) + ")");
        }
        if (seen[static_cast<size_t>(a)]) fail("axis " + std::to_string(a) + " appears twice");
        seen[static_cast<size_t>(a)] = true;
        t.shape_[static_cast<size_t>(i)] = shape_[static_cast<size_t>(a)];
        t.strides_[static_cast<size_t>(i)] = strides_[static_cast<size_t>(a)];
    }
    return record.done(std::move(t));
}

Tensor Tensor::transpose(SourceLine at) const {
    std::vector<int> axes(static_cast<size_t>(ndim()));
    for (int i = 0; i < ndim(); ++i) axes[static_cast<size_t>(i)] = ndim() - 1 - i;
    return permute(axes, at);
}

Tensor Tensor::transpose(int a, int b, SourceLine at) const {
    if (ndim() == 2) return permute({a, b}, at);
    if (ndim() > 2) return swapaxes(a, b, at);
    throw std::invalid_argument("transpose(" + std::to_string(a) + ", " + std::to_string(b) +
                                ") needs a tensor with at least 2 axes, but shape " +
                                shape_str(shape_) + " has " + std::to_string(ndim()));
}

Tensor Tensor::transpose(int a, int b, int c, SourceLine at) const { return permute({a, b, c}, at); }

Tensor Tensor::transpose(int a, int b, int c, int d, SourceLine at) const { return permute({a, b, c, d}, at); }

Tensor Tensor::swapaxes(int a, int b, SourceLine at) const {
    OperationRecord record(TensorOp::Transpose, at, {this});
    const size_t x = static_cast<size_t>(norm_axis(a, ndim(), shape_, "swapaxes"));
    const size_t y = static_cast<size_t>(norm_axis(b, ndim(), shape_, "swapaxes"));
    Tensor t = *this;
    std::swap(t.shape_[x], t.shape_[y]);
    std::swap(t.strides_[x], t.strides_[y]);
    return record.done(std::move(t));
}

Tensor Tensor::contiguous(SourceLine at) const {
    if (is_contiguous()) return *this;
    OperationRecord record(TensorOp::Contiguous, at, {this});
    return record.done(clone());
}

Tensor Tensor::clone() const {
    Tensor t;
    t.storage_ = std::make_shared<detail::Storage>(to_vector(), shape_);
    t.shape_ = shape_;
    t.strides_ = row_major_strides(shape_);
    t.offset_ = 0;
    detail::same_values(t, *this);
    return t;
}

Tensor Tensor::slice(int axis, int64_t start, int64_t stop) const {
    const size_t ax = static_cast<size_t>(norm_axis(axis, ndim(), shape_, "slice"));
    const int64_t n = shape_[ax];
    if (start < 0 || stop < start || stop > n) {
        throw std::out_of_range("slice(" + std::to_string(axis) + ", " + std::to_string(start) +
                                ", " + std::to_string(stop) + "): range [" + std::to_string(start) +
                                ", " + std::to_string(stop) + ") does not fit axis " +
                                std::to_string(ax) + " of size " + std::to_string(n) +
                                " in shape " + shape_str(shape_) + " (need 0 <= start <= stop <= " +
                                std::to_string(n) + ")");
    }
    Tensor t = *this;
    t.offset_ = offset_ + start * strides_[ax];
    t.shape_[ax] = stop - start;
    return t;
}

Tensor Tensor::select(int axis, int64_t index) const {
    const size_t ax = static_cast<size_t>(norm_axis(axis, ndim(), shape_, "select"));
    const int64_t n = shape_[ax];
    if (index < 0 || index >= n) {
        throw std::out_of_range("select(" + std::to_string(axis) + ", " + std::to_string(index) +
                                "): index " + std::to_string(index) + " out of range for axis " +
                                std::to_string(ax) + " of size " + std::to_string(n) +
                                " in shape " + shape_str(shape_) +
                                (n > 0 ? " (valid 0.." + std::to_string(n - 1) + ")"
                                       : std::string(" (axis is empty)")));
    }
    Tensor t = *this;
    t.offset_ = offset_ + index * strides_[ax];
    t.shape_.erase(t.shape_.begin() + static_cast<std::ptrdiff_t>(ax));
    t.strides_.erase(t.strides_.begin() + static_cast<std::ptrdiff_t>(ax));
    return t;
}

void Tensor::fill(float value, SourceLine at) {
    touch(at.line);
    float* d = storage_data();
    if (is_contiguous()) {
        std::fill(d + offset_, d + offset_ + size(), value);
        return;
    }
    strided_apply1(shape_, strides_, offset_, [&](int64_t o) { d[o] = value; });
}

void Tensor::assign(const Tensor& other, SourceLine at) {
    detail::used(other);
    touch(at.line);
    if (other.shape_ != shape_) {
        throw std::invalid_argument("assign: cannot copy a tensor of shape " +
                                    shape_str(other.shape_) + " into a view of shape " +
                                    shape_str(shape_) + "; shapes must match");
    }
    // If both views share storage they may overlap: copy the source first.
    const Tensor src = (other.storage_ == storage_) ? other.clone() : other;
    float* d = storage_data();
    const float* s = src.storage_data();
    strided_apply2(shape_, strides_, offset_, src.strides_, src.offset_,
                   [&](int64_t od, int64_t os) { d[od] = s[os]; });
}

std::string Tensor::str() const {
    std::string out = "Tensor(shape=" + shape_str(shape_) + ", strides=" + shape_str(strides_);
    if (offset_ != 0) out += ", offset=" + std::to_string(offset_);
    out += ")\n";
    const int64_t n = size();
    if (ndim() == 0) {
        Formatter f;
        const float v = storage_data()[offset_];
        f.mode = (std::isfinite(v) && v == std::nearbyint(v) && std::fabs(v) < 1e7f) ? Formatter::Int
                 : (std::fabs(v) >= 1e-4f && std::fabs(v) < 1e5f) ? Formatter::Fixed
                                                                  : Formatter::Sci;
        if (std::isfinite(v) && v == 0.0f) f.mode = Formatter::Int;
        return out + f(v);
    }
    if (n == 0) return out + "[]";
    const bool summarise = n > kPrintThreshold;

    // Choose one format for all printed values (numpy-like).
    const float* base = storage_data();
    bool all_int = true;
    float max_abs = 0.0f, min_abs = std::numeric_limits<float>::infinity();
    std::vector<float> shown;
    {
        // Collect the values that will be printed to pick format and width.
        std::vector<std::vector<int64_t>> per_axis;
        for (int64_t d : shape_) per_axis.push_back(shown_indices(d, summarise));
        std::vector<size_t> pos(shape_.size(), 0);
        for (;;) {
            int64_t off = offset_;
            bool gap = false;
            for (size_t i = 0; i < pos.size(); ++i) {
                const int64_t ix = per_axis[i][pos[i]];
                if (ix < 0) {
                    gap = true;
                    break;
                }
                off += ix * strides_[i];
            }
            if (!gap) shown.push_back(base[off]);
            size_t ax = pos.size();
            bool done = true;
            while (ax-- > 0) {
                if (++pos[ax] < per_axis[ax].size()) {
                    done = false;
                    break;
                }
                pos[ax] = 0;
            }
            if (done) break;
        }
    }
    for (float v : shown) {
        if (!std::isfinite(v)) continue;
        const float a = std::fabs(v);
        if (v != std::nearbyint(v)) all_int = false;
        max_abs = std::max(max_abs, a);
        if (a > 0.0f) min_abs = std::min(min_abs, a);
    }
    Formatter fmt;
    if (all_int && max_abs < 1e7f) {
        fmt.mode = Formatter::Int;
    } else if (max_abs < 1e5f && (min_abs >= 1e-4f || min_abs == std::numeric_limits<float>::infinity())) {
        fmt.mode = Formatter::Fixed;
    } else {
        fmt.mode = Formatter::Sci;
    }
    for (float v : shown) fmt.width = std::max(fmt.width, static_cast<int>(fmt.raw(v).size()));
    print_values(out, base, shape_, strides_, 0, offset_, summarise, fmt);
    return out;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

// ---- helpers ----------------------------------------------------------------------

std::string shape_str(const Shape& shape) { return join(shape.data(), shape.size()); }

Tensor matmul(const Tensor& a, const Tensor& b, SourceLine at) {
    OperationRecord record(TensorOp::Matmul, at, {&a, &b});
    if (a.ndim() < 2 || b.ndim() < 2) {
        throw std::invalid_argument("matmul: both operands need at least 2 axes (..., m, k) @ (..., k, n); got shapes " +
                                    shape_str(a.shape()) + " and " + shape_str(b.shape()));
    }
    const int64_t m = a.shape(-2), k = a.shape(-1);
    const int64_t k2 = b.shape(-2), n = b.shape(-1);
    if (k != k2) {
        throw std::invalid_argument("matmul: shapes " + shape_str(a.shape()) + " and " +
                                    shape_str(b.shape()) + " do not line up: the left operand has " +
                                    std::to_string(k) + " columns but the right one has " +
                                    std::to_string(k2) + " rows");
    }
    const Shape batch_a(a.shape().begin(), a.shape().end() - 2);
    const Shape batch_b(b.shape().begin(), b.shape().end() - 2);
    Shape batch;
    if (batch_a == batch_b) {
        batch = batch_a;
    } else if (batch_a.empty()) {
        batch = batch_b;
    } else if (batch_b.empty()) {
        batch = batch_a;
    } else {
        throw std::invalid_argument("matmul: batch axes of shapes " + shape_str(a.shape()) + " and " +
                                    shape_str(b.shape()) + " differ (" + shape_str(batch_a) + " vs " +
                                    shape_str(batch_b) +
                                    "); they must be equal, or one operand must be 2-D");
    }
    const int64_t nb = product(batch);
    Shape out_shape = batch;
    out_shape.push_back(m);
    out_shape.push_back(n);
    Tensor out = Tensor::zeros(out_shape);
    if (nb == 0 || m == 0 || n == 0 || k == 0) return record.done(std::move(out));

    const Tensor A = a.contiguous(kInternal);
    const Tensor B = b.contiguous(kInternal);
    const int64_t step_a = batch_a.empty() ? 0 : m * k;
    const int64_t step_b = batch_b.empty() ? 0 : k * n;
    const float* pa = A.data();
    const float* pb = B.data();
    float* pc = TensorInternals::raw(out);
    if (step_b == 0) {
        // Right operand shared by every batch entry: one big (nb*m, k) @ (k, n).
        gemm(pa, pb, pc, nb * m, k, n);
        if (step_a == 0) {
            for (int64_t i = 1; i < nb; ++i)
                std::memcpy(pc + i * m * n, pc, static_cast<size_t>(m * n) * sizeof(float));
        }
        return record.done(std::move(out));
    }
    for (int64_t i = 0; i < nb; ++i) gemm(pa + i * step_a, pb + i * step_b, pc + i * m * n, m, k, n);
    return record.done(std::move(out));
}

Tensor concat(const std::vector<Tensor>& parts, int axis, SourceLine at) {
    OperationRecord record(TensorOp::Concat, at, parts);
    if (parts.empty()) throw std::invalid_argument("concat: need at least one tensor");
    const Shape& first = parts[0].shape();
    const int nd = parts[0].ndim();
    if (nd == 0) throw std::invalid_argument("concat: cannot concatenate 0-d tensors");
    const size_t ax = static_cast<size_t>(norm_axis(axis, nd, first, "concat"));
    Shape out_shape = first;
    out_shape[ax] = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        const Shape& s = parts[i].shape();
        bool ok = s.size() == first.size();
        for (size_t d = 0; ok && d < s.size(); ++d)
            if (d != ax && s[d] != first[d]) ok = false;
        if (!ok) {
            throw std::invalid_argument("concat along axis " + std::to_string(axis) + ": part " +
                                        std::to_string(i) + " has shape " + shape_str(s) +
                                        " but part 0 has shape " + shape_str(first) +
                                        "; all axes except axis " + std::to_string(ax) +
                                        " must match");
        }
        out_shape[ax] += s[ax];
    }
    Tensor out = Tensor::zeros(out_shape);
    int64_t pos = 0;
    for (const Tensor& p : parts) {
        const int64_t len = p.shape()[ax];
        out.slice(static_cast<int>(ax), pos, pos + len).assign(p, kInternal);
        pos += len;
    }
    return record.done(std::move(out));
}

Tensor concat(std::initializer_list<Tensor> parts, int axis, SourceLine at) { return concat(std::vector<Tensor>(parts), axis, at); }

Tensor stack(std::initializer_list<Tensor> parts, int axis, SourceLine at) { return stack(std::vector<Tensor>(parts), axis, at); }

Tensor stack(const std::vector<Tensor>& parts, int axis, SourceLine at) {
    OperationRecord record(TensorOp::Stack, at, parts);
    if (parts.empty()) throw std::invalid_argument("stack: need at least one tensor");
    const Shape& first = parts[0].shape();
    const int nd = parts[0].ndim() + 1;
    Shape out_shape = first;
    const int a = axis < 0 ? axis + nd : axis;
    if (a < 0 || a >= nd) {
        throw std::out_of_range("stack: axis " + std::to_string(axis) + " is out of range for stacking tensors of shape " +
                                shape_str(first) + "; the new axis can be " + std::to_string(-nd) +
                                " .. " + std::to_string(nd - 1));
    }
    const size_t ax = static_cast<size_t>(a);
    for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].shape() != first) {
            throw std::invalid_argument("stack: part " + std::to_string(i) + " has shape " +
                                        shape_str(parts[i].shape()) + " but part 0 has shape " +
                                        shape_str(first) + "; stacked tensors must have equal shapes");
        }
    }
    out_shape.insert(out_shape.begin() + static_cast<std::ptrdiff_t>(ax),
                     static_cast<int64_t>(parts.size()));
    Tensor out = Tensor::zeros(out_shape);
    for (size_t i = 0; i < parts.size(); ++i)
        out.select(static_cast<int>(ax), static_cast<int64_t>(i)).assign(parts[i], kInternal);
    return record.done(std::move(out));
}

namespace {

template <class Op>
Tensor elementwise(const char* name, TensorOp kind, const Tensor& a, const detail::TensorOperand& operand, Op op) {
    const Tensor& b = operand.tensor;
    OperationRecord record(kind, SourceLine{operand.line}, {&a, &b});
    if (a.shape() != b.shape()) throw_shape_mismatch(name, a.shape(), b.shape());
    const Tensor ca = a.contiguous(kInternal);
    const Tensor cb = b.contiguous(kInternal);
    Tensor out(a.shape());
    const float* x = ca.data();
    const float* y = cb.data();
    float* z = TensorInternals::raw(out);
    const int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) z[i] = op(x[i], y[i]);
    return record.done(std::move(out));
}

template <class Op>
Tensor map(TensorOp kind, const Tensor& a, const detail::Scalar& s, Op op) {
    OperationRecord record(kind, SourceLine{s.line}, {&a});
    const Tensor ca = a.contiguous(kInternal);
    Tensor out(a.shape());
    const float* x = ca.data();
    float* z = TensorInternals::raw(out);
    const int64_t n = out.size();
    for (int64_t i = 0; i < n; ++i) z[i] = op(x[i]);
    return record.done(std::move(out));
}

}  // namespace

Tensor operator+(const Tensor& a, detail::TensorOperand b) {
    return elementwise("operator+", TensorOp::Add, a, b, [](float x, float y) { return x + y; });
}

Tensor operator-(const Tensor& a, detail::TensorOperand b) {
    return elementwise("operator-", TensorOp::Subtract, a, b, [](float x, float y) { return x - y; });
}

Tensor operator*(const Tensor& a, detail::TensorOperand b) {
    return elementwise("operator*", TensorOp::Multiply, a, b, [](float x, float y) { return x * y; });
}

Tensor operator*(const Tensor& a, detail::Scalar s) {
    return map(TensorOp::Multiply, a, s, [v = s.value](float x) { return x * v; });
}

Tensor operator*(detail::Scalar s, const Tensor& a) {
    return map(TensorOp::Multiply, a, s, [v = s.value](float x) { return v * x; });
}

Tensor operator/(const Tensor& a, detail::Scalar s) {
    return map(TensorOp::Divide, a, s, [v = s.value](float x) { return x / v; });
}

bool allclose(const Tensor& a, const Tensor& b, float rtol, float atol) {
    if (a.shape() != b.shape()) return false;
    const std::vector<float> x = a.to_vector();
    const std::vector<float> y = b.to_vector();
    for (size_t i = 0; i < x.size(); ++i) {
        const float u = x[i], v = y[i];
        if (std::isinf(u) || std::isinf(v)) {
            if (u != v) return false;  // infinities match only the same infinity
            continue;
        }
        if (!(std::fabs(u - v) <= atol + rtol * std::fabs(v))) return false;  // NaN fails
    }
    return true;
}

}  // namespace attnlab
