#include "attnlab/core/desk/block_recording.hpp"

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
    std::vector<emu::LaunchReport>& launches = r.cases[k].kernels.launches;
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

bool BlockRecordingJob::start(Runner& runner, BlockRecordingRequest request) {
    if (task_.running()) return false;
    task_.start(std::move(request), [&runner](const BlockRecordingRequest& r, const std::atomic<bool>* cancel) {
        return record_block(runner, r, cancel);  // never throws (record_block catches)
    });
    return true;
}

std::optional<BlockRecording> BlockRecordingJob::take_finished() {
    auto f = task_.take_finished();
    if (!f || f->result.problem == BlockRecording::Problem::Cancelled) return std::nullopt;
    return std::move(f->result);
}

}  // namespace attnlab
