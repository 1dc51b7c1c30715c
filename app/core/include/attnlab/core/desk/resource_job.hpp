#pragma once
// The resource panel's recomputation in the background: when the learner picks
// another GPU architecture, the open CUDA file is compiled again by NVRTC for
// it (compile_resources, out of process) while the window keeps drawing.
// Starting a new one cancels the previous; a cancelled compile never replaces
// a finished report.
#include <filesystem>
#include <memory>
#include <string>

#include "attnlab/core/base/background_task.hpp"
#include "attnlab/core/check/gpu_resources.hpp"

namespace attnlab {

class ResourceJob {
public:
    // Compiles `source` (the learner's .cu text as written) for `arch` on a
    // thread of its own; `key` says what it belongs to (the exercise id).
    // `weak_sandbox_allowed`: the user's opt-in, for NVRTC's sandbox (Toolchain).
    void start(std::string key, std::string source, std::string display_name, std::string arch, fs::path work_dir,
               bool weak_sandbox_allowed);
    bool running() const { return task_.running(); }
    // Stops the running compile, if any (its report is never collected).
    void cancel() { task_.cancel(); }
    // Collects a finished compile (call once per frame; cheap otherwise).
    void poll();
    // The latest finished report and its key (null / "" before the first).
    const std::shared_ptr<const ResourceReport>& result() const { return result_; }
    const std::string& result_key() const { return result_key_; }
    // How many reports have been collected so far (views and tests watch it).
    int generation() const { return generation_; }

private:
    BackgroundTask<std::string, ResourceReport> task_;  // the request is the key
    std::shared_ptr<const ResourceReport> result_;
    std::string result_key_;
    int generation_ = 0;
};

}  // namespace attnlab
