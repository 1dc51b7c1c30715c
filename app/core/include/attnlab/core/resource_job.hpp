#pragma once
// The resource panel's recomputation in the background: when the learner picks
// another GPU architecture, the open CUDA file is compiled again by NVRTC for
// it (compile_resources, out of process) while the window keeps drawing.
// Starting a new one cancels the previous; a cancelled compile never replaces
// a finished report.
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "attnlab/core/gpu_resources.hpp"

namespace attnlab {

class ResourceJob {
public:
    ResourceJob() = default;
    ~ResourceJob();  // cancels and joins
    ResourceJob(const ResourceJob&) = delete;
    ResourceJob& operator=(const ResourceJob&) = delete;

    // Compiles `source` (the learner's .cu text as written) for `arch` on a
    // thread of its own; `key` says what it belongs to (the exercise id).
    void start(std::string key, std::string source, std::string display_name, std::string arch, fs::path work_dir);
    bool running() const { return current_ != nullptr; }
    // Stops the running compile, if any (its report is never collected).
    void cancel();
    // Collects a finished compile (call once per frame; cheap otherwise).
    void poll();
    // The latest finished report and its key (null / "" before the first).
    const std::shared_ptr<const ResourceReport>& result() const { return result_; }
    const std::string& result_key() const { return result_key_; }
    // How many reports have been collected so far (views and tests watch it).
    int generation() const { return generation_; }

private:
    struct Task {
        std::string key;
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        ResourceReport report;  // written by the thread before `done`
        std::thread thread;
    };
    std::unique_ptr<Task> current_;
    std::vector<std::unique_ptr<Task>> retired_;  // cancelled, joined once they stop
    std::shared_ptr<const ResourceReport> result_;
    std::string result_key_;
    int generation_ = 0;
};

}  // namespace attnlab
