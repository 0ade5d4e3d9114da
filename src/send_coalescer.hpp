#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <string_view>
#include <vector>

#include "delayq/options.hpp"
#include "delayq/types.hpp"
#include "send_flusher.hpp"
#include "send_hub.hpp"
#include "send_target.hpp"
#include "validate.hpp"

namespace delayq::detail {

struct SendSlot;

// Group commit for single sends: threads that send to the same queue at the same time share one
// script call. A caller that finds fewer than kMaxLeaders calls under way leads: it sends
// everything queued so far. Callers arriving meanwhile queue; when a call ends, the oldest of
// them is promoted to lead the next. Two calls in flight keep Redis busy while the client
// handles a reply. An uncontended send is one call, as before, so nothing waits for a timer.
//
// Asynchronous sends queue in the same line but cannot lead: the Client's SendFlusher, a thread
// shared by all its queues, sends for them (the line takes turns with the other queues' lines),
// everything queued, with its calls pipelined on its one connection. Redis runs one
// connection's commands in order, so messages leave in the order they were queued. While the
// flusher has this line, blocked callers queue behind it rather than lead: a call of theirs on
// another connection could overtake an earlier message of the same thread.
class SendCoalescer final : private SendFlusher::Line {
  public:
    // `linger`: QueueOptions::send_linger.
    SendCoalescer(SendTarget target, SendHub& hub, Duration linger)
        : target_(target), hub_(hub), linger_(linger) {}
    // Waits until the flusher has sent what is queued and answered every future (see
    // Queue::send_async).
    ~SendCoalescer();
    SendCoalescer(const SendCoalescer&) = delete;
    SendCoalescer& operator=(const SendCoalescer&) = delete;

    // Validated by the caller beforehand, so one caller's bad input cannot fail another's send.
    SendResult send(std::string_view payload, const SendOptions& options);
    // The same, answered through the future; payload and options are copied.
    std::future<SendResult> send_async(std::string_view payload, const SendOptions& options);
    // The same, answered by calling `done` on the flusher's thread.
    void send_async(std::string_view payload, const SendOptions& options,
                    std::function<void(std::exception_ptr, SendResult)> done);

  private:
    struct Entry;
    struct AsyncEntry;
    using Batch = std::vector<SendSlot*>;

    // SendFlusher::Line, on the flusher's thread.
    Taken take(bool idle) noexcept override;
    const SendTarget& target() const noexcept override { return target_; }
    std::chrono::steady_clock::time_point ready_at() noexcept override;
    void finished(SendPipeline::Finished done) noexcept override;

    void lead(std::unique_lock<std::mutex>& lock);
    Batch take_batch(std::size_t limit = kMaxBatch);
    // Answers a finished batch: futures first, then (taking `lock`) the blocked callers.
    // Called without the lock; returns holding it.
    static void answer(const Batch& batch, std::unique_lock<std::mutex>& lock);
    void fail_queued(const std::exception_ptr& error, std::unique_lock<std::mutex>& lock);
    // Queues an entry for the flusher, starting the Client's on first use.
    void enqueue_async(std::unique_ptr<AsyncEntry> entry);
    // With mutex_ held, while flushing_: gives the line a turn unless it has one; `urgent`: a
    // message that must not wait joined a line that has one (the flusher may be holding it).
    void schedule(bool urgent = true);
    // With mutex_ held: once the flusher has nothing of the line left, it gives the line back
    // to its blocked callers (and to a closing destructor).
    void release_if_drained();

    static constexpr int kMaxLeaders = 2;
    // The flusher splits what is queued into two calls from this many messages on.
    static constexpr std::size_t kMinSplit = 16;

    SendTarget target_;
    SendHub& hub_;
    const Duration linger_;
    std::mutex mutex_;
    std::deque<Entry*> queued_;
    std::size_t must_go_ = 0;         // queued messages that may not wait for company
    int leaders_ = 0;                 // calls under way, and callers promoted to make one
    SendFlusher* flusher_ = nullptr;  // from the first send_async on
    bool flushing_ = false;           // the flusher has the line: it sends everything queued
    bool scheduled_ = false;          // the line has a turn at the flusher
    int flusher_calls_ = 0;           // calls of the flusher's for this line, not answered yet
    bool stopping_ = false;
    std::condition_variable drained_cv_;  // flushing_ ended
};

}  // namespace delayq::detail
