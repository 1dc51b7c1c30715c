#pragma once
// The recorder of automatic stages, as tensor.cpp and the harness see it.
//
// While the harness runs the learner's function (begin_recording ..
// end_recording), every public Tensor operation records the tensor it made
// with the learner's line, and a buffer written element by element is
// recorded once per line of writes: when an access comes from a line that
// has not touched it yet (the loop before it is done: a mask written in place
// is recorded before the softmax loop overwrites it), when the buffer is next
// used by an operation, when it is destroyed, and at the end of the call.
// Never per element. The results are bounded by protocol::ProtocolLimits
// (max_recorded, max_recorded_bytes, max_recorded_per_site).
#include <initializer_list>
#include <vector>

#include <attnlab/tensor.hpp>

#include "attnlab/common/recorded_tensor.hpp"

namespace attnlab {

// What tensor.cpp and the recorder read of a Tensor beyond its public API.
struct TensorInternals {
    static detail::Storage* storage(const Tensor& t) { return t.storage_.get(); }
    static long use_count(const Tensor& t) { return t.storage_.use_count(); }
    // The first element, without noticing an access (attnlab's own code).
    static float* raw(const Tensor& t) { return t.storage_data() + t.offset_; }
    // The view is its whole buffer, in row-major order.
    static bool covers_storage(const Tensor& t) {
        return t.storage_ && t.offset_ == 0 && t.is_contiguous() && static_cast<size_t>(t.size()) == t.storage_->values.size();
    }
};

namespace detail {

// One public operation of the API while it runs. Operations nested in it
// (matmul's contiguous(), concat's assign()) are attnlab's, never recorded.
// The outermost one first records what its inputs' buffers hold (settle),
// then its result (done).
class OperationRecord {
public:
    OperationRecord(TensorOp op, SourceLine at, std::initializer_list<const Tensor*> inputs);
    explicit OperationRecord(TensorOp op, SourceLine at, const std::vector<Tensor>& inputs);
    ~OperationRecord();
    OperationRecord(const OperationRecord&) = delete;
    OperationRecord& operator=(const OperationRecord&) = delete;
    Tensor done(Tensor result);
    // Inside an operation of attnlab's: accesses are not the learner's.
    static bool running();

private:
    TensorOp op_;
    int line_;
    bool outermost_;
};

// A tensor read as a whole outside an operation (assign's source): what its
// buffer's element writes made is recorded first.
void used(const Tensor& t);
// A copy of `from` that holds the same values (clone): recording it would
// only repeat `from`, but its buffer starts out as already recorded.
void same_values(const Tensor& copy, const Tensor& from);

// The harness, around the learner's function.
void begin_recording();
struct Recording {
    std::vector<RecordedTensor> tensors;
    uint32_t dropped = 0;  // not kept for the limits
};
Recording end_recording();  // settles every buffer still written to; recording stops
void discard_recording();   // the call threw: nothing to send, recording stops

}  // namespace detail
}  // namespace attnlab
