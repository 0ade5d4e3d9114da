#pragma once

#include <chrono>
#include <condition_variable>
#include <delayq/client.hpp>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "service/history.hpp"

namespace delayq::server {

struct HistoryRecorderOptions {
    Duration interval = std::chrono::seconds(1);
    // A queue is recorded from the first request for its history until this long after the
    // last one: a server nobody watches costs Redis nothing for history.
    Duration keep_watching = std::chrono::hours(1);
};

// Reads the totals of the watched queues every interval into a History, on its own thread.
// A failed read is logged and skipped (the history has a gap), never thrown.
class HistoryRecorder {
  public:
    HistoryRecorder(Client client, History& history, HistoryRecorderOptions options = {});
    ~HistoryRecorder();  // stops
    HistoryRecorder(const HistoryRecorder&) = delete;
    HistoryRecorder& operator=(const HistoryRecorder&) = delete;

    // Records `queue` from now on (until keep_watching after the last call); the first call
    // records a point at once, so that a first request already gets one.
    void watch(const std::string& queue);
    void stop();

  private:
    void run();
    void record(const std::string& queue);

    Client client_;
    History& history_;
    HistoryRecorderOptions options_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::map<std::string, std::chrono::steady_clock::time_point> watched_;  // until when
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace delayq::server
