#pragma once
// The Kernel view's "Record this block": a check traces every block only up to
// the protocol's trace budget, so on a large grid the later blocks' accesses
// are unknown. The emulator is deterministic, so running the same compiled
// program again (cached by the source's hash: no compile) with only one block
// of one launch traced gives exactly what that block did in the check.
#include <atomic>
#include <optional>
#include <string>

#include "attnlab/core/base/background_task.hpp"
#include "attnlab/core/views/kernel_views.hpp"
#include "attnlab/core/check/runner.hpp"

namespace attnlab {

// What to record, and the check it belongs to (the source and architecture it
// was run with: the buffer may have changed since).
struct BlockRecordingRequest {
    Exercise exercise;
    std::string source, display_name, gpu_arch;
    int case_index = 0;
    size_t launch = 0;
    uint64_t block = 0;
};

// Runs the request's program again with only that block traced; blocks the
// caller's thread for about one check.
BlockRecording record_block(Runner& runner, const BlockRecordingRequest& request, const std::atomic<bool>* cancel = nullptr);

// record_block on a thread of its own (the GUI's thread keeps drawing). One at
// a time; the destructor cancels and joins.
class BlockRecordingJob {
public:
    // False (nothing started) while another recording runs.
    bool start(Runner& runner, BlockRecordingRequest request);
    bool running() const { return task_.running(); }
    // What the running recording is for (valid while running()).
    const BlockRecordingRequest& request() const { return task_.request(); }
    // The finished recording, handed over once (call once per frame; cheap otherwise).
    std::optional<BlockRecording> take_finished();
    // Blocks until the running recording has finished (tests; a window polls).
    void wait() { task_.wait(); }
    // Stops the running one, if any; its recording is never handed over.
    void cancel() { task_.cancel(); }

private:
    BackgroundTask<BlockRecordingRequest, BlockRecording> task_;
};

}  // namespace attnlab
