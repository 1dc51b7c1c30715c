// The emulator's access counters on synthetic warps (attnlab/emu/warp_requests.hpp):
// which lane accessed which address, how wide, at which instruction, and the
// requests, sectors, wavefronts and bank conflicts a GPU's memory pipeline
// counts for them, computed by hand. No kernel runs: the logs are written
// here as the emulator's checked accesses write them.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "attnlab/emu/warp_requests.hpp"

using namespace attnlab::emu;

namespace {

// One access of one lane: the instruction (site) it is, its byte address and size.
struct Access {
    unsigned site;
    uint64_t address;
    unsigned size = 4;
};
using Lanes = std::vector<std::vector<Access>>;  // lane l's accesses in program order

// The instructions' order in the program is their site number here (the
// emulator asks the learner's code addresses).
uint64_t site_order(uint64_t key) { return key & 0xffff; }

bool is_global(AccessLog kind) { return kind == AccessLog::GlobalLoads || kind == AccessLog::GlobalStores; }

// The logs as raw_access.cpp writes them: the site with its width class, and
// the 32-byte sector (global) or 4-byte word (shared) the access starts in.
LaunchCounters count(AccessLog kind, const Lanes& lanes) {
    std::vector<std::vector<uint64_t>> logs(lanes.size());
    for (size_t l = 0; l < lanes.size(); ++l)
        for (const Access& a : lanes[l]) {
            const unsigned width_class = a.size >= 16 ? 2 : a.size >= 8 ? 1 : 0;
            const uint64_t unit = is_global(kind) ? a.address >> 5 : a.address >> 2;
            logs[l].push_back(attnlab::emu::detail::log_site_entry(a.site, width_class, unit));
        }
    return count_warp(kind, logs, site_order);
}

// Every lane of an n-lane warp making one access at site 1.
Lanes one_access(int n, const std::function<uint64_t(int)>& address, unsigned size = 4) {
    Lanes lanes(n);
    for (int l = 0; l < n; ++l) lanes[l].push_back({1, address(l), size});
    return lanes;
}

constexpr uint64_t kBase = 0x10000;  // page- and sector-aligned

}  // namespace

TEST_CASE("global loads: sectors per request and wasted sectors") {
    struct Row {
        const char* what;
        std::function<uint64_t(int)> address;
        unsigned size;
        int64_t sectors, wasted, pages;
    };
    const Row rows[] = {
        // 32 lanes x 4 bytes = 128 contiguous bytes: 4 sectors, all of them used.
        {"coalesced float", [](int l) { return kBase + 4 * l; }, 4, 4, 0, 1},
        // Every other float: 256 bytes spanned, half of each sector unused.
        {"stride-2 float", [](int l) { return kBase + 8 * l; }, 4, 8, 4, 1},
        // One row of a 32-float-wide matrix per lane: each lane its own sector.
        {"stride-32 float (a column)", [](int l) { return kBase + 128 * l; }, 4, 32, 28, 1},
        // Every lane the same float: one sector; fewer than 4 is never waste.
        {"broadcast", [](int) { return kBase + 12; }, 4, 1, 0, 1},
        // float4: 512 contiguous bytes, 16 sectors, none wasted.
        {"coalesced float4", [](int l) { return kBase + 16 * l; }, 16, 16, 0, 1},
        // float2: 256 bytes, 8 sectors, none wasted.
        {"coalesced float2", [](int l) { return kBase + 8 * l; }, 8, 8, 0, 1},
        // One page per lane.
        {"stride of a page", [](int l) { return kBase + 4096 * uint64_t(l); }, 4, 32, 28, 32},
        // Shifted by one float: 128 bytes over 5 sectors, one more than needed.
        {"misaligned by a float", [](int l) { return kBase + 4 + 4 * l; }, 4, 5, 1, 1},
    };
    for (const Row& r : rows) {
        CAPTURE(r.what);
        const LaunchCounters c = count(AccessLog::GlobalLoads, one_access(32, r.address, r.size));
        CHECK(c.global_load_requests == 1);
        CHECK(c.global_load_sectors == r.sectors);
        CHECK(c.global_load_wasted_sectors == r.wasted);
        CHECK(c.global_pages == r.pages);
        CHECK(c.partial_requests == 0);
        CHECK(c.global_store_requests == 0);
        CHECK(c.shared_wavefronts == 0);
    }
}

TEST_CASE("global stores count on the store side") {
    const LaunchCounters c = count(AccessLog::GlobalStores, one_access(32, [](int l) { return kBase + 8 * l; }));
    CHECK(c.global_store_requests == 1);
    CHECK(c.global_store_sectors == 8);
    CHECK(c.global_store_wasted_sectors == 4);
    CHECK(c.global_load_requests == 0);
    CHECK(c.global_load_sectors == 0);
}

TEST_CASE("shared memory: wavefronts and bank conflicts") {
    struct Row {
        const char* what;
        std::function<uint64_t(int)> address;
        unsigned size;
        int64_t wavefronts;
    };
    const Row rows[] = {
        // Word l in bank l: one pass.
        {"consecutive floats", [](int l) { return 4 * l; }, 4, 1},
        // One word for every lane: a broadcast, one pass.
        {"broadcast", [](int) { return 40; }, 4, 1},
        // Words 0, 2, ..., 62: lanes l and l + 16 share bank 2l mod 32 with different words.
        {"2-way conflict (stride 2)", [](int l) { return 8 * l; }, 4, 2},
        // Words 0, 32, 64, ...: every lane in bank 0, each a different word.
        {"32-way conflict (stride 32)", [](int l) { return 128 * l; }, 4, 32},
        // Stride 3 is odd: every bank once.
        {"stride 3", [](int l) { return 12 * l; }, 4, 1},
        // Two lanes per word, 16 words in one row: broadcast within each bank.
        {"pairs on one word", [](int l) { return 4 * (l / 2); }, 4, 1},
        // float4: served in 4 phases of 8 lanes, each phase one row of 32 banks.
        {"consecutive float4", [](int l) { return 16 * l; }, 16, 4},
        // float2: 2 phases of 16 lanes.
        {"consecutive float2", [](int l) { return 8 * l; }, 8, 2},
        // float4 with a stride of two float4s: each 8-lane phase spans 2 rows, 2 passes each.
        {"stride-2 float4", [](int l) { return 32 * l; }, 16, 8},
    };
    for (const Row& r : rows) {
        CAPTURE(r.what);
        const LaunchCounters c = count(AccessLog::SharedLoads, one_access(32, r.address, r.size));
        CHECK(c.shared_load_requests == 1);
        CHECK(c.shared_wavefronts == r.wavefronts);
        CHECK(c.shared_bank_conflicts == r.wavefronts - 1);  // passes beyond one per request
        CHECK(c.shared_store_requests == 0);
        CHECK(c.global_load_requests == 0);
        CHECK(c.global_pages == 0);
    }
}

TEST_CASE("shared stores count on the store side, conflicts in the same total") {
    const LaunchCounters c = count(AccessLog::SharedStores, one_access(32, [](int l) { return 8 * l; }));
    CHECK(c.shared_store_requests == 1);
    CHECK(c.shared_load_requests == 0);
    CHECK(c.shared_wavefronts == 2);
    CHECK(c.shared_bank_conflicts == 1);
}

TEST_CASE("a partial warp (a block of 8 threads) is one full request of its lanes") {
    const LaunchCounters c = count(AccessLog::GlobalLoads, one_access(8, [](int l) { return kBase + 4 * l; }));
    CHECK(c.global_load_requests == 1);
    CHECK(c.global_load_sectors == 1);
    CHECK(c.global_load_wasted_sectors == 0);
    CHECK(c.partial_requests == 0);  // every lane that exists took part
}

TEST_CASE("lanes in step: the k-th access of every lane is one request") {
    Lanes lanes(32);
    for (int l = 0; l < 32; ++l) {
        lanes[l].push_back({1, kBase + 4 * uint64_t(l)});          // q[l]: coalesced
        lanes[l].push_back({2, kBase + 4096 + 128 * uint64_t(l)});  // k[l][0]: a column
    }
    const LaunchCounters c = count(AccessLog::GlobalLoads, lanes);
    CHECK(c.global_load_requests == 2);
    CHECK(c.global_load_sectors == 4 + 32);
    CHECK(c.global_load_wasted_sectors == 28);
    CHECK(c.global_pages == 2);
    CHECK(c.partial_requests == 0);
}

TEST_CASE("a diverged warp is replayed in rounds, as a GPU runs it") {
    // A causal loop: lanes 0-15 run its load (site 1) twice, lanes 16-31
    // once, then every lane loads at site 2 after the loop. Pairing the k-th
    // entries would join lanes 0-15's second loop load with lanes 16-31's
    // load after the loop; a GPU issues three instructions instead:
    //   round 1: site 1, all 32 lanes    (128 bytes: 4 sectors)
    //   round 2: site 1, lanes 0-15      (64 bytes: 2 sectors, partial)
    //   round 3: site 2, all 32 lanes    (the early lanes waited at the loop's end: 4 sectors)
    Lanes lanes(32);
    for (int l = 0; l < 32; ++l) {
        lanes[l].push_back({1, kBase + 4 * uint64_t(l)});
        if (l < 16) lanes[l].push_back({1, kBase + 512 + 4 * uint64_t(l)});
        lanes[l].push_back({2, kBase + 1024 + 4 * uint64_t(l)});
    }
    const LaunchCounters c = count(AccessLog::GlobalLoads, lanes);
    CHECK(c.global_load_requests == 3);
    CHECK(c.partial_requests == 1);
    CHECK(c.global_load_sectors == 4 + 2 + 4);
    CHECK(c.global_load_wasted_sectors == 0);
}

TEST_CASE("a branch taken by half the warp: each side its own partial request") {
    // if (lane < 16) load a (site 1) else load b (site 2): two instructions,
    // each for 16 lanes, in program order.
    Lanes lanes(32);
    for (int l = 0; l < 32; ++l) lanes[l].push_back({l < 16 ? 1u : 2u, kBase + 4 * uint64_t(l)});
    const LaunchCounters c = count(AccessLog::GlobalLoads, lanes);
    CHECK(c.global_load_requests == 2);
    CHECK(c.partial_requests == 2);
    CHECK(c.global_load_sectors == 2 + 2);
}

TEST_CASE("a diverged shared loop: conflicts counted per round") {
    // Lanes 0-7 run a stride-32 loop body twice, the others once.
    Lanes lanes(32);
    for (int l = 0; l < 32; ++l) {
        lanes[l].push_back({1, 128 * uint64_t(l)});           // 32-way conflict
        if (l < 8) lanes[l].push_back({1, 4 + 128 * uint64_t(l)});  // 8 lanes in bank 1: 8-way
    }
    const LaunchCounters c = count(AccessLog::SharedLoads, lanes);
    CHECK(c.shared_load_requests == 2);
    CHECK(c.partial_requests == 1);
    CHECK(c.shared_wavefronts == 32 + 8);
    CHECK(c.shared_bank_conflicts == 31 + 7);
}

TEST_CASE("no accesses: no requests") {
    const LaunchCounters c = count(AccessLog::GlobalLoads, Lanes(32));
    CHECK(c.global_load_requests == 0);
    CHECK(c.partial_requests == 0);
    CHECK(c.global_pages == 0);
}

TEST_CASE("one counter over several warps: pages are the distinct ones of all") {
    std::vector<std::vector<uint64_t>> a(32), b(32);
    for (int l = 0; l < 32; ++l) {
        a[l].push_back(attnlab::emu::detail::log_site_entry(1, 0, (kBase + 4 * uint64_t(l)) >> 5));
        b[l].push_back(attnlab::emu::detail::log_site_entry(1, 0, (kBase + 4096 + 4 * uint64_t(l)) >> 5));
    }
    WarpRequestCounter counter(site_order);
    LaunchCounters c;
    for (const auto* logs : {&a, &b, &a}) {
        WarpLogs warp;
        warp.count = 32;
        for (int l = 0; l < 32; ++l) warp.lanes[l] = &(*logs)[l];
        counter.count(AccessLog::GlobalLoads, warp, c);
    }
    CHECK(c.global_load_requests == 3);
    CHECK(c.global_load_sectors == 12);
    CHECK(counter.take_pages() == 2);
    CHECK(counter.take_pages() == 0);  // started over
}

TEST_CASE("the cache model's footprints: a block's distinct sectors, and the launch's") {
    // Two warps of one block read the same 4 sectors (a tile they share), then store 4 others.
    std::vector<std::vector<uint64_t>> loads(32), stores(32);
    for (int l = 0; l < 32; ++l) {
        loads[l].push_back(attnlab::emu::detail::log_site_entry(1, 0, (kBase + 4 * uint64_t(l)) >> 5));
        stores[l].push_back(attnlab::emu::detail::log_site_entry(2, 0, (kBase + 4096 + 4 * uint64_t(l)) >> 5));
    }
    WarpRequestCounter counter(site_order);
    LaunchCounters c;
    WarpLogs warp;
    warp.count = 32;
    for (int l = 0; l < 32; ++l) warp.lanes[l] = &loads[l];
    counter.count(AccessLog::GlobalLoads, warp, c);
    counter.count(AccessLog::GlobalLoads, warp, c);
    for (int l = 0; l < 32; ++l) warp.lanes[l] = &stores[l];
    counter.count(AccessLog::GlobalStores, warp, c);
    CHECK(c.global_load_sectors == 8);  // requested twice
    SectorSet launch_loads, launch_stores;
    CHECK(counter.take_block_sectors(launch_loads, launch_stores) == 4);  // the block's footprint: each sector once
    CHECK(launch_loads.size() == 4);
    CHECK(launch_stores.size() == 4);
    // A second block reading the same tile adds nothing to the launch's distinct sectors.
    for (int l = 0; l < 32; ++l) warp.lanes[l] = &loads[l];
    counter.count(AccessLog::GlobalLoads, warp, c);
    CHECK(counter.take_block_sectors(launch_loads, launch_stores) == 4);
    CHECK(launch_loads.size() == 4);
    CHECK(counter.take_block_sectors(launch_loads, launch_stores) == 0);  // started over
    // count_warp fills the same counters for one synthetic warp.
    const LaunchCounters one = count(AccessLog::GlobalLoads, one_access(32, [](int l) { return kBase + 4 * uint64_t(l % 8); }));
    CHECK(one.global_load_sectors == 1);
    CHECK(one.global_load_block_sectors == 1);
    CHECK(one.global_load_unique_sectors == 1);
}

TEST_CASE("a sector set: insertion, membership, growth and clearing") {
    SectorSet s;
    for (uint64_t k = 0; k < 1000; ++k) CHECK(s.insert(k * 7919));
    for (uint64_t k = 0; k < 1000; ++k) CHECK_FALSE(s.insert(k * 7919));
    CHECK(s.size() == 1000);
    s.clear();
    CHECK(s.size() == 0);
    CHECK(s.insert(0));
    CHECK(s.insert(7919));
    CHECK_FALSE(s.insert(0));
    s.clear();  // few keys in a large table: emptied slot by slot
    for (uint64_t k = 0; k < 1000; ++k) CHECK(s.insert(k * 7919));
}

TEST_CASE("a head access laid out after the loop it precedes is issued before the loop, as the logs show") {
    // if (lane < head) m = x[0]; then for (i = lane; i < n2; i += 32) ... x2[i]:
    // lane 0 runs the head load (site 7) and then four float2 loop loads
    // (site 5), the other lanes the loop loads alone. The head's code sits
    // after the loop's (site 7 > 5), but no lane ran the loop before the head:
    // a GPU issues the head (lane 0 alone) and then four rounds of the loop
    // for all 32 lanes, 5 requests; replaying by code address alone issued
    // every round twice (lanes 1-31, then lane 0 after its head).
    Lanes lanes(32);
    for (int l = 0; l < 32; ++l) {
        if (l == 0) lanes[l].push_back({7, kBase});
        for (int it = 0; it < 4; ++it) lanes[l].push_back({5, kBase + 8 + 8 * uint64_t(l + 32 * it), 8});
    }
    const LaunchCounters c = count(AccessLog::GlobalLoads, lanes);
    CHECK(c.global_load_requests == 5);
    CHECK(c.partial_requests == 1);  // the head's
    // A loop body (its two sites run in both orders, so the code's order
    // stands) still pairs round by round, a causal loop's extra round partial.
    Lanes loop(32);
    for (int l = 0; l < 32; ++l) {
        for (int it = 0; it < (l < 16 ? 2 : 1); ++it) {
            loop[l].push_back({3, kBase + 4 * uint64_t(l)});
            loop[l].push_back({2, kBase + 4096 + 4 * uint64_t(l)});
        }
    }
    const LaunchCounters d = count(AccessLog::GlobalLoads, loop);
    CHECK(d.global_load_requests == 4);  // (3, 2) for all lanes, then (3, 2) for lanes 0-15
    CHECK(d.partial_requests == 2);
}
