#pragma once

#include <chrono>
#include <condition_variable>
#include <delayq/client.hpp>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/history.hpp"

namespace delayq::server::runtime {

struct HistoryRecorderOptions {
    Duration interval = std::chrono::seconds(1);
    // A queue is recorded from the first request for its history until this long after the
    // last one: a server nobody watches costs Redis nothing for history.
    Duration keep_watching = std::chrono::hours(1);
    // Queues recorded at once, at most (`delayq serve --history-max-queues`). Each costs Redis a
    // stats read a second (about 11 commands) and the server about 400 kB for its hour of points.
    std::size_t max_queues = 100;
};

// Reads the totals of the watched queues every interval into a History, on its own thread.
// A failed read is logged and skipped (the history has a gap), never thrown.
class HistoryRecorder {
  public:
    HistoryRecorder(Client client, History& history, HistoryRecorderOptions options = {});
    ~HistoryRecorder();  // stops
    HistoryRecorder(const HistoryRecorder&) = delete;
    HistoryRecorder& operator=(const HistoryRecorder&) = delete;

    // Records `queue` from now on (until keep_watching after the last call), if it exists (its
    // totals show a send) and fewer than max_queues are recorded; the first call records a
    // point at once, so that a first request already gets one. Whether `queue` is recorded: a
    // name that does not exist, or one beyond the cap, starts nothing (and costs Redis one stats
    // read, no more).
    bool watch(const std::string& queue);
    std::size_t watched() const;  // queues recorded now
    void stop();

  private:
    void run();
    void record(const std::string& queue);

    Client client_;
    History& history_;
    HistoryRecorderOptions options_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::chrono::steady_clock::time_point> watched_;  // until when
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace delayq::server::runtime
