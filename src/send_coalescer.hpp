#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "delayq/options.hpp"
#include "delayq/types.hpp"
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
// Asynchronous sends queue in the same line but cannot lead, so one thread of the coalescer's
// own, the flusher (started by the first send_async), sends for them: everything queued, with
// up to SendPipeline::kDepth calls pipelined on one connection. Redis runs one connection's
// commands in order, so messages leave in the order they were queued. While the flusher has
// work, blocked callers queue behind it rather than lead: a call of theirs on another
// connection could overtake an earlier message of the same thread.
class SendCoalescer {
  public:
    explicit SendCoalescer(SendTarget target) : target_(target) {}
    // Sends what is queued and answers every future (see Queue::send_async).
    ~SendCoalescer();
    SendCoalescer(const SendCoalescer&) = delete;
    SendCoalescer& operator=(const SendCoalescer&) = delete;

    // Validated by the caller beforehand, so one caller's bad input cannot fail another's send.
    SendResult send(std::string_view payload, const SendOptions& options);
    // The same, answered through the future; payload and options are copied.
    std::future<SendResult> send_async(std::string_view payload, const SendOptions& options);
    // The same, answered by calling `done` on the flusher thread.
    void send_async(std::string_view payload, const SendOptions& options,
                    std::function<void(std::exception_ptr, SendResult)> done);

  private:
    struct Entry;
    struct AsyncEntry;
    using Batch = std::vector<SendSlot*>;

    void lead(std::unique_lock<std::mutex>& lock);
    Batch take_batch(std::size_t limit = kMaxBatch);
    // Answers a finished batch: futures first, then (taking `lock`) the blocked callers.
    // Called without the lock; returns holding it.
    void answer(const Batch& batch, std::unique_lock<std::mutex>& lock);
    void fail_queued(const std::exception_ptr& error, std::unique_lock<std::mutex>& lock);
    void flush_loop();
    // Queues an entry for the flusher, starting it on first use.
    void enqueue_async(std::unique_ptr<AsyncEntry> entry);

    static constexpr int kMaxLeaders = 2;
    // The flusher splits what is queued into two calls from this many messages on.
    static constexpr std::size_t kMinSplit = 16;

    SendTarget target_;
    std::mutex mutex_;
    std::deque<Entry*> queued_;
    int leaders_ = 0;        // calls under way, and callers promoted to make one
    bool flushing_ = false;  // the flusher has work: it sends everything queued
    bool stopping_ = false;
    std::condition_variable flusher_cv_;
    std::thread flusher_;
};

}  // namespace delayq::detail
