#pragma once
// The emulator's access counters, as a GPU's memory pipeline counts them: the
// lanes of a warp that execute one load or store instruction together make
// one request; a global request moves 32-byte sectors, a shared request takes
// one wavefront per pass over the 32 banks. Pure: a warp's logs in, counters
// out (no fibers, no scheduler, no globals), so the rules are table-tested on
// synthetic logs (tests/test_emu_counters.cpp) and the scheduler only hands
// each warp's logs over when its lanes meet (a barrier, a warp operation, the
// end of the block).
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/emu/access_log.hpp"

namespace attnlab::emu {

// A set of sector numbers (open addressing, linear probing): the distinct
// sectors a block or a launch touched, for the cache model's footprints.
// Cleared in time proportional to what it holds, so a block's set is reused.
class SectorSet {
public:
    bool insert(uint64_t sector);   // true when it was new
    void clear();
    size_t size() const { return keys_.size(); }
    const std::vector<uint64_t>& keys() const { return keys_; }  // in insertion order
    void swap(SectorSet& other) noexcept { table_.swap(other.table_), keys_.swap(other.keys_); }

private:
    void grow();
    std::vector<uint64_t> table_;   // slot value = sector + 1; 0 = empty
    std::vector<uint64_t> keys_;
};

// The four logs of an emulated thread, each counted on its own.
enum class AccessLog { GlobalLoads, GlobalStores, SharedLoads, SharedStores };

// One warp's log of one kind: lanes[l] is lane l's entries in program order
// (detail::log_entry / log_site_entry), for the `count` lanes that exist (a
// block's last warp may be partial).
struct WarpLogs {
    const std::vector<uint64_t>* lanes[32] = {};
    int count = 0;
};

// Where a log key's instruction sits in the program: lanes that diverged are
// replayed in that order (the emulator: detail::log_program_position).
using ProgramPosition = uint64_t (*)(uint64_t key);

class WarpRequestCounter {
public:
    explicit WarpRequestCounter(ProgramPosition position) : position_(position) {}

    // Adds the requests of one warp's log to `into`: global requests, sectors
    // and wasted sectors (beyond what the lanes' bytes would fill), or shared
    // requests, wavefronts and bank conflicts (wavefronts beyond one per
    // request); and partial requests (lanes absent). The logs are only read.
    void count(AccessLog kind, const WarpLogs& warp, LaunchCounters& into);

    // Distinct 4 KiB pages of global memory the requests counted since the
    // last call touched (a block's locality); starts over.
    int64_t take_pages();

    // The distinct sectors the requests counted since the last call loaded
    // (the block's footprint, returned) and stored, added to the launch's
    // sets; starts over.
    int64_t take_block_sectors(SectorSet& launch_loads, SectorSet& launch_stores);

private:
    int64_t measure_sectors(uint64_t* units, int n, SectorSet& footprint);
    ProgramPosition position_;
    SectorSet block_loads_, block_stores_;
    std::unordered_set<uint64_t> pages_;
    uint64_t last_page_ = ~uint64_t(0);
};

// One synthetic warp of logs[l] for lane l, counted on its own (pages
// included): for tests and tools.
LaunchCounters count_warp(AccessLog kind, const std::vector<std::vector<uint64_t>>& logs, ProgramPosition position);

}  // namespace attnlab::emu
