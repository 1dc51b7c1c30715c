#include "resource_report_jobs.hpp"

#include <algorithm>
#include <chrono>

#include "attnlab/core/base/util.hpp"
#include "attnlab/emu/cuda_source.hpp"
#include "attnlab/core/check/nvrtc_headers.hpp"

namespace attnlab {

ResourceReport learner_resource_report(const std::string& source, const std::string& display_name, const std::string& arch,
                                       const fs::path& work_dir, const std::atomic<bool>* cancel, bool weak_sandbox_allowed) {
    try {
        return compile_resources(cuda_source::for_nvrtc(source), display_name, {{"attnlab/cuda.hpp", nvrtc_prelude()}}, arch,
                                 work_dir, cancel, weak_sandbox_allowed);
    } catch (const std::exception& e) {  // it runs on threads nothing may escape: the report says what happened
        ResourceReport failed;
        failed.arch = arch;
        failed.log = e.what();
        return failed;
    }
}

ResourceReportJobs::ResourceReportJobs(fs::path work_dir, unsigned max_running, bool weak_sandbox_allowed)
    : work_dir_(std::move(work_dir)), max_running_(std::max(1u, max_running)), weak_sandbox_allowed_(weak_sandbox_allowed) {}

ResourceReportJobs::~ResourceReportJobs() {
    {
        std::lock_guard<std::mutex> lock(slots_mutex_);
        closing_ = true;
    }
    std::lock_guard<std::mutex> lock(threads_mutex_);
    for (Job& job : threads_) job.stop->store(true);  // the sandbox kills NVRTC: no 30 s wait at exit
    slot_freed_.notify_all();
    for (Job& job : threads_) job.thread.join();
}

unsigned ResourceReportJobs::peak_running() const {
    std::lock_guard<std::mutex> lock(slots_mutex_);
    return peak_running_;
}

bool ResourceReportJobs::acquire_slot(const std::atomic<bool>& stop) {
    std::unique_lock<std::mutex> lock(slots_mutex_);
    // A stopped job is woken by the next freed slot or the destructor; one
    // stopped by its check while others run only starts nothing when it wakes.
    slot_freed_.wait(lock, [&] { return closing_ || stop.load() || running_ < max_running_; });
    if (closing_ || stop.load()) return false;
    ++running_;
    peak_running_ = std::max(peak_running_, running_);
    return true;
}

void ResourceReportJobs::release_slot() {
    {
        std::lock_guard<std::mutex> lock(slots_mutex_);
        --running_;
    }
    slot_freed_.notify_all();
}

void ResourceReportJobs::keep(const std::string& key, const std::shared_ptr<const ResourceReport>& report) {
    // Kept: what the file itself decides (figures, or NVRTC's errors on it).
    // Not kept: a timeout or a stopped NVRTC, which a busy machine may cause
    // and a retry may not.
    const bool decided_by_file = report->status == ResourceReport::Status::Ok ||
                                 (report->status == ResourceReport::Status::CompileError && !report->diagnostics.empty());
    if (!decided_by_file) return;
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.size() >= 64) cache_.clear();  // bounded; a miss only costs a compile
    cache_[key] = report;
}

PendingResources ResourceReportJobs::start(const std::string& source, const std::string& display_name, const std::string& arch,
                                           std::shared_ptr<std::atomic<bool>> stop, std::shared_future<void> gate) {
    // Unchanged file, same architecture: the report NVRTC gave last time (a
    // recheck costs no compile).
    const std::string key = arch + "/" + display_name + "/" + hex64(hash64(source));
    auto ready = std::make_shared<std::promise<std::shared_ptr<const ResourceReport>>>();
    PendingResources pending = ready->get_future().share();
    {
        std::lock_guard<std::mutex> lock(cache_mutex_);
        if (auto it = cache_.find(key); it != cache_.end()) {
            ready->set_value(it->second);
            return pending;
        }
    }
    // A thread this owns (joined by the destructor), not std::async: the last
    // copy of a std::async future blocks in its destructor, and a result
    // dropped while NVRTC still runs must not hold up the window.
    auto compile = [this, key, source, display_name, arch, stop, ready, gate] {
        if (gate.valid()) gate.wait();
        std::shared_ptr<const ResourceReport> report;
        if (acquire_slot(*stop)) {
            report = std::make_shared<const ResourceReport>(learner_resource_report(source, display_name, arch, work_dir_, stop.get(), weak_sandbox_allowed_));
            release_slot();
            keep(key, report);
        } else {
            ResourceReport stopped;  // never compiled: its check no longer wants it
            stopped.arch = arch;
            stopped.cancelled = true;
            stopped.log = "cancelled";
            report = std::make_shared<const ResourceReport>(std::move(stopped));
        }
        ready->set_value(std::move(report));
    };
    std::lock_guard<std::mutex> lock(threads_mutex_);
    join_finished();
    threads_.push_back({std::thread(std::move(compile)), std::move(stop), pending});
    return pending;
}

void ResourceReportJobs::join_finished() {
    for (auto it = threads_.begin(); it != threads_.end();) {
        if (it->report.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            ++it;
            continue;
        }
        it->thread.join();  // it has set its value: about to return
        it = threads_.erase(it);
    }
}

}  // namespace attnlab
