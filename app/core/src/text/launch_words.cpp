// Launch reports in words: the emulator's codes and numbers (Fault,
// LaunchCounters) turned into sentences through the keyed messages, so one
// translation system serves the whole program.
#include "attnlab/core/text/launch_words.hpp"

#include <cstdio>
#include <map>

#include "attnlab/core/text/named_messages.hpp"
#include "attnlab/core/text/number_format.hpp"

namespace attnlab {
namespace {

using emu::Fault;
using emu::FaultKind;
using emu::LaunchLimits;
using emu::MemorySpace;
using Args = std::map<std::string, std::string>;

std::string num(int64_t v) { return std::to_string(v); }

std::string dim(const emu::Dim3& d) {
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::string on_line(int line, Lang lang) { return line <= 0 ? "" : tr(lang, msg::launch_on_line, {{"line", num(line)}}); }

std::string who(const emu::Dim3& thread, const emu::Dim3& block, Lang lang) {
    return tr(lang, msg::launch_who, {{"thread", dim(thread)}, {"block", dim(block)}});
}

const std::string& did(bool write, Lang lang) { return tr(lang, write ? msg::launch_did_write : msg::launch_did_read); }
const std::string& did_it(bool write, Lang lang) { return tr(lang, write ? msg::launch_did_it_write : msg::launch_did_it_read); }

std::string warp_size() { return num(LaunchLimits::warp_size); }

bool null_pointer(const Fault& f) { return f.space == MemorySpace::Global && f.buffer.empty() && f.size == 0; }

// The place itself, without its size: "global buffer 'k'", "dynamic shared memory"...
std::string place_name(const Fault& f, Lang lang) {
    if (f.space == MemorySpace::Local)  // -fsanitize=bounds names the array by its type only
        return tr(lang, msg::launch_where_local_array, {{"type", f.buffer}});
    if (f.space == MemorySpace::Global) return tr(lang, msg::launch_where_global, {{"name", f.buffer}});
    if (f.buffer == "dynamic shared memory") return tr(lang, msg::launch_where_dynamic_shared);
    if (f.buffer.empty() || f.buffer == "shared array") return tr(lang, msg::launch_where_shared);
    // named by its declaration (attnlab's rewrite of a learner's __shared__ array)
    return tr(lang, msg::launch_where_shared_named, {{"name", f.buffer}});
}

// "global buffer 'k' (1,024 floats, valid indices 0..1023)": the size is a
// count, grouped; an index stays plain digits, as the learner writes it in code.
std::string where(const Fault& f, Lang lang) {
    if (null_pointer(f)) return tr(lang, msg::launch_where_null);
    const bool one = f.size == 1;
    const MessageKey key = f.element_type.empty() ? (one ? msg::launch_where_sized_untyped_one : msg::launch_where_sized_untyped_many)
                                                  : (one ? msg::launch_where_sized_one : msg::launch_where_sized_many);
    return tr(lang, key, {{"place", place_name(f, lang)}, {"n", format_count(f.size, lang)}, {"type", f.element_type}, {"last", num(f.size - 1)}});
}

std::string group_text(const emu::ThreadGroup& g, Lang lang) {
    const MessageKey key = built_key(std::string("launch.group.") + emu::thread_activity_code(g.what) + (g.threads.size() == 1 ? ".one" : ".many"));
    return tr(lang, key, {{"threads", emu::thread_ranges(g.threads)}, {"on_line", on_line(g.line, lang)}});
}

std::string join_groups(const Fault& f, Lang lang) {
    std::string out;
    for (size_t i = 0; i < f.groups.size(); ++i) {
        if (i) out += i + 1 == f.groups.size() ? tr(lang, msg::launch_and) : ", ";
        out += group_text(f.groups[i], lang);
    }
    return out;
}

std::string barrier_text(const Fault& f, Lang lang) {
    return tr(lang, msg::launch_fault_barrier_divergence, {{"block", dim(f.block)}, {"groups", join_groups(f, lang)}});
}

// "0-3, 8, 30-31": the lanes set in a 32-bit mask.
std::string lane_ranges(unsigned mask) {
    std::vector<unsigned> lanes;
    for (unsigned l = 0; l < LaunchLimits::warp_size; ++l)
        if (mask >> l & 1) lanes.push_back(l);
    return emu::thread_ranges(lanes);
}

// A wmma function (f.buffer) called by part of a warp, or from different places.
std::string wmma_text(const Fault& f, Lang lang) {
    const Args where_called{{"function", f.buffer}, {"block", dim(f.block)}, {"on_line", on_line(f.line, lang)}, {"warp_size", warp_size()}};
    if (f.detail == "wmma_diverged") return tr(lang, msg::launch_warp_wmma_diverged, where_called);
    const unsigned present = unsigned(f.index);  // the lanes that called it
    Args args = where_called;
    args.insert({{"count", num(__builtin_popcount(present))}, {"thread", dim(f.thread)}, {"lanes", lane_ranges(present)}});
    return tr(lang, msg::launch_warp_wmma_partial_warp, args);
}

std::string warp_text(const Fault& f, Lang lang) {
    if (f.detail == "wmma_partial_warp" || f.detail == "wmma_diverged") return wmma_text(f, lang);
    const std::string head = tr(lang, msg::launch_warp_head, {{"block", dim(f.block)}, {"on_line", on_line(f.line, lang)}});
    if (f.detail == "bad_width") return tr(lang, msg::launch_warp_bad_width, {{"head", head}, {"warp_size", warp_size()}});
    if (f.detail == "lane_not_in_mask") return tr(lang, msg::launch_warp_lane_not_in_mask, {{"head", head}, {"thread", dim(f.thread)}});
    const Args args{{"head", head}, {"groups", join_groups(f, lang)}};
    if (f.detail == "mismatched_ops")
        return tr(lang, f.groups.empty() ? msg::launch_warp_mismatched_ops : msg::launch_warp_mismatched_ops_groups, args);
    return tr(lang, msg::launch_warp_missing_lanes, args);
}

std::string access_text(const Fault& f, Lang lang) {
    // "indexed": an array's bounds check, made before the access, which may read or write.
    Args args{{"who", who(f.thread, f.block, lang)}, {"did", f.detail == "indexed" ? tr(lang, msg::launch_did_index) : did(f.is_write, lang)},
              {"index", num(f.index)}, {"on_line", on_line(f.line, lang)}};
    if (f.kind == FaultKind::OutOfBounds && f.space == MemorySpace::Shared && f.size == 0) {
        // Only dynamic shared memory can have no elements: the launch gave it no bytes.
        const bool unnamed = f.buffer.empty() || f.buffer == "dynamic shared memory" || f.buffer == "shared array";
        args["place"] = unnamed ? tr(lang, msg::launch_where_dynamic_shared) : tr(lang, msg::launch_where_shared_named, {{"name", f.buffer}});
        return tr(lang, msg::launch_fault_out_of_bounds_no_shared, args);
    }
    args["place"] = where(f, lang);
    if (f.kind == FaultKind::OutOfBounds && f.detail == "freed") return tr(lang, msg::launch_fault_use_after_free, args);
    if (f.kind == FaultKind::OutOfBounds) {
        // An index inside the buffer that faulted: an access wider than an element
        // (a float4, a 16-byte async copy) that starts inside and runs past the end.
        args["past"] = f.index < 0 || null_pointer(f) ? ""
                       : f.index < f.size             ? tr(lang, msg::launch_past_end_wide)
                                                      : tr(lang, msg::launch_past_end, {{"count", num(f.index - f.size + 1)}});
        return tr(lang, msg::launch_fault_out_of_bounds, args);
    }
    return tr(lang, f.space == MemorySpace::Shared ? msg::launch_fault_uninitialized_read_shared : msg::launch_fault_uninitialized_read_global,
              args);
}

// What to do about a race, from where its two accesses are: the earlier
// access on a later line is a load of the next loop round overwriting what
// another thread still reads (a barrier is missing at the end of the loop
// body); two lanes of one warp need __syncwarp, not a __syncthreads that
// would sit inside `if (tid < 32)`.
std::string race_advice(const Fault& f, Lang lang) {
    if (f.detail == "loop_wraparound") {
        const int w = f.is_write ? f.line : f.other_line, r = f.is_write ? f.other_line : f.line;
        return tr(lang, msg::launch_race_loop_wraparound, {{"write_line", num(w)}, {"read_line", num(r)}});
    }
    // (One warp = 32 consecutive x when blocks are 1-D or x is a multiple of 32, as is usual.)
    const unsigned ws = LaunchLimits::warp_size;
    const bool same_warp = f.other_block == f.block && f.thread.y == f.other_thread.y && f.thread.z == f.other_thread.z &&
                           f.thread.x / ws == f.other_thread.x / ws;
    if (same_warp) return tr(lang, msg::launch_race_same_warp, {{"warp_size", warp_size()}});
    if (f.is_write && f.other_is_write) return tr(lang, msg::launch_race_both_write);
    return tr(lang, msg::launch_race_timing);
}

// Both races name the pair: the earlier access (other_*) then the faulting one.
Args race_pair(const Fault& f, Lang lang) {
    return {{"index", num(f.index)},
            {"place", where(f, lang)},
            {"block", dim(f.block)},
            {"thread", dim(f.thread)},
            {"other_block", dim(f.other_block)},
            {"other_thread", dim(f.other_thread)},
            {"first", did_it(f.other_is_write, lang)},
            {"second", did_it(f.is_write, lang)},
            {"on_line", on_line(f.line, lang)},
            {"other_on_line", on_line(f.other_line, lang)},
            {"advice", race_advice(f, lang)}};
}

std::string global_race_text(const Fault& f, Lang lang) {
    const Args pair = race_pair(f, lang);
    const std::string race = tr(lang, msg::launch_global_race_head, pair);
    if (f.other_block == f.block)
        return tr(lang, msg::launch_fault_global_race_same_block, {{"race", race}, {"advice", pair.at("advice")}});
    return tr(lang, msg::launch_fault_global_race_blocks, {{"race", race}});
}

// A wmma load or store: its pointer, or its ldm.
std::string wmma_misaligned_text(const Fault& f, Lang lang) {
    Args args{{"who", who(f.thread, f.block, lang)}, {"function", f.buffer}, {"type", f.element_type}, {"on_line", on_line(f.line, lang)}};
    if (f.detail == "ldm") {
        args["ldm"] = num(f.index);
        args["multiple"] = f.element_type == "float" ? "4" : "8";  // 16 bytes of elements
        return tr(lang, msg::launch_fault_wmma_ldm, args);
    }
    args["offset"] = num(f.index);
    return tr(lang, msg::launch_fault_wmma_misaligned, args);
}

// A wmma rule, or the emulator's check of one access (the buffer, the index
// and the access's width known).
std::string misaligned_text(const Fault& f, Lang lang) {
    if (f.buffer.rfind("wmma::", 0) == 0) return wmma_misaligned_text(f, lang);
    const std::string bytes = f.detail.empty() ? "?" : f.detail;
    const std::string what = tr(lang, msg::launch_misaligned_from_index, {{"bytes", bytes}, {"index", num(f.index)}, {"place", where(f, lang)}});
    return tr(lang, msg::launch_fault_misaligned_address,
              {{"who", who(f.thread, f.block, lang)}, {"did", did(f.is_write, lang)}, {"what", what}, {"bytes", bytes},
               {"on_line", on_line(f.line, lang)}});
}

std::string race_text(const Fault& f, Lang lang) {
    static const NamedMessage kAsync[] = {{"async_copy_not_landed", msg::launch_fault_async_copy_race},
                                          {"async_copy_no_barrier", msg::launch_fault_async_copy_unsynced},
                                          {"async_copy_over_read", msg::launch_fault_async_copy_over_read}};
    const MessageKey* key = message_named(kAsync, f.detail);
    return tr(lang, key ? *key : msg::launch_fault_shared_race, race_pair(f, lang));
}

// The emulator's launch refusals: a code in `detail`, the offending number in
// `size` and the limit in `index`; any other detail is a raw message.
std::string launch_text(const Fault& f, Lang lang) {
    static const NamedMessage kCodes[] = {
        {"empty_launch", msg::launch_invalid_empty_launch},
        {"block_too_large", msg::launch_invalid_block_too_large},
        {"grid_too_large", msg::launch_invalid_grid_too_large},
        {"shared_too_large", msg::launch_invalid_shared_too_large},
        {"shared_static_too_large", msg::launch_invalid_shared_static_too_large},
        {"shared_needs_opt_in", msg::launch_invalid_shared_needs_opt_in},
        {"shared_above_arch", msg::launch_invalid_shared_above_arch},
        {"too_many_registers", msg::launch_invalid_too_many_registers},
        {"nested_launch", msg::launch_invalid_nested_launch},
        {"launch_bounds_exceeded", msg::launch_invalid_launch_bounds_exceeded}};
    std::string why = f.detail;
    if (const MessageKey* key = message_named(kCodes, f.detail))
        why = tr(lang, *key,
                 {{"n", num(f.size)},
                  {"limit", num(f.index)},
                  {"max_xy", num(LaunchLimits::max_block_xy)},
                  {"max_z", num(LaunchLimits::max_block_z)},
                  {"bound_line", on_line(f.other_line, lang)}});
    return tr(lang, msg::launch_fault_invalid_launch, {{"why", why}, {"on_line", on_line(f.line, lang)}});
}

std::string thread_fault_text(MessageKey key, const Fault& f, Lang lang) {
    return tr(lang, key, {{"thread", dim(f.thread)}, {"block", dim(f.block)}, {"on_line", on_line(f.line, lang)}, {"detail", f.detail}});
}

std::string fault_text(const Fault& f, Lang lang) {
    switch (f.kind) {
    case FaultKind::None: return "";
    case FaultKind::BarrierDivergence: return barrier_text(f, lang);
    case FaultKind::WarpDivergence: return warp_text(f, lang);
    case FaultKind::OutOfBounds:
    case FaultKind::UninitializedRead: return access_text(f, lang);
    case FaultKind::SharedRace: return race_text(f, lang);
    case FaultKind::GlobalRace: return global_race_text(f, lang);
    case FaultKind::MisalignedAddress: return misaligned_text(f, lang);
    case FaultKind::DeviceAssert: return thread_fault_text(msg::launch_fault_device_assert, f, lang);
    case FaultKind::InvalidLaunch: return launch_text(f, lang);
    case FaultKind::StepLimit: return thread_fault_text(msg::launch_fault_step_limit, f, lang);
    case FaultKind::KernelException: return thread_fault_text(msg::launch_fault_kernel_exception, f, lang);
    }
    return "";
}

}  // namespace

std::string fault_name(const std::string& code, Lang lang) {
    const std::string key = "fault.name." + code;
    return has_message(lang, key) ? tr(lang, built_key(key)) : code;
}

std::string describe_fault(const Fault& f, Lang lang) {
    if (f.kind == FaultKind::None) return "";
    const std::string tool = emu::sanitizer_tool(f.kind);
    return (tool == "launch" ? "" : tool + ": ") + tr(lang, msg::launch_fault_stopped, {{"text", fault_text(f, lang)}});
}

std::string describe_counters(const emu::LaunchCounters& c, Lang lang) {
    const auto count = [lang](int64_t n) { return format_count(n, lang); };  // counts reach millions: grouped
    const std::string ratio_loads = format_fixed(c.sectors_per_load_request(), 2, lang);
    const std::string ratio_stores = format_fixed(c.sectors_per_store_request(), 2, lang);
    return tr(lang, msg::launch_counters_global_loads,
              {{"requests", count(c.global_load_requests)}, {"sectors", count(c.global_load_sectors)}, {"ratio", ratio_loads}}) +
           "\n" +
           tr(lang, msg::launch_counters_global_stores,
              {{"requests", count(c.global_store_requests)}, {"sectors", count(c.global_store_sectors)}, {"ratio", ratio_stores}}) +
           "\n" +
           tr(lang, msg::launch_counters_shared,
              {{"loads", count(c.shared_load_requests)},
               {"stores", count(c.shared_store_requests)},
               {"wavefronts", count(c.shared_wavefronts)},
               {"conflicts", count(c.shared_bank_conflicts)}}) +
           "\n" +
           tr(lang, msg::launch_counters_sync,
              {{"barriers", count(c.barriers)}, {"warp_syncs", count(c.warp_syncs)}, {"partial", count(c.partial_requests)}}) +
           "\n" +
           tr(lang, msg::launch_counters_bytes,
              {{"read", count(c.global_bytes_read)},
               {"written", count(c.global_bytes_written)},
               {"atomics", count(c.global_atomics)},
               {"pages", count(c.global_pages)}}) +
           "\n";
}

std::string describe_launch(const emu::LaunchReport& r, Lang lang) {
    std::string out = r.kernel + "<<<" + dim(r.grid) + ", " + dim(r.block) + ", " + std::to_string(r.dynamic_shared_bytes) +
                      ">>>: " + tr(lang, r.ok() ? msg::launch_completed : msg::launch_stopped) + "\n";
    if (!r.ok()) out += describe_fault(r.fault, lang) + "\n";
    return out + describe_counters(r.counters, lang);
}

std::string kernel_layout_text(const std::string& kernel, Lang lang) {
    static const NamedMessage kLayouts[] = {
        {"split_heads_v1", msg::gui_kernel_layout_split_heads_v1},
        {"merge_heads_v1", msg::gui_kernel_layout_merge_heads_v1},
        {"matmul_tiled_v1", msg::gui_kernel_layout_matmul_tiled_v1},
        {"attention_v1", msg::gui_kernel_layout_attention_v1},
        {"attention_v2", msg::gui_kernel_layout_attention_v2},
    };
    const MessageKey* key = message_named(kLayouts, kernel);
    return key ? tr(lang, *key) : "";
}

}  // namespace attnlab
