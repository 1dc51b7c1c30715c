// The OS threads that run a launch's blocks: started once, woken per launch.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "block_state.hpp"

namespace attnlab::emu::detail {
namespace {

class Pool {
public:
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        work_.notify_all();
        for (std::thread& t : threads_) t.join();
    }

    // Runs L's blocks on `helpers` pool threads plus the calling thread.
    void run(Launch& L, unsigned helpers) {
        std::lock_guard<std::mutex> one_launch(launch_m_);
        if (helpers == 0) {  // this thread alone: no pool thread woken, no condition variable touched
            run_blocks(L);   // (a forked child, whose copy of it names the parent's waiters, could hang in it)
            return;
        }
        {
            std::unique_lock<std::mutex> lock(m_);
            try {
                while (threads_.size() < helpers) {
                    const unsigned id = unsigned(threads_.size());
                    threads_.emplace_back([this, id] { loop(id); });
                }
            } catch (...) {  // no more OS threads: run with the ones there are
                helpers = unsigned(threads_.size());
            }
            job_ = &L;
            wanted_ = helpers;
            acked_ = 0;
            ++generation_;
        }
        work_.notify_all();
        run_blocks(L);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [&] { return acked_ == wanted_; });
        job_ = nullptr;
    }

private:
    void loop(unsigned id) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            work_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            if (id >= wanted_) continue;
            Launch* job = job_;
            lock.unlock();
            run_blocks(*job);
            lock.lock();
            if (++acked_ == wanted_) done_.notify_all();
        }
    }

    std::mutex launch_m_, m_;
    std::condition_variable work_, done_;
    std::vector<std::thread> threads_;
    Launch* job_ = nullptr;
    uint64_t generation_ = 0;
    unsigned wanted_ = 0, acked_ = 0;
    bool stop_ = false;
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

void run_on_pool(Launch& L, unsigned helpers) { pool().run(L, helpers); }

}  // namespace attnlab::emu::detail
