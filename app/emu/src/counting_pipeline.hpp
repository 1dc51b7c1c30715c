#pragma once
// The access counters of a launch, counted on a second OS thread while the
// scheduler goes on. A closed warp's logs are only read from then on, and
// turning them into requests is pure (attnlab/emu/warp_requests.hpp), so
// close_warp() hands them over (a swap of vectors, no copy) and the next
// warp or block runs meanwhile: on a learner's 2-core machine a checked
// block costs about the longer of its emulation and its counting instead of
// their sum. Jobs are counted in the order they were handed over, so the
// counters are the same as counted inline; with one core they are.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/emu/warp_requests.hpp"
#include "thread_state.hpp"

namespace attnlab::emu::detail {

class CountingPipeline {
public:
    CountingPipeline();
    ~CountingPipeline();  // waits for the counting thread to finish its jobs and stop
    CountingPipeline(const CountingPipeline&) = delete;
    CountingPipeline& operator=(const CountingPipeline&) = delete;

    // Whether jobs go to the counting thread (the default) or are counted
    // at once by the caller; changed only while nothing is handed over.
    void set_beside(bool beside) { beside_ = beside; }

    // Takes the four logs of a warp's `count` lanes (each lane keeps an
    // empty log with room), to be counted in turn.
    void hand_over(ThreadState* const* lanes, int count);
    // A block starts: the pages a failed block left are forgotten.
    void start_block();
    // A block ended: its distinct pages and sectors, after its warps.
    void end_block();
    // Every spare job's logs are left to the process's exit (leave_state_to_exit).
    void leave_spares_to_exit();
    // Waits for every job, then gives the counters since the last take (added
    // to `into`) and the distinct global sectors loaded and stored (swapped
    // into the empty `loaded`, `stored`), and starts over. Returns what went
    // wrong on the counting thread (no memory), or "" when nothing did.
    std::string take(LaunchCounters& into, SectorSet& loaded, SectorSet& stored);

private:
    enum class JobKind { Warp, StartBlock, EndBlock };
    static constexpr int kLogs = 4;  // AccessLog's kinds
    struct Job {
        JobKind kind = JobKind::Warp;
        int lanes = 0;
        size_t entries = 0;  // the logs' total, for the bound on memory held
        std::vector<uint64_t> logs[kLogs][32];
    };
    std::unique_ptr<Job> spare_job();
    void submit(std::unique_ptr<Job> job);
    void run(Job& job);  // on the counting thread (or inline)
    void counting_loop();

    // Touched only by whoever counts: the counting thread, or the caller when
    // there is none (and by take() once every job is done).
    WarpRequestCounter requests_;
    LaunchCounters counted_;
    SectorSet loaded_, stored_;

    std::mutex m_;
    std::condition_variable work_, done_;
    std::deque<std::unique_ptr<Job>> queue_;  // handed over, not counted yet; oldest first
    bool beside_ = true;
    bool busy_ = false, stop_ = false;        // busy_: a job taken off queue_ is being counted
    size_t queued_entries_ = 0;
    std::string failure_;  // the first exception a job threw on the counting thread
    std::vector<std::unique_ptr<Job>> spare_;  // counted jobs, their logs emptied with room kept
    // Not started: one core, or it could not start. A process forked from
    // this one has the object but not the thread: it counts inline there
    // (the pointer is let go, never joined).
    std::unique_ptr<std::thread> thread_;
    long owner_pid_ = 0;  // the process the thread runs in
    bool threaded();      // the thread runs, in this process
};

}  // namespace attnlab::emu::detail
