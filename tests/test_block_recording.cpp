// The Kernel view's "Record this block" (issue 18): a block the check's trace
// budget did not reach is recorded by running the same program again with only
// that block traced, and a block that cannot be recorded fully still says so.
//
// fx-cuda-attention's solution on its second case (B = 1, H = 3, T = 70,
// hd = 64; grid 2 × 3 of 64 threads) makes about 1.2 million accesses in block
// 0 alone: the check's log (2^18 events a case) fills inside block 0, so
// blocks 1–5 are unrecorded. Block 1 (threads of rows 64–69) makes about
// 234 000, which fits when recorded on its own; block 0 never fits.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <future>
#include <thread>
#include <optional>
#include <set>
#include <string>

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/base/background_task.hpp"
#include "attnlab/core/desk/block_recording.hpp"
#include "attnlab/core/views/kernel_views.hpp"
#include "attnlab/core/base/util.hpp"
#include "cuda_check_env.hpp"
#include "test_support.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

attnlab::testing::ExerciseEnv& env() {
    static attnlab::testing::ExerciseEnv e{"block-recording", fs::path(ATTNLAB_TEST_FIXTURES) / "cuda-course", "fx-cuda-attention"};
    return e;
}

std::string solution() { return read_file(env().ex().dir / "solution.cu").value_or(""); }

// A check as the GUI runs it: every block traced up to the budget.
const CheckResult& traced_check() {
    static const CheckResult r = [] {
        CheckControl control;
        control.trace_kernels = true;
        return env().runner.check_source(env().ex(), solution(), "solution.cu", control);
    }();
    return r;
}

BlockRecordingRequest request_for(int case_index, size_t launch, uint64_t block) {
    BlockRecordingRequest q;
    q.exercise = env().ex();
    q.source = solution();
    q.display_name = "solution.cu";
    q.gpu_arch = CheckControl{}.gpu_arch;
    q.case_index = case_index;
    q.launch = launch;
    q.block = block;
    return q;
}

constexpr int kBigCase = 1;

}  // namespace

TEST_CASE("a block the check did not record is recorded on its own, and the views then show it") {
    if (!env().emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    const CheckResult& r = traced_check();
    REQUIRE(r.verdict == Verdict::Pass);
    const CaseOutcome& c = r.cases[kBigCase];
    REQUIRE(c.kernels.launches.size() == 1);
    const emu::LaunchReport& launch = c.kernels.launches[0];
    REQUIRE(launch.grid.count() == 6);
    const std::vector<KernelBuffer> buffers = kernel_buffers(env().ex(), c);
    const std::vector<BlockFootprint> before = block_footprints(launch, buffers);
    REQUIRE(before.size() == 6);
    CHECK_FALSE(before[1].recorded);  // the premise: the budget ran out in block 0
    CHECK(block_accesses(launch, buffers, 1).empty());

    const BlockRecording rec = record_block(env().runner, request_for(kBigCase, 0, 1));
    REQUIRE(rec.usable());
    CHECK(rec.complete);
    CHECK(rec.kernel == launch.kernel);
    CHECK(rec.grid == launch.grid);
    REQUIRE_FALSE(rec.events.empty());
    std::set<uint64_t> blocks, threads;
    for (const emu::AccessEvent& e : rec.events) {
        blocks.insert(e.block);
        threads.insert(e.thread);
    }
    CHECK(blocks == std::set<uint64_t>{1});  // nothing of any other block
    CHECK(threads == std::set<uint64_t>{0, 1, 2, 3, 4, 5});  // rows 64..69; threads 6.. return at once

    const std::vector<BlockRecording> recordings{rec};
    const std::vector<BlockFootprint> after = block_footprints(launch, buffers, kBigCase, 0, recordings);
    CHECK(after[1].recorded);
    CHECK(after[1].recorded_alone);
    CHECK(after[1].output_writes > 0);
    CHECK(describe_slice(after[1].written, Lang::En) != "");
    CHECK_FALSE(after[2].recorded);  // the others are still unknown, and say so
    CHECK_FALSE(after[2].recorded_alone);
    // Rows 64..69 of (batch 0, head 0): block 1 wrote them, the first at row 64.
    CHECK(after[1].first_written == 64 * 64);

    const emu::LaunchReport shown = with_recorded_blocks(launch, kBigCase, 0, recordings);
    const std::vector<BufferTouches> touches = block_accesses(shown, buffers, 1);
    REQUIRE_FALSE(touches.empty());
    const std::vector<ThreadActivity> activity = thread_activity(shown, 1);
    CHECK(activity[0].active());
    CHECK_FALSE(activity[6].active());
    // The same recording does not apply to another case or launch.
    CHECK(block_footprints(launch, buffers, 0, 0, recordings)[1].recorded == false);
}

TEST_CASE("a block too big to record even on its own says it is only partly recorded") {
    if (!env().emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    const CheckResult& r = traced_check();
    REQUIRE(r.verdict == Verdict::Pass);
    const CaseOutcome& c = r.cases[kBigCase];
    const emu::LaunchReport& launch = c.kernels.launches[0];
    const std::vector<KernelBuffer> buffers = kernel_buffers(env().ex(), c);

    const BlockRecording rec = record_block(env().runner, request_for(kBigCase, 0, 0));
    REQUIRE(rec.usable());
    CHECK_FALSE(rec.complete);
    CHECK(rec.events.size() == protocol::ProtocolLimits::max_trace_events);
    const std::vector<BlockFootprint> after = block_footprints(launch, buffers, kBigCase, 0, {rec});
    CHECK_FALSE(after[0].recorded);  // never drawn as a block that did only this much
    CHECK(after[0].recorded_alone);
}

TEST_CASE("asking for a launch the case never made is a plain problem, not an empty block") {
    if (!env().emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    const BlockRecording rec = record_block(env().runner, request_for(kBigCase, 3, 0));
    CHECK(rec.problem == BlockRecording::Problem::LaunchMissing);
    CHECK_FALSE(rec.usable());
    CHECK(rec.events.empty());
    const CaseOutcome& c = traced_check().cases[kBigCase];
    CHECK_FALSE(block_footprints(c.kernels.launches[0], kernel_buffers(env().ex(), c), kBigCase, 3, {rec})[0].recorded_alone);
}

TEST_CASE("the recording job hands over its recording once, off the calling thread") {
    if (!env().emulator_built()) {
        MESSAGE("skipped: no CUDA emulator in this build");
        return;
    }
    BlockRecordingJob job;
    REQUIRE(job.start(env().runner, request_for(kBigCase, 0, 3)));  // blockIdx (1, 1): rows 64..69 of head 1
    CHECK(job.running());
    CHECK(job.request().block == 3);
    CHECK_FALSE(job.start(env().runner, request_for(kBigCase, 0, 5)));  // one at a time
    job.wait();
    const std::optional<BlockRecording> rec = job.take_finished();
    REQUIRE(rec);
    CHECK_FALSE(job.running());
    CHECK(rec->block == 3);
    CHECK(rec->complete);
    CHECK_FALSE(job.take_finished());
}

// ---- the background task both jobs (this one and ResourceJob) are made of ----
// The work waits on a promise the test keeps, so every ordering is forced
// without sleeping.

TEST_CASE("a background task hands its result over once, with its request") {
    BackgroundTask<int, int> task;
    std::promise<void> go;
    std::shared_future<void> gate = go.get_future().share();
    task.start(20, [gate](const int& n, const std::atomic<bool>*) {
        gate.wait();
        return n + 1;
    });
    CHECK(task.running());
    CHECK(task.request() == 20);
    CHECK_FALSE(task.take_finished());  // still waiting on the gate
    go.set_value();
    task.wait();
    auto f = task.take_finished();
    REQUIRE(f);
    CHECK(f->request == 20);
    CHECK(f->result == 21);
    CHECK_FALSE(task.running());
    CHECK_FALSE(task.take_finished());  // once
}

TEST_CASE("a cancelled background task is told so and never handed over; a new start replaces it") {
    BackgroundTask<int, int> task;
    std::atomic<bool> saw_cancel{false};
    task.start(1, [&](const int&, const std::atomic<bool>* cancel) {
        while (!cancel->load()) std::this_thread::yield();  // a long compile that checks its flag
        saw_cancel.store(true);
        return -1;
    });
    task.start(2, [](const int& n, const std::atomic<bool>*) { return n * 10; });  // cancels the first
    task.wait();
    auto f = task.take_finished();
    REQUIRE(f);
    CHECK(f->request == 2);
    CHECK(f->result == 20);
    CHECK_FALSE(task.take_finished());  // the cancelled one is never handed over
    // The destructor joins the first (it has been told to stop).
}
