#include "send_flusher.hpp"

#include <pthread.h>

#include <algorithm>
#include <csignal>
#include <utility>

namespace delayq::detail {

void SendFlusher::request_stop() {
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    cv_.notify_one();
}

void SendFlusher::schedule(Line& line) {
    std::lock_guard lock(mutex_);
    turns_.push_back(&line);
    // Only an idle flusher sleeps on cv_; a busy one finds the line when it next starts a call.
    if (idle_) cv_.notify_one();
}

void SendFlusher::expedite() {
    {
        std::lock_guard lock(mutex_);
        expedited_ = true;
    }
    cv_.notify_one();
}

bool SendFlusher::on_this_thread() const {
    return thread_id_.load(std::memory_order_relaxed) == std::this_thread::get_id();
}

SendFlusher::Line* SendFlusher::next_line() {
    std::lock_guard lock(mutex_);
    if (turns_.empty()) return nullptr;
    Line* line = turns_.front();
    turns_.pop_front();
    return line;
}

void SendFlusher::requeue(Line& line) {
    std::lock_guard lock(mutex_);
    turns_.push_back(&line);
}

void SendFlusher::run() {
    // A write to a connection the server has closed raises SIGPIPE, which would end the whole
    // process. Blocked in this thread, it stays pending here and the write fails with EPIPE.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    thread_id_.store(std::this_thread::get_id(), std::memory_order_relaxed);

    SendPipeline pipe(pool_);
    std::deque<Line*> owners;  // the line of each call in the pipeline, oldest first
    std::vector<Line*> held;   // lines whose messages wait for company, in turn order
    for (;;) {
        // Held lines take their turns again, first, whenever the flusher looks for work.
        if (!held.empty()) {
            std::lock_guard lock(mutex_);
            turns_.insert(turns_.begin(), held.begin(), held.end());
            held.clear();
        }
        auto wake_at = std::chrono::steady_clock::time_point::max();
        const auto now = std::chrono::steady_clock::now();
        while (!pipe.full()) {
            Line* line = next_line();
            if (line == nullptr) break;
            if (const auto at = line->ready_at(); at > now) {
                held.push_back(line);
                wake_at = std::min(wake_at, at);
                continue;
            }
            Line::Taken taken = line->take(pipe.empty());
            // Without `more` and without messages the line may be gone already: not touched.
            if (taken.slots.empty()) continue;
            pipe.start(line->target(), std::move(taken.slots));
            owners.push_back(line);
            if (taken.more) requeue(*line);
        }
        if (pipe.empty() && !held.empty()) {
            // Only lines whose messages wait for company: until the first is due to go, a new
            // line, or a message that must go now.
            std::unique_lock lock(mutex_);
            idle_ = true;
            cv_.wait_until(lock, wake_at,
                           [&] { return !turns_.empty() || stopped_ || expedited_; });
            idle_ = false;
            expedited_ = false;
            continue;
        }
        if (pipe.empty()) {
            // Nothing queued anywhere: the connection goes back to the pool until there is.
            pipe.release();
            std::unique_lock lock(mutex_);
            idle_ = true;
            cv_.wait(lock, [&] { return !turns_.empty() || stopped_; });
            idle_ = false;
            // Stopped with lines still waiting cannot be (each holds its Client), but they would
            // be served first.
            if (turns_.empty()) return;
            continue;
        }
        SendPipeline::Finished done = pipe.finish();
        Line* line = owners.front();
        owners.pop_front();
        line->finished(std::move(done));
    }
}

}  // namespace delayq::detail
