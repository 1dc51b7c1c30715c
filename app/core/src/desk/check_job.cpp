#include "attnlab/core/desk/check_job.hpp"

#include <algorithm>
#include <chrono>

namespace attnlab {

CheckJob::CheckJob(Runner& runner, Exercise exercise, std::string source, std::string display_name, std::string gpu_arch)
    : runner_(runner),
      exercise_(std::move(exercise)),
      source_(std::move(source)),
      display_name_(std::move(display_name)),
      gpu_arch_(std::move(gpu_arch)) {
    progress_.case_count = static_cast<int>(exercise_.cases.size());
    thread_ = std::thread([this] {
        CheckControl control;
        control.cancel = &cancel_;
        control.gpu_arch = gpu_arch_;
        control.trace_kernels = true;  // the window's Kernel view draws every block's accesses
        control.on_progress = [this](const CheckProgress& p) {
            std::lock_guard<std::mutex> lock(mu_);
            progress_ = p;
        };
        CheckResult r;
        try {
            r = runner_.check_source(exercise_, source_, display_name_, control);
        } catch (const std::exception& e) {
            // A full disk or an unwritable cache must not take the window
            // (and the learner's unsaved buffer) down with this thread.
            r.exercise_id = exercise_.id;
            r.verdict = Verdict::InternalError;
            r.problem = Problem::CannotPrepareRun;
            r.detail = e.what();
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            result_ = std::move(r);
            progress_.phase = Phase::Done;
            done_.store(true);
        }
        cv_.notify_all();
    });
}

CheckJob::~CheckJob() {
    cancel();
    if (thread_.joinable()) thread_.join();
}

CheckProgress CheckJob::progress() const {
    std::lock_guard<std::mutex> lock(mu_);
    return progress_;
}

const CheckResult& CheckJob::wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_.load(); });
    return result_;
}

bool CheckJob::wait_for(int ms) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return done_.load(); });
}

std::shared_ptr<CheckJob> CheckScheduler::start(const Exercise& exercise, std::string source, std::string display_name,
                                                std::string gpu_arch) {
    std::lock_guard<std::mutex> lock(mu_);
    // Finished jobs nobody else holds can go; their threads have ended.
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(), [](const auto& j) { return j->done(); }), retired_.end());
    auto it = jobs_.find(exercise.id);
    if (it != jobs_.end()) {
        if (it->second->done()) {
            // It finished before anyone collected it: its result still counts.
            uncollected_.push_back(it->second);
        } else {
            it->second->cancel();
            // Kept until it has stopped: destroying it here would join its
            // thread on the caller's (the GUI's) thread.
            retired_.push_back(it->second);
        }
    }
    auto job = std::make_shared<CheckJob>(runner_, exercise, std::move(source), std::move(display_name), std::move(gpu_arch));
    jobs_[exercise.id] = job;
    return job;
}

std::shared_ptr<CheckJob> CheckScheduler::current(const std::string& exercise_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = jobs_.find(exercise_id);
    return it == jobs_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<CheckJob>> CheckScheduler::take_finished() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<CheckJob>> finished = std::move(uncollected_);
    uncollected_.clear();
    for (auto it = jobs_.begin(); it != jobs_.end();) {
        if (it->second->done()) {
            finished.push_back(std::move(it->second));
            it = jobs_.erase(it);
        } else {
            ++it;
        }
    }
    return finished;
}

void CheckScheduler::cancel_all() {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [_, job] : jobs_) job->cancel();
    for (auto& job : retired_) job->cancel();
}

}  // namespace attnlab
