#pragma once
// attnlab learner API: the only header your solutions need.
//
//   #include <attnlab/tensor.hpp>
//   using namespace attnlab;
//
// A Tensor is an n-dimensional array of float in row-major (C) order, like a
// numpy array. It is a *view*: shape + strides + offset into shared storage.
// Copying a Tensor does not copy its numbers (same as numpy/PyTorch); use
// clone() when you want an independent copy.
//
//   Tensor x = Tensor::zeros({4, 8});           // shape (4, 8), strides (8, 1)
//   Tensor h = x.reshape({4, 2, 4});            // view, shape (4, 2, 4)
//   Tensor p = h.transpose(1, 0, 2);            // view, shape (2, 4, 4), strides (4, 8, 1)
//   Tensor c = p.contiguous();                  // copy laid out row-major
//   float v = p(1, 3, 2);                       // element access, bounds-checked
//
// Strides are counted in elements, not bytes (numpy counts bytes: divide by 4).
// This header is deliberately light (no Eigen) so your file compiles fast; the
// implementation is precompiled into libattnlab_learner.a.
//
// Automatic stages: while attnlab checks your function, every tensor an
// operation below makes (matmul, transpose, reshape, contiguous, + - * /,
// concat, stack) and every tensor you fill element by element is recorded
// with the line of your file it came from, and matched to the reference's
// stages by shape and value: no probe() needed. That is what the last,
// defaulted `SourceLine` argument of those calls is for: the compiler fills
// in your line; never pass it yourself.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

using Shape = std::vector<int64_t>;

// -infinity: what a causal mask writes into future positions, so that
// exp(-inf) = 0 after softmax.
inline constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The line of your file a call is on, filled in by the compiler.
struct SourceLine {
    int line;
};

class Tensor;

namespace detail {

// A tensor's numbers, shared by all its views, and what the recorder of
// automatic stages keeps per buffer (app/learner/src/recorder.cpp).
struct Storage {
    explicit Storage(std::vector<float> v, Shape shape) : values(std::move(v)), whole_shape(std::move(shape)) {}
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    ~Storage();  // a buffer written element by element is recorded before it goes

    std::vector<float> values;
    // Your line of the last element access through a mutable view (0: none
    // since the buffer was last recorded). Checked inline on every access, so
    // a loop costs one comparison per element until its line changes.
    int touched_line = 0;
    // The recorder's bookkeeping.
    static constexpr int kSeenLines = 8;
    int seen_lines[kSeenLines] = {};  // the lines that touched it, in the order they first did
    int seen_count = 0;
    int registry_slot = -1;           // in the recorder's list of touched buffers
    int provisional = 0;              // snapshots taken when a new line began, kept unless an older line comes back
    // The values' hash when last recorded, or when first touched in this
    // recording: a buffer that still holds them is not recorded again.
    bool has_known_hash = false;
    uint64_t known_hash = 0;
    Shape whole_shape;  // the shape the buffer is recorded with
};

// An element access from a line other than the buffer's last (out of line).
void touched(const Tensor& view, int line);

// The right operand of + - * on two tensors, and the scalar of * and /:
// implicit conversions that carry your line (operators take no default
// arguments). In detail, so their names never clash with yours.
struct TensorOperand {
    TensorOperand(const Tensor& t, int line = __builtin_LINE()) : tensor(t), line(line) {}
    const Tensor& tensor;
    int line;
};
struct Scalar {
    Scalar(float v, int line = __builtin_LINE()) : value(v), line(line) {}
    float value;
    int line;
};

}  // namespace detail

class Tensor {
public:
    // An empty tensor of shape (0,).
    Tensor();
    // A tensor of the given shape filled with `fill`.
    explicit Tensor(Shape shape, float fill = 0.0f);
    // Copying shares the numbers (see above). Defined in the library, like
    // the overloads taking a braced shape ({T, H, hd}) below: a solution's
    // file then instantiates none of shared_ptr's and vector's templates, which
    // would be most of what compiling a short solution costs.
    Tensor(const Tensor& other);
    Tensor(Tensor&& other) noexcept;
    Tensor& operator=(const Tensor& other);
    Tensor& operator=(Tensor&& other) noexcept;
    ~Tensor();

    static Tensor zeros(Shape shape);
    static Tensor zeros(std::initializer_list<int64_t> shape);
    static Tensor full(Shape shape, float value);
    static Tensor full(std::initializer_list<int64_t> shape, float value);
    // Takes `data` in row-major order; its size must equal the product of shape.
    static Tensor from_data(Shape shape, std::vector<float> data);
    // n×n identity matrix.
    static Tensor eye(int64_t n);
    // 0, 1, 2, ... n-1 as shape (n,).
    static Tensor arange(int64_t n);

    // ---- shape -----------------------------------------------------------
    const Shape& shape() const { return shape_; }
    // Size of one axis; negative axes count from the end (-1 is the last).
    int64_t shape(int axis) const;
    const Shape& strides() const { return strides_; }  // in elements
    int64_t offset() const { return offset_; }           // first element's index in storage
    int ndim() const { return static_cast<int>(shape_.size()); }
    int64_t size() const;                                // number of elements
    bool is_contiguous() const;                          // row-major with no gaps

    // ---- element access (bounds-checked; throws std::out_of_range) --------
    // One index per axis: x(i, j) on a 2-D tensor, x(h, t, j) on a 3-D one.
    float& operator()(SourceLine at = {__builtin_LINE()}) { return element(nullptr, 0, at); }
    float& operator()(int64_t i0, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0};
        return element(i, 1, at);
    }
    float& operator()(int64_t i0, int64_t i1, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1};
        return element(i, 2, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2};
        return element(i, 3, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2, i3};
        return element(i, 4, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2, i3, i4};
        return element(i, 5, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5};
        return element(i, 6, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5, int64_t i6, SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5, i6};
        return element(i, 7, at);
    }
    float& operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5, int64_t i6, int64_t i7,
                      SourceLine at = {__builtin_LINE()}) {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5, i6, i7};
        return element(i, 8, at);
    }
    float operator()() const { return storage_data()[checked_offset(nullptr, 0)]; }
    float operator()(int64_t i0) const {
        const int64_t i[] = {i0};
        return storage_data()[checked_offset(i, 1)];
    }
    float operator()(int64_t i0, int64_t i1) const {
        const int64_t i[] = {i0, i1};
        return storage_data()[checked_offset(i, 2)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2) const {
        const int64_t i[] = {i0, i1, i2};
        return storage_data()[checked_offset(i, 3)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3) const {
        const int64_t i[] = {i0, i1, i2, i3};
        return storage_data()[checked_offset(i, 4)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4) const {
        const int64_t i[] = {i0, i1, i2, i3, i4};
        return storage_data()[checked_offset(i, 5)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5) const {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5};
        return storage_data()[checked_offset(i, 6)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5, int64_t i6) const {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5, i6};
        return storage_data()[checked_offset(i, 7)];
    }
    float operator()(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t i4, int64_t i5, int64_t i6, int64_t i7) const {
        const int64_t i[] = {i0, i1, i2, i3, i4, i5, i6, i7};
        return storage_data()[checked_offset(i, 8)];
    }
    // Any number of axes (up to 8), the index as a list.
    float& at(const std::vector<int64_t>& index, SourceLine where = {__builtin_LINE()}) { return element(index.data(), index.size(), where); }
    float at(const std::vector<int64_t>& index) const;

    // Pointer to the first element. Walking it linearly is only meaningful
    // when is_contiguous(); otherwise use strides().
    float* data(SourceLine where = {__builtin_LINE()}) {
        touch(where.line);
        return storage_data() + offset_;
    }
    const float* data() const { return storage_data() + offset_; }
    // All elements in logical row-major order (a copy).
    std::vector<float> to_vector() const;

    // ---- views and copies -------------------------------------------------
    // numpy reshape: one axis may be -1 (inferred). Returns a view when the
    // tensor is contiguous, otherwise reshapes a contiguous copy.
    Tensor reshape(Shape new_shape, SourceLine at = {__builtin_LINE()}) const;
    Tensor reshape(std::initializer_list<int64_t> new_shape, SourceLine at = {__builtin_LINE()}) const;
    // numpy transpose: with no axes, reverses them (a matrix's transpose).
    // With one index per axis it is a permutation: x.transpose(1, 0, 2) moves
    // axis 1 to the front, exactly like numpy. On tensors of 3+ axes, two
    // indices swap those two axes (PyTorch's transpose(a, b)).
    Tensor transpose(SourceLine at = {__builtin_LINE()}) const;
    Tensor transpose(int a, int b, SourceLine at = {__builtin_LINE()}) const;
    Tensor transpose(int a, int b, int c, SourceLine at = {__builtin_LINE()}) const;
    Tensor transpose(int a, int b, int c, int d, SourceLine at = {__builtin_LINE()}) const;
    Tensor permute(const std::vector<int>& axes, SourceLine at = {__builtin_LINE()}) const;
    Tensor swapaxes(int a, int b, SourceLine at = {__builtin_LINE()}) const;
    // A row-major copy if needed (returns *this when already contiguous).
    Tensor contiguous(SourceLine at = {__builtin_LINE()}) const;
    // Always a new, independent, contiguous copy.
    Tensor clone() const;
    // View of index range [start, stop) along `axis`.
    Tensor slice(int axis, int64_t start, int64_t stop) const;
    // View with `axis` removed, fixed at `index`: x.select(0, h) is head h.
    Tensor select(int axis, int64_t index) const;
    Tensor operator[](int64_t index) const { return select(0, index); }

    // Sets every element (through the view) to `value`.
    void fill(float value, SourceLine at = {__builtin_LINE()});
    // Copies `other`'s elements into this view; shapes must match.
    void assign(const Tensor& other, SourceLine at = {__builtin_LINE()});

    // "Tensor(shape=(2, 3), strides=(3, 1))" followed by the values.
    std::string str() const;

private:
    friend void detail::touched(const Tensor& view, int line);
    friend struct TensorInternals;  // tensor.cpp and the recorder

    float* storage_data() const { return storage_ ? storage_->values.data() : nullptr; }
    // The one place a mutable access is noticed: a new line calls the recorder.
    void touch(int line) const {
        if (storage_ && storage_->touched_line != line) detail::touched(*this, line);
    }
    float& element(const int64_t* index, size_t count, SourceLine at) {
        touch(at.line);
        return storage_data()[checked_offset(index, count)];
    }
    // Inline because it runs for every element a learner's loop touches; the
    // error message is built out of line, only when an index is wrong.
    int64_t checked_offset(const int64_t* index, size_t count) const {
        if (count != shape_.size()) index_error(index, count);
        int64_t off = offset_;
        for (size_t i = 0; i < count; ++i) {
            // One unsigned compare catches both negative and too-large indices.
            if (static_cast<uint64_t>(index[i]) >= static_cast<uint64_t>(shape_[i])) index_error(index, count);
            off += index[i] * strides_[i];
        }
        return off;
    }
    [[noreturn]] void index_error(const int64_t* index, size_t count) const;

    std::shared_ptr<detail::Storage> storage_;
    Shape shape_;
    Shape strides_;
    int64_t offset_ = 0;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- helpers ----------------------------------------------------------------
// Matrix product over the last two axes: (..., m, k) @ (..., k, n) -> (..., m, n).
// Leading (batch) axes must be equal, or one operand may be plain 2-D and is
// then used for every batch entry. Works on any strides.
Tensor matmul(const Tensor& a, const Tensor& b, SourceLine at = {__builtin_LINE()});
// Joins tensors along an existing axis; all other axes must match.
Tensor concat(const std::vector<Tensor>& parts, int axis, SourceLine at = {__builtin_LINE()});
// Stacks equal-shaped tensors along a new axis.
Tensor stack(const std::vector<Tensor>& parts, int axis = 0, SourceLine at = {__builtin_LINE()});
// concat({a, b}, 1) and stack({a, b}): the same, without building a
// std::vector<Tensor> in your file (whose templates cost each check 0.05 s).
Tensor concat(std::initializer_list<Tensor> parts, int axis, SourceLine at = {__builtin_LINE()});
Tensor stack(std::initializer_list<Tensor> parts, int axis = 0, SourceLine at = {__builtin_LINE()});
// Elementwise arithmetic on equal shapes, and with a scalar: a + b, a * 0.5f, 2 * a, a / s.
Tensor operator+(const Tensor& a, detail::TensorOperand b);
Tensor operator-(const Tensor& a, detail::TensorOperand b);
Tensor operator*(const Tensor& a, detail::TensorOperand b);
Tensor operator*(const Tensor& a, detail::Scalar s);
Tensor operator*(detail::Scalar s, const Tensor& a);
Tensor operator/(const Tensor& a, detail::Scalar s);
// True when shapes are equal and every |a - b| <= atol + rtol * |b|
// (-inf matches -inf). Handy for checking your own work.
bool allclose(const Tensor& a, const Tensor& b, float rtol = 1e-5f, float atol = 1e-6f);
// "(2, 4, 8)"
std::string shape_str(const Shape& shape);

// Records an intermediate tensor under `name` so attnlab can show it beside
// the reference's stage of the same name (e.g. "scores", "weights"). Costs a
// copy; calling it with the same name again in one case replaces the record.
// Automatic stages place most tensors without it: name the ones they cannot.
void probe(const std::string& name, const Tensor& t);
void probe(const char* name, const Tensor& t);  // probe("scores", s) builds no std::string in your file

}  // namespace attnlab
