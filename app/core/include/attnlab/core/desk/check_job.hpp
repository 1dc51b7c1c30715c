#pragma once
// Checks in the background: what the GUI and `attnlab watch` use.
// A CheckJob runs one check on its own thread, reports progress, and can be
// cancelled at any moment (the sandbox then kills the whole process tree).
// A CheckScheduler keeps at most one job per exercise: starting a new check of
// the same exercise cancels the previous one.
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "attnlab/core/check/runner.hpp"

namespace attnlab {

class CheckJob {
public:
    // Starts immediately. `exercise` is copied, so the course may change meanwhile.
    // `gpu_arch`: what a CUDA file's NVRTC report is for (CheckControl::gpu_arch).
    CheckJob(Runner& runner, Exercise exercise, std::string source, std::string display_name,
             std::string gpu_arch = CheckControl{}.gpu_arch);
    ~CheckJob();  // cancels and joins
    CheckJob(const CheckJob&) = delete;
    CheckJob& operator=(const CheckJob&) = delete;

    CheckProgress progress() const;
    bool done() const { return done_.load(); }
    void cancel() { cancel_.store(true); }
    bool cancel_requested() const { return cancel_.load(); }
    // Blocks until done; returns the result.
    const CheckResult& wait();
    // Waits at most `ms`; true when done.
    bool wait_for(int ms);
    // Only valid once done().
    const CheckResult& result() const { return result_; }
    const std::string& exercise_id() const { return exercise_.id; }
    // What was checked, as it was checked (the Kernel view re-runs it to record a block).
    const std::string& source() const { return source_; }
    const std::string& display_name() const { return display_name_; }
    const std::string& gpu_arch() const { return gpu_arch_; }

private:
    Runner& runner_;
    Exercise exercise_;
    std::string source_;
    std::string display_name_;
    std::string gpu_arch_;
    std::atomic<bool> cancel_{false};
    std::atomic<bool> done_{false};
    mutable std::mutex mu_;
    std::condition_variable cv_;
    CheckProgress progress_;
    CheckResult result_;
    std::thread thread_;
};

class CheckScheduler {
public:
    explicit CheckScheduler(Runner& runner) : runner_(runner) {}
    // Cancels a running check of the same exercise, then starts this one.
    std::shared_ptr<CheckJob> start(const Exercise& exercise, std::string source, std::string display_name,
                                    std::string gpu_arch = CheckControl{}.gpu_arch);
    std::shared_ptr<CheckJob> current(const std::string& exercise_id) const;
    // The latest jobs that have finished, of every exercise, removed from the
    // scheduler (a job replaced by a newer one of its exercise is not among them).
    std::vector<std::shared_ptr<CheckJob>> take_finished();
    void cancel_all();

private:
    Runner& runner_;
    mutable std::mutex mu_;
    std::map<std::string, std::shared_ptr<CheckJob>> jobs_;
    std::vector<std::shared_ptr<CheckJob>> retired_;      // cancelled, still stopping
    std::vector<std::shared_ptr<CheckJob>> uncollected_;  // finished, then replaced before take_finished()
};

}  // namespace attnlab
