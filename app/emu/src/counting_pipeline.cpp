// A launch's access counters, counted beside the scheduler
// (counting_pipeline.hpp).
#include "counting_pipeline.hpp"

#include <unistd.h>

#include <system_error>

namespace attnlab::emu::detail {

namespace {

constexpr std::pair<AccessLog, std::vector<uint64_t> ThreadState::*> kLogMembers[] = {
    {AccessLog::GlobalLoads, &ThreadState::global_loads},
    {AccessLog::GlobalStores, &ThreadState::global_stores},
    {AccessLog::SharedLoads, &ThreadState::shared_loads},
    {AccessLog::SharedStores, &ThreadState::shared_stores}};

// Past this many log entries waiting (8 bytes each: 64 MiB), the scheduler
// waits for the counting to catch up: a kernel's logs may not pile up under
// the program's memory limit.
constexpr size_t kMaxQueuedEntries = size_t(8) << 20;

}  // namespace

CountingPipeline::CountingPipeline() : requests_(log_program_position) {}

CountingPipeline::~CountingPipeline() {
    {
        std::lock_guard<std::mutex> lock(m_);
        stop_ = true;
    }
    work_.notify_all();
    if (threaded()) thread_->join();
}

bool CountingPipeline::threaded() {
    if (thread_ && owner_pid_ != long(::getpid())) (void)thread_.release();  // a forked child: the thread stayed in the parent
    return thread_ != nullptr;
}

std::unique_ptr<CountingPipeline::Job> CountingPipeline::spare_job() {
    {
        std::lock_guard<std::mutex> lock(m_);
        if (!spare_.empty()) {
            std::unique_ptr<Job> job = std::move(spare_.back());
            spare_.pop_back();
            return job;
        }
    }
    return std::make_unique<Job>();
}

void CountingPipeline::hand_over(ThreadState* const* lanes, int count) {
    bool any = false;
    for (int l = 0; l < count && !any; ++l)
        for (const auto& [kind, log] : kLogMembers) any = any || !(lanes[l]->*log).empty();
    if (!any) return;
    std::unique_ptr<Job> job = spare_job();
    job->kind = JobKind::Warp;
    job->lanes = count;
    job->entries = 0;
    for (int k = 0; k < kLogs; ++k)
        for (int l = 0; l < count; ++l) {
            std::vector<uint64_t>& log = lanes[l]->*kLogMembers[k].second;
            job->entries += log.size();
            job->logs[k][l].swap(log);  // the lane gets the job's emptied log, with its room
        }
    submit(std::move(job));
}

void CountingPipeline::start_block() {
    std::unique_ptr<Job> job = spare_job();
    job->kind = JobKind::StartBlock;
    job->entries = 0;
    submit(std::move(job));
}

void CountingPipeline::end_block() {
    std::unique_ptr<Job> job = spare_job();
    job->kind = JobKind::EndBlock;
    job->entries = 0;
    submit(std::move(job));
}

void CountingPipeline::submit(std::unique_ptr<Job> job) {
    std::unique_lock<std::mutex> lock(m_);
    if (beside_ && !threaded() && !stop_ && std::thread::hardware_concurrency() > 1) {
        try {
            thread_ = std::make_unique<std::thread>([this] { counting_loop(); });
            owner_pid_ = long(::getpid());
        } catch (const std::system_error&) {  // no thread to be had (a process limit): count inline
            stop_ = true;
        }
    }
    if (!beside_ || !threaded()) {  // inline, in order: nothing else counts (the queue is empty)
        lock.unlock();
        run(*job);
        lock.lock();
        spare_.push_back(std::move(job));
        return;
    }
    done_.wait(lock, [&] { return queued_entries_ < kMaxQueuedEntries; });
    queued_entries_ += job->entries;
    queue_.push_back(std::move(job));
    lock.unlock();
    work_.notify_one();
}

void CountingPipeline::run(Job& job) {
    switch (job.kind) {
    case JobKind::Warp: {
        WarpLogs warp;
        warp.count = job.lanes;
        for (int k = 0; k < kLogs; ++k) {
            for (int l = 0; l < job.lanes; ++l) warp.lanes[l] = &job.logs[k][l];
            requests_.count(kLogMembers[k].first, warp, counted_);
            for (int l = 0; l < job.lanes; ++l) job.logs[k][l].clear();
        }
        return;
    }
    case JobKind::StartBlock:
        requests_.take_pages();  // what a block the scheduler failed in left
        return;
    case JobKind::EndBlock:
        counted_.global_pages += requests_.take_pages();
        counted_.global_load_block_sectors += requests_.take_block_sectors(loaded_, stored_);
        return;
    }
}

void CountingPipeline::counting_loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
        work_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing is left
        std::unique_ptr<Job> job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        try {
            run(*job);
        } catch (const std::exception& e) {  // no memory for the counters: said by take(), never std::terminate
            std::lock_guard<std::mutex> relock(m_);
            if (failure_.empty()) failure_ = e.what();
        }
        lock.lock();
        busy_ = false;
        queued_entries_ -= job->entries;
        spare_.push_back(std::move(job));
        done_.notify_all();
    }
}

void CountingPipeline::leave_spares_to_exit() {
    std::lock_guard<std::mutex> lock(m_);
    new std::vector<std::unique_ptr<Job>>(std::move(spare_));  // never freed, by design
    spare_.clear();
}

std::string CountingPipeline::take(LaunchCounters& into, SectorSet& loaded, SectorSet& stored) {
    std::string failure;
    {
        std::unique_lock<std::mutex> lock(m_);
        if (threaded()) {
            done_.wait(lock, [&] { return queue_.empty() && !busy_; });
        } else {  // a forked child given jobs its parent's thread was to count
            busy_ = false;
            for (; !queue_.empty(); queue_.pop_front()) run(*queue_.front());
            queued_entries_ = 0;
        }
        failure.swap(failure_);
    }
    SectorSet unended_loads, unended_stores;  // a block the scheduler failed in never ended: its sectors are not the launch's
    requests_.take_block_sectors(unended_loads, unended_stores);
    into.add(counted_);
    counted_ = LaunchCounters{};
    loaded.swap(loaded_);
    stored.swap(stored_);
    loaded_.clear();
    stored_.clear();
    return failure;
}

}  // namespace attnlab::emu::detail
