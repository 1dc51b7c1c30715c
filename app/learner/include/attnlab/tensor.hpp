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

class Tensor {
public:
    // An empty tensor of shape (0,).
    Tensor();
    // A tensor of the given shape filled with `fill`.
    explicit Tensor(Shape shape, float fill = 0.0f);

    static Tensor zeros(Shape shape);
    static Tensor full(Shape shape, float value);
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
    template <class... I>
    float& operator()(I... index) {
        const int64_t idx[] = {static_cast<int64_t>(index)...};
        return storage_data()[checked_offset(idx, sizeof...(I))];
    }
    template <class... I>
    float operator()(I... index) const {
        const int64_t idx[] = {static_cast<int64_t>(index)...};
        return storage_data()[checked_offset(idx, sizeof...(I))];
    }
    float& at(const std::vector<int64_t>& index);
    float at(const std::vector<int64_t>& index) const;

    // Pointer to the first element. Walking it linearly is only meaningful
    // when is_contiguous(); otherwise use strides().
    float* data() { return storage_data() + offset_; }
    const float* data() const { return storage_data() + offset_; }
    // All elements in logical row-major order (a copy).
    std::vector<float> to_vector() const;

    // ---- views and copies -------------------------------------------------
    // numpy reshape: one axis may be -1 (inferred). Returns a view when the
    // tensor is contiguous, otherwise reshapes a contiguous copy.
    Tensor reshape(Shape new_shape) const;
    // numpy transpose: with no axes, reverses them (a matrix's transpose).
    // With one index per axis it is a permutation: x.transpose(1, 0, 2) moves
    // axis 1 to the front, exactly like numpy. On tensors of 3+ axes, two
    // indices swap those two axes (PyTorch's transpose(a, b)).
    Tensor transpose() const;
    Tensor transpose(int a, int b) const;
    Tensor transpose(int a, int b, int c) const;
    Tensor transpose(int a, int b, int c, int d) const;
    Tensor permute(const std::vector<int>& axes) const;
    Tensor swapaxes(int a, int b) const;
    // A row-major copy if needed (returns *this when already contiguous).
    Tensor contiguous() const;
    // Always a new, independent, contiguous copy.
    Tensor clone() const;
    // View of index range [start, stop) along `axis`.
    Tensor slice(int axis, int64_t start, int64_t stop) const;
    // View with `axis` removed, fixed at `index`: x.select(0, h) is head h.
    Tensor select(int axis, int64_t index) const;
    Tensor operator[](int64_t index) const { return select(0, index); }

    // Sets every element (through the view) to `value`.
    void fill(float value);
    // Copies `other`'s elements into this view; shapes must match.
    void assign(const Tensor& other);

    // "Tensor(shape=(2, 3), strides=(3, 1))" followed by the values.
    std::string str() const;

private:
    float* storage_data() const { return storage_ ? storage_->data() : nullptr; }
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

    std::shared_ptr<std::vector<float>> storage_;
    Shape shape_;
    Shape strides_;
    int64_t offset_ = 0;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

// ---- helpers ----------------------------------------------------------------
// Matrix product over the last two axes: (..., m, k) @ (..., k, n) -> (..., m, n).
// Leading (batch) axes must be equal, or one operand may be plain 2-D and is
// then used for every batch entry. Works on any strides.
Tensor matmul(const Tensor& a, const Tensor& b);
// Joins tensors along an existing axis; all other axes must match.
Tensor concat(const std::vector<Tensor>& parts, int axis);
// Stacks equal-shaped tensors along a new axis.
Tensor stack(const std::vector<Tensor>& parts, int axis = 0);
// Elementwise arithmetic on equal shapes, and with a scalar.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, float s);
Tensor operator*(float s, const Tensor& a);
Tensor operator/(const Tensor& a, float s);
// True when shapes are equal and every |a - b| <= atol + rtol * |b|
// (-inf matches -inf). Handy for checking your own work.
bool allclose(const Tensor& a, const Tensor& b, float rtol = 1e-5f, float atol = 1e-6f);
// "(2, 4, 8)"
std::string shape_str(const Shape& shape);

// Records an intermediate tensor under `name` so attnlab can show it beside
// the reference's stage of the same name (e.g. "scores", "weights"). Costs a
// copy; calling it with the same name again in one case replaces the record.
void probe(const std::string& name, const Tensor& t);

}  // namespace attnlab
