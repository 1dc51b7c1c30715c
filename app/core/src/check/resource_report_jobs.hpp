#pragma once
// The check's NVRTC reports (registers, shared memory, spills per kernel),
// each compiled on a thread of its own while the host compiler and the run
// take theirs. At most `max_running` compile at once: a course check starts
// one per file faster than NVRTC finishes them, and every NVRTC process wants
// a core and a few hundred MB. The others wait their turn; a stopped one
// never starts. Internal to the runner (runner.cpp).
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/core/check/gpu_resources.hpp"

namespace attnlab {

// NVRTC's report on a CUDA file, while it is being compiled.
using PendingResources = std::shared_future<std::shared_ptr<const ResourceReport>>;

class ResourceReportJobs {
public:
    // `weak_sandbox_allowed`: the user's opt-in, for NVRTC's sandbox (Toolchain).
    ResourceReportJobs(fs::path work_dir, unsigned max_running, bool weak_sandbox_allowed);
    ~ResourceReportJobs();  // stops the compiles still running or waiting, and joins them
    ResourceReportJobs(const ResourceReportJobs&) = delete;
    ResourceReportJobs& operator=(const ResourceReportJobs&) = delete;

    // The report on `source` for `arch`: at once when this file was reported
    // before for that architecture, else when its compile ends. `stop` set:
    // the compile is abandoned (its report says so). `gate`, when valid, is
    // waited for before the compile starts (a test holds NVRTC back).
    PendingResources start(const std::string& source, const std::string& display_name, const std::string& arch,
                           std::shared_ptr<std::atomic<bool>> stop, std::shared_future<void> gate = {});
    // The most compiles that ever ran at once (tests read it).
    unsigned peak_running() const;

private:
    // Blocks until a compile may run, or `stop` is set (false: do not run).
    bool acquire_slot(const std::atomic<bool>& stop);
    void release_slot();
    void keep(const std::string& key, const std::shared_ptr<const ResourceReport>& report);
    void join_finished();  // with threads_mutex_ held

    const fs::path work_dir_;
    const unsigned max_running_;
    const bool weak_sandbox_allowed_;
    mutable std::mutex slots_mutex_;
    std::condition_variable slot_freed_;
    unsigned running_ = 0, peak_running_ = 0;
    bool closing_ = false;  // the destructor: no waiting compile starts
    std::mutex cache_mutex_;
    std::map<std::string, std::shared_ptr<const ResourceReport>> cache_;  // arch/file/hash of the NVRTC source -> report
    struct Job {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> stop;
        PendingResources report;  // ready once the thread is about to return
    };
    std::mutex threads_mutex_;
    std::vector<Job> threads_;
};

}  // namespace attnlab
