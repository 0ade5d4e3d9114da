#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "delayq/client.hpp"
#include "push/http_client.hpp"
#include "push/push_queue.hpp"
#include "push/pusher.hpp"

namespace delayq::push {

// The pusher's loop, on a thread of its own: follows the queues (the named ones, or the
// index's), leases what is due within the limits, hands the requests to the HTTP client and
// settles their answers (acks in batches). The HTTP client has the other thread.
class PusherRuntime {
  public:
    PusherRuntime(Client client, PusherOptions options);
    ~PusherRuntime();
    PusherRuntime(const PusherRuntime&) = delete;
    PusherRuntime& operator=(const PusherRuntime&) = delete;

    void start();
    void stop();
    void wait();
    PusherStats stats() const;

  private:
    using Steady = std::chrono::steady_clock;

    // A request that ended, from the HTTP thread to the loop.
    struct Done {
        std::shared_ptr<PushQueue> queue;
        Lease lease;
        Duration late{};  // from the message's due time to its lease (Redis clock)
        Steady::time_point leased{};
        Steady::time_point answered{};
        HttpAnswer answer;
    };

    void run();
    void discover(Steady::time_point now);
    void follow(const std::string& name);
    void lease(const std::shared_ptr<PushQueue>& queue, Steady::time_point now);
    void send(const std::shared_ptr<PushQueue>& queue, const Delivery& delivery,
              Steady::time_point leased);
    void settle(std::vector<Done> done, Steady::time_point now);
    void settle_queue(PushQueue& queue, std::vector<Done>& done, Steady::time_point now);
    void record(PushQueue& queue, Steady::time_point now, bool force);
    void failed(PushQueue& queue, const std::exception& e, const char* what,
                Steady::time_point now);
    std::vector<Done> take_done();
    void wait_for_work(Steady::time_point deadline);
    void drain();

    Client client_;
    PusherOptions options_;
    std::unique_ptr<HttpClient> http_;
    // The loop's only.
    std::map<std::string, std::shared_ptr<PushQueue>> queues_;
    std::size_t in_flight_ = 0;
    Steady::time_point discover_at_{};

    mutable std::mutex mutex_;  // guards the members below
    std::condition_variable cv_;
    std::vector<Done> done_;
    bool woken_ = false;
    bool stopping_ = false;
    bool started_ = false;
    bool stopped_ = false;
    std::thread thread_;

    mutable std::mutex stats_mutex_;
    PusherStats stats_;
};

}  // namespace delayq::push
