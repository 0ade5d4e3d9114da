#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <delayq/client.hpp>
#include <delayq/limits.hpp>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace delayq::server::runtime {

struct HistoryRecorderOptions {
    // How often the watched queues are sampled: the history's period, so that each period gets
    // its point whichever server samples it first.
    Duration interval = kHistoryPeriod;
    // A queue is recorded from the first request for its history until this long after the
    // last one: a server nobody watches costs Redis nothing for history.
    Duration keep_watching = std::chrono::hours(1);
    // Queues recorded at once, at most (`delayq serve --history-max-queues`). Each costs Redis
    // one history_record call a period per server (13 commands) and about 100 kB of
    // memory for its hour of points, once whatever the number of servers.
    std::size_t max_queues = 100;
};

// Samples the watched queues' history in Redis (QueueAdmin::record_history) every interval,
// on its own thread: any number of servers may watch a queue, and each period gets one point.
// A failed call is logged and skipped (the history may have a gap), never thrown.
class HistoryRecorder {
  public:
    explicit HistoryRecorder(Client client, HistoryRecorderOptions options = {});
    ~HistoryRecorder();  // stops
    HistoryRecorder(const HistoryRecorder&) = delete;
    HistoryRecorder& operator=(const HistoryRecorder&) = delete;

    // Records `queue` from now on (until keep_watching after the last call), if it exists (its
    // totals show a send) and fewer than max_queues are recorded; the first call records a
    // point at once, so that a first request already gets one. Whether `queue` is recorded: a
    // name that does not exist, or one beyond the cap, starts nothing (and costs Redis one stats
    // read, no more).
    bool watch(const std::string& queue);
    // The same for a caller that has just read the queue's stats (the overview): a queue not
    // recorded yet costs no read of its own.
    bool watch(const std::string& queue, const QueueStats& stats);
    std::size_t watched() const;                               // queues recorded now
    std::uint64_t samples() const { return samples_.load(); }  // record_history calls made
    void stop();

  private:
    bool renew(const std::string& queue);  // whether it was recorded already
    bool start(const std::string& queue, const QueueStats& stats);
    void run();
    void record(const std::string& queue);

    Client client_;
    HistoryRecorderOptions options_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::chrono::steady_clock::time_point> watched_;  // until when
    bool stopping_ = false;
    std::atomic<std::uint64_t> samples_{0};
    std::thread thread_;
};

}  // namespace delayq::server::runtime
