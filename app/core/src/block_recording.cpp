#include "attnlab/core/block_recording.hpp"

#include <algorithm>

namespace attnlab {

BlockRecording record_block(Runner& runner, const BlockRecordingRequest& request, const std::atomic<bool>* cancel) {
    BlockRecording out;
    out.case_index = request.case_index;
    out.launch = request.launch;
    out.block = request.block;
    CheckControl control;
    control.cancel = cancel;
    control.gpu_arch = request.gpu_arch;
    control.trace_kernels = true;
    control.trace_case = request.case_index;
    control.trace_launch = request.launch;
    control.trace_block = request.block;
    CheckResult r;
    try {
        r = runner.check_source(request.exercise, request.source, request.display_name, control);
    } catch (const std::exception&) {  // a full disk, an unwritable cache: said, never thrown at the window
        r.verdict = Verdict::InternalError;
    }
    if (r.verdict == Verdict::Cancelled) {
        out.problem = BlockRecording::Problem::Cancelled;
        return out;
    }
    const auto k = static_cast<size_t>(request.case_index);
    if (r.verdict == Verdict::InternalError || r.verdict == Verdict::CompileError || k >= r.cases.size()) {
        out.problem = BlockRecording::Problem::RunFailed;
        out.rerun_verdict = r.verdict;
        return out;
    }
    std::vector<emu::LaunchReport>& launches = r.cases[k].launches;
    if (request.launch >= launches.size()) {
        out.problem = BlockRecording::Problem::LaunchMissing;
        out.rerun_verdict = r.verdict;
        return out;
    }
    emu::LaunchReport& launch = launches[request.launch];
    out.kernel = launch.kernel;
    out.grid = launch.grid;
    out.complete = !launch.trace_truncated;
    out.events = std::move(launch.trace);
    return out;
}

BlockRecordingJob::~BlockRecordingJob() {
    cancel();
    for (auto& t : retired_)
        if (t->thread.joinable()) t->thread.join();
}

bool BlockRecordingJob::start(Runner& runner, BlockRecordingRequest request) {
    join_stopped();
    if (task_) return false;
    auto task = std::make_unique<Task>();
    task->request = std::move(request);
    Task* t = task.get();
    t->thread = std::thread([t, &runner] {
        t->result = record_block(runner, t->request, &t->cancel);  // never throws (record_block catches)
        t->done.store(true);
    });
    task_ = std::move(task);
    return true;
}

void BlockRecordingJob::cancel() {
    if (!task_) return;
    task_->cancel.store(true);
    retired_.push_back(std::move(task_));  // joined by join_stopped(): joining here would wait on the GUI's thread
}

void BlockRecordingJob::join_stopped() {
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](std::unique_ptr<Task>& t) {
                                      if (!t->done.load()) return false;
                                      t->thread.join();
                                      return true;
                                  }),
                   retired_.end());
}

void BlockRecordingJob::wait() {
    if (task_ && task_->thread.joinable()) task_->thread.join();
}

std::optional<BlockRecording> BlockRecordingJob::take_finished() {
    join_stopped();
    if (!task_ || !task_->done.load()) return std::nullopt;
    if (task_->thread.joinable()) task_->thread.join();
    BlockRecording r = std::move(task_->result);
    task_.reset();
    if (r.problem == BlockRecording::Problem::Cancelled) return std::nullopt;
    return r;
}

}  // namespace attnlab
