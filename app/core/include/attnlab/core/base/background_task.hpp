#pragma once
// One cancellable piece of work on a thread of its own, for a window that must
// keep drawing: start() hands it a request and the work, take_finished()
// collects the result once (call it every frame: cheap while running), and
// cancel() stops it without waiting on the window's thread (a cancelled task
// is joined later, once it has stopped; its result is never handed over).
// ResourceJob (NVRTC for another architecture) and BlockRecordingJob (one
// block re-run) are this with their own work.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace attnlab {

template <class Request, class Result>
class BackgroundTask {
public:
    // Must not throw (nothing may escape a thread: std::terminate would end
    // the window); it should stop soon after `cancel` turns true.
    using Work = std::function<Result(const Request& request, const std::atomic<bool>* cancel)>;
    struct Finished {
        Request request;
        Result result;
    };

    BackgroundTask() = default;
    BackgroundTask(const BackgroundTask&) = delete;
    BackgroundTask& operator=(const BackgroundTask&) = delete;
    ~BackgroundTask() {  // cancels and joins everything still running
        cancel();
        for (auto& t : retired_) t->cancel.store(true);
        for (auto& t : retired_) join(*t);
    }

    // Starts `work` on `request`, cancelling the one running, if any.
    void start(Request request, Work work) {
        cancel();
        auto task = std::make_unique<Task>();
        task->request = std::move(request);
        Task* t = task.get();
        t->thread = std::thread([t, work = std::move(work)] {
            t->result = work(t->request, &t->cancel);
            t->done.store(true);
        });
        current_ = std::move(task);
    }
    // Started and not yet handed over (finished or not).
    bool running() const { return current_ != nullptr; }
    // What the running task works on (valid while running()).
    const Request& request() const { return current_->request; }
    // Stops the running task, if any.
    void cancel() {
        if (!current_) return;
        current_->cancel.store(true);
        retired_.push_back(std::move(current_));  // joined by join_stopped()
    }
    // The finished task's request and result, handed over once.
    std::optional<Finished> take_finished() {
        join_stopped();
        if (!current_ || !current_->done.load()) return std::nullopt;
        join(*current_);
        Finished f{std::move(current_->request), std::move(current_->result)};
        current_.reset();
        return f;
    }
    // Blocks until the running task has finished (tests; a window polls).
    void wait() {
        if (current_) join(*current_);
    }

private:
    struct Task {
        Request request;
        Result result;  // written by the thread before `done`
        std::atomic<bool> cancel{false};
        std::atomic<bool> done{false};
        std::thread thread;
    };
    static void join(Task& t) {
        if (t.thread.joinable()) t.thread.join();  // wait() may have joined it already
    }
    void join_stopped() {
        retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                      [](std::unique_ptr<Task>& t) {
                                          if (!t->done.load()) return false;
                                          join(*t);
                                          return true;
                                      }),
                       retired_.end());
    }
    std::unique_ptr<Task> current_;
    std::vector<std::unique_ptr<Task>> retired_;  // cancelled, joined once they stop
};

}  // namespace attnlab
