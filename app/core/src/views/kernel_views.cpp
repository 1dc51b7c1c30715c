#include "attnlab/core/views/kernel_views.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "attnlab/common/checked_blocks.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

namespace {

// "(B, T, D)" -> {"B", "T", "D"}; empty when it does not name `rank` axes.
std::vector<std::string> axes_from_shape_text(const std::string& text, size_t rank) {
    std::vector<std::string> axes;
    std::string cur;
    for (char ch : text) {
        if (ch == '(' || ch == ' ') continue;
        if (ch == ',' || ch == ')') {
            if (!cur.empty()) axes.push_back(cur);
            cur.clear();
            continue;
        }
        cur += ch;
    }
    if (!cur.empty()) axes.push_back(cur);
    if (axes.size() != rank) axes.clear();
    return axes;
}

int64_t numel_of(const Shape& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

const char kAxisKey[] = "kview.axis.";   // + dim name: the axis in words ("baris")
const char kAxesKey[] = "kview.axes.";   // + dim name: its plural, for a range ("rows")

std::string axis_word(const AxisSpan& s, Lang lang, bool plural) {
    if (s.name.empty()) return tr(lang, plural ? msg::kview_axes_unnamed : msg::kview_axis_unnamed, {{"axis", std::to_string(s.axis)}});
    const std::string key = (plural ? kAxesKey : kAxisKey) + s.name;
    return has_message(lang, key) ? tr(lang, built_key(key)) : s.name;
}

}  // namespace

std::vector<KernelBuffer> kernel_buffers(const Exercise& exercise, const CaseOutcome& c) {
    std::vector<KernelBuffer> out;
    KernelBuffer output;
    output.name = exercise.output.name.empty() ? "out" : exercise.output.name;
    output.is_output = true;
    if (c.expected.kind == ValueKind::Tensor) output.shape = c.expected.tensor.shape;
    if (exercise.returns.dims.size() == output.shape.size()) output.axes = exercise.returns.dims;
    else output.axes = axes_from_shape_text(exercise.output.shape, output.shape.size());
    out.push_back(std::move(output));
    if (c.index < 0 || c.index >= static_cast<int>(exercise.cases.size())) return out;
    const Case& k = exercise.cases[static_cast<size_t>(c.index)];
    for (size_t i = 0; i < exercise.params.size() && i < k.args.size(); ++i) {
        if (exercise.params[i].kind != ValueKind::Tensor || k.args[i].kind != ValueKind::Tensor) continue;
        KernelBuffer in;
        in.name = exercise.params[i].name;
        in.shape = k.args[i].tensor.shape;
        in.axes = axes_from_shape_text(exercise.params[i].shape, in.shape.size());
        out.push_back(std::move(in));
    }
    return out;
}

const KernelBuffer* find_buffer(const std::vector<KernelBuffer>& buffers, const std::string& name) {
    for (const KernelBuffer& b : buffers)
        if (b.name == name) return &b;
    return nullptr;
}

std::vector<int64_t> unravel_index(int64_t index, const Shape& shape) {
    if (shape.empty()) return {index};
    std::vector<int64_t> coords(shape.size(), 0);
    int64_t rest = index;
    for (size_t a = shape.size(); a-- > 1;) {
        const int64_t d = std::max<int64_t>(shape[a], 1);
        coords[a] = ((rest % d) + d) % d;
        rest = (rest - coords[a]) / d;
    }
    coords[0] = rest;
    return coords;
}

uint64_t linear_block(const emu::Dim3& block, const emu::Dim3& grid) {
    return block.x + static_cast<uint64_t>(grid.x) * (block.y + static_cast<uint64_t>(grid.y) * block.z);
}

emu::Dim3 block_index(uint64_t linear, const emu::Dim3& grid) {
    const uint64_t gx = std::max(grid.x, 1u), gy = std::max(grid.y, 1u);
    return {static_cast<unsigned>(linear % gx), static_cast<unsigned>((linear / gx) % gy), static_cast<unsigned>(linear / gx / gy)};
}

std::vector<AxisSpan> slice_of(const std::vector<int64_t>& indices, const KernelBuffer& buffer) {
    if (indices.empty()) return {};
    const Shape& shape = buffer.shape;
    const size_t rank = std::max<size_t>(shape.size(), 1);
    std::vector<int64_t> lo(rank, INT64_MAX), hi(rank, INT64_MIN);
    for (int64_t i : indices) {
        const std::vector<int64_t> c = unravel_index(i, shape);
        for (size_t a = 0; a < rank; ++a) {
            lo[a] = std::min(lo[a], c[a]);
            hi[a] = std::max(hi[a], c[a]);
        }
    }
    auto span = [&](size_t a) {
        return AxisSpan{static_cast<int>(a), a < buffer.axes.size() ? buffer.axes[a] : "", lo[a], hi[a]};
    };
    // Leading axes on which every element agrees: once one axis is fixed for
    // all of them, min == max on the next says the same of that one.
    std::vector<AxisSpan> slice;
    size_t a = 0;
    for (; a < rank && lo[a] == hi[a]; ++a) slice.push_back(span(a));
    if (a < rank) {
        // The range is left out only when the elements fill the fixed slice
        // completely (every element of (batch 1, head 0), not part of it).
        int64_t inner = 1;
        for (size_t k = a; k < shape.size(); ++k) inner *= shape[k];
        std::vector<int64_t> distinct = indices;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        const bool whole = !shape.empty() && lo[a] == 0 && hi[a] == shape[a] - 1 && static_cast<int64_t>(distinct.size()) == inner;
        if (!whole) slice.push_back(span(a));
    }
    return slice;
}

std::string describe_slice(const std::vector<AxisSpan>& slice, Lang lang) {
    if (slice.empty()) return "";
    std::string text;
    for (const AxisSpan& s : slice) {
        if (!text.empty()) text += ", ";
        if (s.lo == s.hi) text += tr(lang, msg::kview_slice_one, {{"axis", axis_word(s, lang, false)}, {"i", std::to_string(s.lo)}});
        else
            text += tr(lang, msg::kview_slice_range,
                       {{"axes", axis_word(s, lang, true)}, {"lo", std::to_string(s.lo)}, {"hi", std::to_string(s.hi)}});
    }
    return slice.size() > 1 ? "(" + text + ")" : text;
}

bool fault_has_block(const emu::Fault& fault) {
    return fault.kind != emu::FaultKind::None && fault.kind != emu::FaultKind::InvalidLaunch;
}

std::vector<BlockFootprint> block_footprints(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                             uint64_t max_blocks) {
    const uint64_t count = launch.grid.count();
    if (count == 0 || count > max_blocks) return {};
    std::vector<BlockFootprint> blocks(count);
    for (uint64_t b = 0; b < count; ++b) {
        blocks[b].block = b;
        blocks[b].index = block_index(b, launch.grid);
    }
    const KernelBuffer* output = nullptr;
    for (const KernelBuffer& b : buffers)
        if (b.is_output) output = &b;
    std::vector<std::vector<int64_t>> written(count);
    for (const emu::AccessEvent& e : launch.trace) {
        if (e.block >= count) continue;  // not this grid's (a forged report): ignored, never indexed
        BlockFootprint& f = blocks[e.block];
        const bool global = e.space == emu::MemorySpace::Global;
        (global ? (e.is_write ? f.global_writes : f.global_reads) : (e.is_write ? f.shared_writes : f.shared_reads)) += 1;
        if (global && e.is_write && output && e.buffer == output->name) {
            ++f.output_writes;
            written[e.block].push_back(e.index);
        }
    }
    if (fault_has_block(launch.fault)) {
        const uint64_t faulted = linear_block(launch.fault.block, launch.grid);
        if (faulted < count) blocks[faulted].faulted = true;
    }
    if (launch.fault.kind != emu::FaultKind::None)
        for (BlockFootprint& f : blocks) f.stopped = !f.faulted && !f.wrote_output();
    if (launch.counters.unchecked_blocks > 0)  // a sampled launch: the blocks outside the sample ran unchecked
        for (uint64_t b = 0; b < count; ++b)
            if (!emu::block_in_sample(emu::CheckedBlocks::FirstAndLast, b, count)) {
                blocks[b].unchecked = true;
                blocks[b].recorded = false;
            }
    if (launch.trace_truncated) {
        // The log stops somewhere in the last block it has: that block and every later one are unknown.
        uint64_t last = 0;
        for (const emu::AccessEvent& e : launch.trace)
            if (e.block < count) last = std::max<uint64_t>(last, e.block);
        for (uint64_t b = launch.trace.empty() ? 0 : last; b < count; ++b) blocks[b].recorded = false;
    }
    if (!output) return blocks;
    const int64_t numel = output->shape.empty() ? -1 : numel_of(output->shape);
    for (uint64_t b = 0; b < count; ++b) {
        std::vector<int64_t>& w = written[b];
        if (w.empty()) continue;
        blocks[b].written = slice_of(w, *output);
        std::sort(w.begin(), w.end());
        blocks[b].first_written = w.front();
        blocks[b].last_written = w.back();
        const int64_t distinct = std::unique(w.begin(), w.end()) - w.begin();
        blocks[b].wrote_whole_output = numel > 0 && distinct == numel && w.front() == 0 && w[static_cast<size_t>(distinct - 1)] == numel - 1;
    }
    return blocks;
}

bool recording_matches(const BlockRecording& r, const emu::LaunchReport& launch, int case_index, size_t launch_index) {
    return r.usable() && r.case_index == case_index && r.launch == launch_index && r.kernel == launch.kernel &&
           r.grid == launch.grid && r.block < launch.grid.count();
}

emu::LaunchReport with_recorded_blocks(const emu::LaunchReport& launch, int case_index, size_t launch_index,
                                       const std::vector<BlockRecording>& recordings) {
    std::vector<const BlockRecording*> matching;
    for (const BlockRecording& r : recordings)
        if (recording_matches(r, launch, case_index, launch_index)) matching.push_back(&r);
    if (matching.empty()) return launch;
    auto replaced = [&](uint64_t block) {
        return std::any_of(matching.begin(), matching.end(), [&](const BlockRecording* r) { return r->block == block; });
    };
    emu::LaunchReport out = launch;
    out.trace.clear();
    for (const emu::AccessEvent& e : launch.trace)
        if (!replaced(e.block)) out.trace.push_back(e);
    for (const BlockRecording* r : matching)
        for (const emu::AccessEvent& e : r->events)
            if (e.block == r->block) out.trace.push_back(e);  // only its own block: a forged event cannot paint another
    return out;
}

std::vector<BlockFootprint> block_footprints(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                             int case_index, size_t launch_index, const std::vector<BlockRecording>& recordings) {
    std::vector<BlockFootprint> blocks = block_footprints(launch, buffers);
    for (const BlockRecording& r : recordings) {
        if (!recording_matches(r, launch, case_index, launch_index) || r.block >= blocks.size()) continue;
        // The block as its own events show it; the launch's fault and the
        // other blocks' record stay the check's.
        emu::LaunchReport alone;
        alone.kernel = launch.kernel;
        alone.grid = launch.grid;
        alone.block = launch.block;
        alone.fault = launch.fault;
        for (const emu::AccessEvent& e : r.events)
            if (e.block == r.block) alone.trace.push_back(e);
        BlockFootprint f = block_footprints(alone, buffers)[r.block];
        f.recorded = r.complete;
        f.recorded_alone = true;
        blocks[r.block] = std::move(f);
    }
    return blocks;
}

namespace {

// The accesses of one block, of one thread when `thread` >= 0.
std::vector<BufferTouches> accesses(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers, uint64_t block,
                                    int64_t thread) {
    std::vector<BufferTouches> out;
    for (const KernelBuffer& b : buffers) {
        BufferTouches t;
        t.buffer = b.name;
        t.shape = b.shape;
        t.axes = b.axes;
        out.push_back(std::move(t));
    }
    const size_t known = out.size();
    auto slot = [&](const emu::AccessEvent& e) -> BufferTouches& {
        for (size_t i = 0; i < out.size(); ++i) {
            // A global buffer by its name; shared memory never takes a global buffer's slot.
            const bool same_space = i >= known ? out[i].space == e.space : e.space == emu::MemorySpace::Global;
            if (out[i].buffer == e.buffer && same_space) return out[i];
        }
        BufferTouches t;
        t.buffer = e.buffer;
        t.space = e.space;
        out.push_back(std::move(t));
        return out.back();
    };
    size_t order = 0;
    for (const emu::AccessEvent& e : launch.trace) {
        if (e.block != block || (thread >= 0 && e.thread != static_cast<uint64_t>(thread))) continue;
        BufferTouches& t = slot(e);
        ElementTouch touch{e.index, unravel_index(e.index, t.shape), e.line, e.interval, order++, e.thread};
        (e.is_write ? t.writes : t.reads).push_back(std::move(touch));
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const BufferTouches& t) { return t.reads.empty() && t.writes.empty(); }),
              out.end());
    return out;
}

}  // namespace

std::vector<BufferTouches> thread_accesses(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                           uint64_t block, unsigned thread) {
    return accesses(launch, buffers, block, thread);
}

std::vector<BufferTouches> block_accesses(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                          uint64_t block) {
    return accesses(launch, buffers, block, -1);
}

std::vector<ThreadActivity> thread_activity(const emu::LaunchReport& launch, uint64_t block) {
    std::vector<ThreadActivity> out(static_cast<size_t>(std::min<uint64_t>(launch.block.count(), 1u << 16)));
    for (const emu::AccessEvent& e : launch.trace) {
        if (e.block != block || e.thread >= out.size()) continue;
        ++(e.is_write ? out[e.thread].writes : out[e.thread].reads);
    }
    return out;
}

std::string slice_values(const std::vector<AxisSpan>& slice) {
    std::string text;
    for (const AxisSpan& s : slice) {
        if (!text.empty()) text += ",";
        text += std::to_string(s.lo);
        if (s.hi != s.lo) text += "–" + std::to_string(s.hi);
    }
    return text;
}

const std::string& WarpRequest::buffer() const {
    static const std::string none;
    return lanes.empty() ? none : lanes.front().buffer;
}

namespace {

// Fills the request's distinct sectors (global) or wavefronts (shared): as
// the emulator measures them, on the trace's per-buffer sector numbers.
void measure_request(WarpRequest& r) {
    if (r.space == emu::MemorySpace::Global) {
        for (const LaneAccess& l : r.lanes) r.sectors.emplace_back(l.buffer, l.sector);
        std::sort(r.sectors.begin(), r.sectors.end());
        r.sectors.erase(std::unique(r.sectors.begin(), r.sectors.end()), r.sectors.end());
        return;
    }
    // Distinct words per bank; lanes on one word are a broadcast. The word is
    // the element (4-byte floats) of the block's shared memory.
    std::map<uint64_t, std::vector<std::pair<std::string, int64_t>>> words_per_bank;
    for (const LaneAccess& l : r.lanes) {
        auto& words = words_per_bank[l.sector];
        const std::pair<std::string, int64_t> word{l.buffer, l.index};
        if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
    }
    r.wavefronts = 0;
    for (const auto& [bank, words] : words_per_bank) r.wavefronts = std::max(r.wavefronts, static_cast<int>(words.size()));
    r.bank_conflicts = std::max(r.wavefronts - 1, 0);
}

}  // namespace

std::vector<WarpRequest> warp_requests(const emu::LaunchReport& launch, uint64_t block) {
    const uint64_t threads = launch.block.count();
    // Per thread: how many accesses it has made so far at each (space, write, interval, line).
    using LineKey = std::tuple<int, bool, unsigned, int>;
    std::map<unsigned, std::map<LineKey, unsigned>> seen;
    // (warp, space, write, interval, line, nth) -> request
    using RequestKey = std::tuple<unsigned, int, bool, unsigned, int, unsigned>;
    std::map<RequestKey, size_t> where;
    std::vector<WarpRequest> requests;
    for (const emu::AccessEvent& e : launch.trace) {
        if (e.block != block) continue;
        const int space = e.space == emu::MemorySpace::Shared ? 1 : 0;
        const unsigned nth = seen[e.thread][LineKey{space, e.is_write, e.interval, e.line}]++;
        const unsigned warp = e.thread / 32;
        const RequestKey key{warp, space, e.is_write, e.interval, e.line, nth};
        auto it = where.find(key);
        if (it == where.end()) {
            WarpRequest r;
            r.warp = warp;
            r.space = e.space;
            r.is_write = e.is_write;
            r.interval = e.interval;
            r.line = e.line;
            r.nth = nth;
            r.warp_lanes = static_cast<unsigned>(std::min<uint64_t>(32, threads > uint64_t(warp) * 32 ? threads - uint64_t(warp) * 32 : 32));
            it = where.emplace(key, requests.size()).first;
            requests.push_back(std::move(r));
        }
        requests[it->second].lanes.push_back({e.thread % 32, e.buffer, e.index, e.index * 4, e.sector});
    }
    for (WarpRequest& r : requests) {
        std::stable_sort(r.lanes.begin(), r.lanes.end(), [](const LaneAccess& a, const LaneAccess& b) { return a.lane < b.lane; });
        measure_request(r);
    }
    std::stable_sort(requests.begin(), requests.end(), [](const WarpRequest& a, const WarpRequest& b) {
        return std::tie(a.warp, a.interval) < std::tie(b.warp, b.interval);
    });
    return requests;
}

}  // namespace attnlab
