#include "attnlab/core/resource_job.hpp"

#include <algorithm>

#include "attnlab/core/cuda_source.hpp"

namespace attnlab {

ResourceJob::~ResourceJob() {
    if (current_) retired_.push_back(std::move(current_));
    for (auto& t : retired_) t->cancel.store(true);
    for (auto& t : retired_)
        if (t->thread.joinable()) t->thread.join();
}

void ResourceJob::cancel() {
    if (!current_) return;
    current_->cancel.store(true);
    // Joined later by poll(): joining here would wait on the GUI's thread.
    retired_.push_back(std::move(current_));
}

void ResourceJob::start(std::string key, std::string source, std::string display_name, std::string arch, fs::path work_dir) {
    cancel();
    auto task = std::make_unique<Task>();
    task->key = std::move(key);
    Task* t = task.get();
    t->thread = std::thread([t, source = std::move(source), display_name = std::move(display_name), arch = std::move(arch),
                             work_dir = std::move(work_dir)] {
        // Nothing may escape a thread (std::terminate would end the window).
        try {
            t->report = compile_resources(cuda_source::for_nvrtc(source), display_name,
                                          {{"attnlab/cuda.hpp", cuda_source::nvrtc_prelude()}}, arch, work_dir, &t->cancel);
        } catch (const std::exception& e) {
            t->report = ResourceReport{};
            t->report.arch = arch;
            t->report.log = e.what();
        }
        t->done.store(true);
    });
    current_ = std::move(task);
}

void ResourceJob::poll() {
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](std::unique_ptr<Task>& t) {
                                      if (!t->done.load()) return false;
                                      t->thread.join();
                                      return true;
                                  }),
                   retired_.end());
    if (!current_ || !current_->done.load()) return;
    current_->thread.join();
    if (!current_->report.cancelled) {
        result_ = std::make_shared<const ResourceReport>(std::move(current_->report));
        result_key_ = current_->key;
        ++generation_;
    }
    current_.reset();
}

}  // namespace attnlab
