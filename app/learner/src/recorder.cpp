// The recorder of automatic stages (see recorder.hpp for when a tensor is
// recorded). Learner programs call the Tensor API from one thread: only the
// thread that began the recording records; a Tensor used on another thread
// is simply not recorded.
#include "recorder.hpp"

#include <cstring>
#include <unordered_map>

#include "attnlab/common/protocol.hpp"

namespace attnlab {
namespace detail {
namespace {

using Limits = protocol::ProtocolLimits;

// A snapshot taken when a new line began writing a buffer, valid unless a
// line that touched the buffer before it comes back (then the two lines are
// one loop, a softmax's exp and division per row, and the snapshot is half of it).
struct Provisional {
    size_t record;          // index in RecorderState::tensors
    int lines_before;       // Storage::seen_count when it was taken
    uint64_t hash_before;   // the buffer's recorded hash before it
    bool had_hash_before;
};

struct RecorderState {
    bool active = false;
    std::vector<RecordedTensor> tensors;
    std::vector<bool> withdrawn;                      // per tensor: a provisional snapshot taken back
    size_t bytes = 0;
    uint32_t dropped = 0;
    std::vector<Storage*> touched;                    // buffers written to since they were last recorded
    std::unordered_map<uint64_t, uint32_t> per_site;  // (line, op) -> tensors recorded there
    std::unordered_map<const Storage*, std::vector<Provisional>> provisional;
};

RecorderState& state() {
    static RecorderState s;
    return s;
}

thread_local bool recording_thread = false;  // the thread that called begin_recording
thread_local int operation_depth = 0;        // public operations running (nested: attnlab's own)

bool learner_context() { return state().active && recording_thread && operation_depth == 0; }

// Values equal bit for bit (NaN payloads included) give equal hashes.
uint64_t hash_values(const float* v, size_t n) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, v + i, sizeof bits);
        h = (h ^ bits) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
    }
    return h;
}

uint64_t site_key(int line, TensorOp op) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(line)) << 8) | static_cast<uint8_t>(op);
}

// A loop's first iterations are recorded, not every one: the same call on
// the same line gives the same kind of tensor each time round.
bool site_has_room(int line, TensorOp op) { return state().per_site[site_key(line, op)]++ < Limits::max_recorded_per_site; }

bool room_for(size_t count) {
    RecorderState& s = state();
    if (s.tensors.size() < Limits::max_recorded && s.bytes + count * sizeof(float) <= Limits::max_recorded_bytes) return true;
    ++s.dropped;
    return false;
}

void keep(TensorOp op, int line, Shape shape, std::vector<float> values) {
    RecorderState& s = state();
    s.bytes += values.size() * sizeof(float);
    s.tensors.push_back({line, op, TensorData(std::move(shape), std::move(values))});
    s.withdrawn.push_back(false);
}

void unregister(Storage& st) {
    std::vector<Storage*>& list = state().touched;
    if (st.registry_slot < 0) return;
    const size_t slot = static_cast<size_t>(st.registry_slot);
    if (slot < list.size() && list[slot] == &st) {
        list[slot] = list.back();
        list[slot]->registry_slot = static_cast<int>(slot);
        list.pop_back();
    }
    st.registry_slot = -1;
}

Shape recorded_shape(const Storage& st) {
    int64_t n = 1;
    for (int64_t d : st.whole_shape) n *= d;
    if (!st.whole_shape.empty() && n == static_cast<int64_t>(st.values.size())) return st.whole_shape;
    return Shape{static_cast<int64_t>(st.values.size())};
}

// What the buffer holds now, as written by `line`, unless it is what it held
// when last recorded. Returns whether a tensor was kept. Never throws (it
// runs in destructors): out of memory, the tensor is simply not recorded.
bool snapshot(Storage& st, int line) noexcept {
    try {
        const uint64_t h = hash_values(st.values.data(), st.values.size());
        if (st.has_known_hash && st.known_hash == h) return false;
        st.known_hash = h;
        st.has_known_hash = true;
        if (!site_has_room(line, TensorOp::Writes) || !room_for(st.values.size())) return false;
        keep(TensorOp::Writes, line, recorded_shape(st), st.values);
        return true;
    } catch (...) {
        ++state().dropped;
        return false;
    }
}

// A new line begins writing the buffer: what the lines before it left is
// kept, provisionally.
void snapshot_before_new_line(Storage& st) noexcept {
    const uint64_t hash_before = st.known_hash;
    const bool had_hash_before = st.has_known_hash;
    if (!snapshot(st, st.touched_line)) return;
    try {
        state().provisional[&st].push_back({state().tensors.size() - 1, st.seen_count, hash_before, had_hash_before});
        ++st.provisional;
    } catch (...) {  // it stays, as if the loop were done
    }
}

// Line number `index` of the buffer's seen lines is back: the provisional
// snapshots taken after it began were taken in the middle of its loop.
void withdraw_provisional_after(Storage& st, int index) {
    auto it = state().provisional.find(&st);
    if (it == state().provisional.end()) return;
    std::vector<Provisional>& list = it->second;
    while (!list.empty() && list.back().lines_before > index) {
        const Provisional& p = list.back();
        RecorderState& s = state();
        s.withdrawn[p.record] = true;
        s.bytes -= s.tensors[p.record].tensor.data.size() * sizeof(float);
        --s.per_site[site_key(s.tensors[p.record].line, TensorOp::Writes)];
        st.known_hash = p.hash_before;
        st.has_known_hash = p.had_hash_before;
        list.pop_back();
        --st.provisional;
    }
    if (list.empty()) state().provisional.erase(it);
}

// The buffer's element writes so far are done: its provisional snapshots
// stand, and its present values are recorded.
void settle(Storage& st) noexcept {
    const int line = st.touched_line;
    unregister(st);
    st.touched_line = 0;
    if (st.provisional > 0) {
        state().provisional.erase(&st);
        st.provisional = 0;
    }
    if (line > 0) snapshot(st, line);
}

int seen_index(const Storage& st, int line) {
    for (int i = 0; i < st.seen_count; ++i)
        if (st.seen_lines[i] == line) return i;
    return -1;
}

// Touched since it was last recorded, in this recording: in its list.
void settle_if_touched(const Tensor& t) {
    if (Storage* st = TensorInternals::storage(t); st && st->registry_slot >= 0) settle(*st);
}

}  // namespace

void touched(const Tensor& view, int line) {
    Storage* st = TensorInternals::storage(view);
    if (!st) return;
    if (!state().active || !recording_thread) {
        st->touched_line = line;  // not recording: remember the line so the next access is inline again
        return;
    }
    if (operation_depth > 0 || line <= 0) return;  // attnlab's own code inside an operation
    const int index = seen_index(*st, line);
    if (index >= 0) {
        if (st->provisional > 0) withdraw_provisional_after(*st, index);
    } else if (st->seen_count < Storage::kSeenLines) {
        if (st->registry_slot >= 0) snapshot_before_new_line(*st);
        st->seen_lines[st->seen_count++] = line;
        if (TensorInternals::covers_storage(view)) st->whole_shape = view.shape();
    }  // (more lines than that: recorded at the next use only)
    st->touched_line = line;
    if (st->registry_slot < 0) {
        if (!st->has_known_hash) {  // what it holds before this recording's writes: reads alone record nothing
            st->known_hash = hash_values(st->values.data(), st->values.size());
            st->has_known_hash = true;
        }
        st->registry_slot = static_cast<int>(state().touched.size());
        state().touched.push_back(st);
    }
}

Storage::~Storage() {
    if (registry_slot < 0) return;
    if (state().active && recording_thread) settle(*this);
    unregister(*this);
    if (provisional > 0) state().provisional.erase(this);
}

OperationRecord::OperationRecord(TensorOp op, SourceLine at, std::initializer_list<const Tensor*> inputs)
    : op_(op), line_(at.line), outermost_(learner_context()) {
    ++operation_depth;
    if (outermost_)
        for (const Tensor* t : inputs) settle_if_touched(*t);
}

OperationRecord::OperationRecord(TensorOp op, SourceLine at, const std::vector<Tensor>& inputs)
    : op_(op), line_(at.line), outermost_(learner_context()) {
    ++operation_depth;
    if (outermost_)
        for (const Tensor& t : inputs) settle_if_touched(t);
}

OperationRecord::~OperationRecord() { --operation_depth; }

bool OperationRecord::running() { return operation_depth > 0; }

Tensor OperationRecord::done(Tensor result) {
    if (!outermost_ || line_ <= 0) return result;
    Storage* st = TensorInternals::storage(result);
    // A new buffer (not a view of an input's) is recorded with this shape.
    const bool fresh = st && TensorInternals::use_count(result) == 1;
    if (fresh) st->whole_shape = result.shape();
    try {
        if (!site_has_room(line_, op_) || !room_for(static_cast<size_t>(result.size()))) return result;
        std::vector<float> values = result.to_vector();
        if (fresh && TensorInternals::covers_storage(result)) {
            st->known_hash = hash_values(values.data(), values.size());
            st->has_known_hash = true;
        }
        keep(op_, line_, result.shape(), std::move(values));
    } catch (const std::bad_alloc&) {
        ++state().dropped;
    }
    return result;
}

void used(const Tensor& t) {
    if (learner_context()) settle_if_touched(t);
}

void same_values(const Tensor& copy, const Tensor& from) {
    if (!learner_context()) return;
    settle_if_touched(from);
    Storage* st = TensorInternals::storage(copy);
    if (!st) return;
    const Storage* source = TensorInternals::storage(from);
    if (source && source->has_known_hash && TensorInternals::covers_storage(from)) {
        st->known_hash = source->known_hash;
    } else {
        st->known_hash = hash_values(TensorInternals::raw(copy), st->values.size());
    }
    st->has_known_hash = true;
    st->whole_shape = copy.shape();
}

void begin_recording() {
    discard_recording();
    state().active = true;
    recording_thread = true;
}

Recording end_recording() {
    RecorderState& s = state();
    // Settling unregisters: take the list first.
    const std::vector<Storage*> still_touched = s.touched;
    for (Storage* st : still_touched) settle(*st);
    Recording out;
    for (size_t i = 0; i < s.tensors.size(); ++i)
        if (!s.withdrawn[i]) out.tensors.push_back(std::move(s.tensors[i]));
    out.dropped = s.dropped;
    discard_recording();
    return out;
}

void discard_recording() {
    RecorderState& s = state();
    for (Storage* st : s.touched) {
        st->registry_slot = -1;
        st->touched_line = 0;
        st->provisional = 0;
    }
    s = RecorderState{};
    recording_thread = false;
}

}  // namespace detail
}  // namespace attnlab
