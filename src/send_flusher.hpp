#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "loop.hpp"
#include "redis/pool.hpp"
#include "send_pipeline.hpp"
#include "send_target.hpp"

namespace delayq::detail {

// One thread and one pooled connection that make the asynchronous sends of every queue of a
// Client (through SendHub): a queue sent to costs a place in its turn order, not a thread. Calls
// of all queues are pipelined on the one connection (SendPipeline), so each queue's messages
// still leave in the order they were queued. Queues with work take turns, one call each, so one
// busy queue does not hold back the others. Thread-safe.
class SendFlusher : public Loop {
  public:
    // A queue's line of sends, as the flusher serves it (SendCoalescer). Its methods are called
    // on the flusher's thread only, and must not throw.
    class Line {
      public:
        struct Taken {
            std::vector<SendSlot*> slots;  // the next call's messages; may be empty
            bool more = false;             // messages remain: the line keeps its turn
        };
        // The messages of the line's next call. `idle`: no call is in flight on the flusher's
        // connection. Without `more`, the line is off the turn order until scheduled again.
        virtual Taken take(bool idle) noexcept = 0;
        // Where take()'s messages go; alive while any of them is in a call.
        virtual const SendTarget& target() const noexcept = 0;
        // When the line's queued messages should be taken: later than now while all of them
        // may wait for company (QueueOptions::send_linger).
        virtual std::chrono::steady_clock::time_point ready_at() noexcept = 0;
        // A call of take()'s messages ended: `done` holds their answers.
        virtual void finished(SendPipeline::Finished done) noexcept = 0;

      protected:
        Line() = default;
        ~Line() = default;
        Line(const Line&) = default;
        Line& operator=(const Line&) = default;
    };

    explicit SendFlusher(ConnectionPool& pool) : pool_(pool) {}

    void request_stop() override;
    // Gives `line` a turn, after the lines already waiting for one. A line is scheduled again
    // only once take() has said there is no more.
    void schedule(Line& line);
    // Whether the caller is the flusher's own thread (which cannot wait for itself).
    bool on_this_thread() const;
    // A scheduled line now has a message that must not wait: ends the flusher's wait for a
    // line that was not ready.
    void expedite();

  private:
    void run() override;
    const char* thread_name() const override { return "dq-send"; }
    // The line whose turn it is, or null when none waits.
    Line* next_line();
    void requeue(Line& line);

    ConnectionPool& pool_;
    std::mutex mutex_;
    std::condition_variable cv_;  // a line scheduled while idle, stop
    std::deque<Line*> turns_;     // lines with queued messages, in turn order
    bool idle_ = false;           // waiting on cv_
    bool expedited_ = false;      // a held line became ready
    bool stopped_ = false;
    std::atomic<std::thread::id> thread_id_{};
};

}  // namespace delayq::detail
