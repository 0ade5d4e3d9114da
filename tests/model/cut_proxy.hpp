#pragma once

// A TCP relay between the model test's clients and redis-server that cuts one call when told
// to: it closes the client's connection either before Redis got the request (the call did not
// happen) or once Redis answered it, dropping the answer (the call happened; the client cannot
// know). A race of a CLIENT KILL with a call lands around the call almost always; this lands
// inside it every time, and each outcome as often as the other.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace delayq::model {

class CutProxy {
  public:
    enum class Cut { kBeforeRedis, kAfterRedis };

    // Listens on a free loopback port and relays each connection to `redis_port`.
    explicit CutProxy(int redis_port);
    ~CutProxy();
    CutProxy(const CutProxy&) = delete;
    CutProxy& operator=(const CutProxy&) = delete;

    int port() const { return port_; }
    // The next request any connection sends is cut so.
    void arm(Cut cut);
    // Ends an armed cut that has not happened; whether it had.
    bool disarm();
    // Closes every relayed connection, and returns once they are closed: what a CLIENT KILL or
    // a crash of redis-server does to direct connections, which the relay would otherwise pass
    // on to its clients only a moment later (a call in that moment would fail).
    void drop_all();

  private:
    struct Pair {
        int client = -1;
        int redis = -1;
        bool drop_answer = false;  // cut once Redis answers
    };

    void run();
    void accept_one();
    // Relays what `from` has; false when the pair is to be closed.
    bool relay(Pair& pair, bool from_client);

    int redis_port_;
    int listener_ = -1;
    int port_ = 0;
    int wake_[2] = {-1, -1};
    std::vector<Pair> pairs_;  // the relay thread's only
    std::mutex mutex_;         // guards armed_, fired_, dropped_
    std::condition_variable dropped_cv_;
    std::uint64_t dropped_ = 0;  // drop_all() requests served
    bool armed_ = false;
    Cut cut_ = Cut::kBeforeRedis;
    bool fired_ = false;
    std::thread thread_;
};

}  // namespace delayq::model
