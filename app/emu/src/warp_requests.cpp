// A warp's access logs turned into requests, as a GPU issues them
// (attnlab/emu/warp_requests.hpp).
#include "attnlab/emu/warp_requests.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace attnlab::emu {
namespace {

using detail::kLogAddressMask;
using detail::kLogLineShift;
using detail::log_width_class;

// Sorts a handful of values (at most 32) in place and returns how many differ.
int distinct(uint64_t* v, int n) {
    if (!std::is_sorted(v, v + n)) std::sort(v, v + n);  // lane order is often address order
    return int(std::unique(v, v + n) - v);
}

// Where the logged accesses of one warp go: request, unit and partial counts.
struct RequestTally {
    int64_t& requests;
    int64_t& units;     // sectors or wavefronts
    int64_t& partial;   // requests with some lanes absent
    int64_t* wasted = nullptr;  // global requests: sectors beyond what the lanes' bytes fill
    void add(int64_t n_units, int lanes, uint64_t key) {
        ++requests;
        units += n_units;
        if (!wasted) return;
        const int64_t packed = (int64_t(lanes) * (4 << log_width_class(key)) + 31) / 32;
        if (n_units > packed) *wasted += n_units - packed;
    }
};

using LaneLogs = const std::vector<uint64_t>* const*;

// The program order of the sites a diverged warp's lanes ran in one barrier
// interval, for replaying them: the sites' code addresses, corrected where
// the logs themselves say otherwise. A site that some lane ran before
// another, and no lane after it, comes first: a row's head access that the
// compiler laid out after the loop it precedes (`if (lane < head) m = x[0];`
// then a lane-strided loop) is issued before the loop, as the source and a
// GPU's reconverging warp have it, not after every round of it. Sites a lane
// ran in both orders (a loop's body) keep their code addresses' order.
class SiteOrder {
public:
    SiteOrder(LaneLogs logs, int nlanes, ProgramPosition program_position) {
        std::vector<uint8_t> ran_before;  // [a * kMaxCorrected + b]: some lane ran site a, later site b
        std::vector<size_t> first, last;  // per site, in the lane being read: where it first and last ran
        for (int l = 0; l < nlanes; ++l) {
            first.assign(keys_.size(), SIZE_MAX);
            last.assign(keys_.size(), 0);
            uint64_t previous = ~uint64_t(0);
            size_t b = 0;
            for (size_t i = 0; i < logs[l]->size(); ++i) {
                const uint64_t key = (*logs[l])[i] >> kLogLineShift;
                if (key != previous) {  // a loop's body alternates among a few sites: look up only on a change
                    previous = key;
                    b = index_of(key);
                    if (b == keys_.size()) keys_.push_back(key), first.push_back(SIZE_MAX), last.push_back(0);
                }
                if (first[b] == SIZE_MAX) first[b] = i;
                last[b] = i;
            }
            // a ran before b in this lane when a's first run is earlier than b's last
            const size_t n = std::min(keys_.size(), kMaxCorrected);
            ran_before.resize(kMaxCorrected * kMaxCorrected);
            for (size_t a = 0; a < n; ++a)
                for (size_t c = 0; c < n; ++c)
                    if (a != c && first[a] != SIZE_MAX && first[c] != SIZE_MAX && first[a] < last[c]) ran_before[a * kMaxCorrected + c] = 1;
        }
        const size_t n = keys_.size();
        std::vector<size_t> order(n);
        for (size_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return program_position(keys_[a]) < program_position(keys_[b]); });
        if (n > 1 && n <= kMaxCorrected) correct(ran_before, order);
        rank_.resize(n);
        for (size_t i = 0; i < n; ++i) rank_[order[i]] = i;
    }
    uint64_t rank(uint64_t key) const { return rank_[index_of(key)]; }  // key: one of the logs' sites

private:
    static constexpr size_t kMaxCorrected = 64;  // sites per warp and interval; beyond, addresses alone

    size_t index_of(uint64_t key) const {  // keys_.size() when not among them
        return size_t(std::find(keys_.begin(), keys_.end(), key) - keys_.begin());
    }

    // Moves each site before the sites it strictly precedes in the logs.
    static void correct(const std::vector<uint8_t>& ran_before, std::vector<size_t>& order) {
        const size_t n = order.size();
        auto strictly_first = [&](size_t a, size_t b) { return ran_before[a * kMaxCorrected + b] && !ran_before[b * kMaxCorrected + a]; };
        for (size_t pass = 0; pass < n; ++pass) {  // bounded: contradictory logs cannot loop for ever
            bool moved = false;
            for (size_t i = 0; i < n && !moved; ++i)
                for (size_t j = i + 1; j < n && !moved; ++j)
                    if (strictly_first(order[j], order[i])) {
                        std::rotate(order.begin() + long(i), order.begin() + long(j), order.begin() + long(j) + 1);
                        moved = true;
                    }
            if (!moved) return;
        }
    }

    std::vector<uint64_t> keys_;  // the distinct sites, as the logs first name them
    std::vector<uint64_t> rank_;
};

// True when every lane made the same accesses line by line (no divergence):
// then the k-th entries already form the requests.
bool same_lines(LaneLogs logs, int nlanes) {
    const std::vector<uint64_t>& first = *logs[0];
    for (int l = 1; l < nlanes; ++l) {
        const std::vector<uint64_t>& other = *logs[l];
        if (other.size() != first.size()) return false;
        for (size_t k = 0; k < first.size(); ++k)
            if ((other[k] >> kLogLineShift) != (first[k] >> kLogLineShift)) return false;
    }
    return true;
}

// Lanes diverged (a causal loop runs a different number of rounds per lane,
// a strided loop a different number of rows): replay the warp as a GPU runs
// it. Each round issues one instruction (site) for the lanes waiting at it:
// the one earliest in the program among the lanes that may go, where a lane
// that jumps back (a loop's next iteration) waits for the lanes still between
// its target and where it was (the rest of the current iteration), as lanes
// that left a loop early wait at its end for the others. Structured loops and
// branches then pair exactly as on a GPU; at worst (nothing may go) the
// earliest lanes go.
template <class Measure>
void diverged_requests(LaneLogs logs, int nlanes, ProgramPosition program_position, RequestTally t, Measure measure) {
    size_t at[32] = {};
    uint64_t last[32], next[32], key[32];
    bool started[32] = {};
    const SiteOrder order(logs, nlanes, program_position);
    uint64_t cached_key = ~uint64_t(0), cached_position = 0;
    auto position = [&](uint64_t k) {
        if (k != cached_key) cached_key = k, cached_position = order.rank(k);
        return cached_position;
    };
    uint64_t v[32];
    for (;;) {
        int active = 0, l0 = -1;  // l0: the first lane still running
        bool one_site = true;     // every lane still running waits at the same site
        for (int l = 0; l < nlanes; ++l) {
            if (at[l] == logs[l]->size()) continue;
            key[l] = (*logs[l])[at[l]] >> kLogLineShift;
            if (l0 < 0) l0 = l;
            one_site = one_site && key[l] == key[l0];
            ++active;
        }
        if (active == 0) break;
        if (one_site) {  // no lane waits for another: they all go, as the rounds below would decide
            const uint64_t k = key[l0], p = position(k);
            int n = 0;
            for (int l = l0; l < nlanes; ++l) {
                if (at[l] == logs[l]->size()) continue;
                v[n++] = (*logs[l])[at[l]++] & kLogAddressMask;
                last[l] = p;
                started[l] = true;
            }
            if (n < nlanes) ++t.partial;
            t.add(measure(v, n, k), n, k);
            continue;
        }
        for (int l = 0; l < nlanes; ++l)
            if (at[l] < logs[l]->size()) next[l] = position(key[l]);
        uint64_t waiting_at[32];  // the distinct sites lanes wait at (usually one to three)
        int sites = 0;
        for (int l = 0; l < nlanes; ++l)
            if (at[l] < logs[l]->size() && std::find(waiting_at, waiting_at + sites, next[l]) == waiting_at + sites)
                waiting_at[sites++] = next[l];
        auto may_go = [&](int l) {
            if (!started[l] || next[l] > last[l]) return true;  // forward
            for (int i = 0; i < sites; ++i)
                if (waiting_at[i] > next[l] && waiting_at[i] <= last[l]) return false;  // a lane still in this iteration
            return true;
        };
        uint32_t going = 0;  // the lanes that may go this round, decided once each
        for (int l = 0; l < nlanes; ++l)
            if (at[l] < logs[l]->size() && may_go(l)) going |= 1u << l;
        int chosen = -1;
        for (int pass = 0; pass < 2 && chosen < 0; ++pass)
            for (int l = 0; l < nlanes; ++l)
                if (at[l] < logs[l]->size() && (chosen < 0 || next[l] < next[chosen]) && (pass == 1 || (going >> l & 1))) chosen = l;
        const uint64_t k = key[chosen];
        const bool forced = !(going >> chosen & 1);
        int n = 0;
        for (int l = 0; l < nlanes; ++l) {
            if (at[l] == logs[l]->size() || key[l] != k || (!forced && !(going >> l & 1))) continue;
            v[n++] = (*logs[l])[at[l]++] & kLogAddressMask;
            last[l] = next[l];
            started[l] = true;
        }
        if (n < nlanes) ++t.partial;
        t.add(measure(v, n, k), n, k);
    }
}

// Group the k-th access of each lane at one source line into one warp-wide
// request and measure it (sectors or wavefronts).
template <class Measure>
void warp_requests(const WarpLogs& warp, ProgramPosition position, RequestTally t, Measure measure) {
    LaneLogs logs = warp.lanes;
    const int nlanes = warp.count;
    bool any = false;
    for (int l = 0; l < nlanes; ++l) any = any || !logs[l]->empty();
    if (!any) return;
    if (same_lines(logs, nlanes)) {
        uint64_t v[32];
        for (size_t k = 0; k < logs[0]->size(); ++k) {
            for (int l = 0; l < nlanes; ++l) v[l] = (*logs[l])[k] & kLogAddressMask;
            const uint64_t key = (*logs[0])[k] >> kLogLineShift;
            t.add(measure(v, nlanes, key), nlanes, key);
        }
    } else {
        diverged_requests(logs, nlanes, position, t, measure);
    }
}

constexpr int kSectorsPerPageShift = 7;  // 4096 / 32

// Wavefronts of one shared request of 4-byte accesses: the most distinct
// words that fall in one bank. Same word in one bank = broadcast, one pass.
int64_t wavefronts_of_words(uint64_t* v, int n) {
    bool one_row = true;  // all words in one 128-byte row: every bank at most once
    for (int i = 1; i < n && one_row; ++i) one_row = (v[i] >> 5) == (v[0] >> 5);
    if (one_row) return 1;
    const int d = distinct(v, n);
    int per_bank[32] = {0};
    int most = 0;
    for (int i = 0; i < d; ++i) most = std::max(most, ++per_bank[v[i] & 31]);
    return most;
}

// 8- and 16-byte accesses are served in phases of 16 or 8 lanes, as on a GPU
// (a warp's 64- or 128-bit request moves 256 or 512 bytes: two or four
// passes at best); each lane covers 2 or 4 consecutive words.
int64_t wavefronts_of(uint64_t* v, int n, uint64_t key) {
    const unsigned words = 1u << log_width_class(key);  // 1, 2 or 4 words per lane
    if (words == 1) return wavefronts_of_words(v, n);
    const int lanes_per_phase = int(32 / words);
    int64_t total = 0;
    for (int first = 0; first < n; first += lanes_per_phase) {
        uint64_t phase[32];
        int m = 0;
        for (int l = first; l < n && l < first + lanes_per_phase; ++l)
            for (unsigned k = 0; k < words; ++k) phase[m++] = v[l] + k;
        total += wavefronts_of_words(phase, m);
    }
    return total;
}

}  // namespace

bool SectorSet::insert(uint64_t sector) {
    if ((keys_.size() + 1) * 2 > table_.size()) grow();
    const size_t mask = table_.size() - 1;
    for (size_t i = (sector * 0x9E3779B97F4A7C15ull) >> 20 & mask;; i = (i + 1) & mask) {
        if (table_[i] == sector + 1) return false;
        if (table_[i] == 0) {
            table_[i] = sector + 1;
            keys_.push_back(sector);
            return true;
        }
    }
}

void SectorSet::grow() {
    std::vector<uint64_t> keys;
    keys.swap(keys_);
    table_.assign(std::max<size_t>(64, table_.size() * 2), 0);
    for (uint64_t k : keys) insert(k);
}

void SectorSet::clear() {
    if (keys_.size() * 8 < table_.size()) {
        const size_t mask = table_.size() - 1;
        for (uint64_t& k : keys_) {  // first every key's slot (the table intact), then empty them
            size_t i = (k * 0x9E3779B97F4A7C15ull) >> 20 & mask;
            while (table_[i] != k + 1) i = (i + 1) & mask;
            k = i;
        }
        for (uint64_t slot : keys_) table_[slot] = 0;
    } else {
        std::fill(table_.begin(), table_.end(), 0);
    }
    keys_.clear();
}

// The distinct sectors of one global request; their pages and the block's
// footprint are remembered.
int64_t WarpRequestCounter::measure_sectors(uint64_t* v, int n, SectorSet& footprint) {
    bool same = true;
    for (int i = 1; i < n && same; ++i) same = v[i] == v[0];
    const int d = same ? 1 : distinct(v, n);  // v[0..d) are now the distinct sectors
    for (int i = 0; i < d; ++i) {
        footprint.insert(v[i]);
        const uint64_t page = v[i] >> kSectorsPerPageShift;
        if (page == last_page_) continue;
        last_page_ = page;
        pages_.insert(page);
    }
    return d;
}

void WarpRequestCounter::count(AccessLog kind, const WarpLogs& warp, LaunchCounters& c) {
    auto loads = [this](uint64_t* v, int n, uint64_t /*key*/) { return measure_sectors(v, n, block_loads_); };
    auto stores = [this](uint64_t* v, int n, uint64_t /*key*/) { return measure_sectors(v, n, block_stores_); };
    int64_t requests = 0, wavefronts = 0;
    switch (kind) {
    case AccessLog::GlobalLoads:
        return warp_requests(warp, position_, {c.global_load_requests, c.global_load_sectors, c.partial_requests,
                                               &c.global_load_wasted_sectors}, loads);
    case AccessLog::GlobalStores:
        return warp_requests(warp, position_, {c.global_store_requests, c.global_store_sectors, c.partial_requests,
                                               &c.global_store_wasted_sectors}, stores);
    case AccessLog::SharedLoads:
    case AccessLog::SharedStores:
        warp_requests(warp, position_, {requests, wavefronts, c.partial_requests}, wavefronts_of);
        (kind == AccessLog::SharedLoads ? c.shared_load_requests : c.shared_store_requests) += requests;
        c.shared_wavefronts += wavefronts;
        c.shared_bank_conflicts += wavefronts - requests;
        return;
    }
}

int64_t WarpRequestCounter::take_pages() {
    const int64_t n = int64_t(pages_.size());
    pages_.clear();
    last_page_ = ~uint64_t(0);
    return n;
}

int64_t WarpRequestCounter::take_block_sectors(SectorSet& launch_loads, SectorSet& launch_stores) {
    const int64_t footprint = int64_t(block_loads_.size());
    for (uint64_t k : block_loads_.keys()) launch_loads.insert(k);
    for (uint64_t k : block_stores_.keys()) launch_stores.insert(k);
    block_loads_.clear();
    block_stores_.clear();
    return footprint;
}

LaunchCounters count_warp(AccessLog kind, const std::vector<std::vector<uint64_t>>& logs, ProgramPosition position) {
    WarpLogs warp;
    warp.count = int(std::min<size_t>(logs.size(), 32));
    for (int l = 0; l < warp.count; ++l) warp.lanes[l] = &logs[l];
    WarpRequestCounter counter(position);
    LaunchCounters c;
    counter.count(kind, warp, c);
    c.global_pages = counter.take_pages();
    SectorSet loads, stores;
    c.global_load_block_sectors = counter.take_block_sectors(loads, stores);
    c.global_load_unique_sectors = int64_t(loads.size());
    c.global_store_unique_sectors = int64_t(stores.size());
    return c;
}

}  // namespace attnlab::emu
