#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <delayq/client.hpp>
#include <delayq/delivery.hpp>
#include <delayq/error.hpp>
#include <delayq/waiter.hpp>
#include <exception>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

// The long-polls of POST /v1/queues/{queue}/leases (docs/http.md, Long-polls).
namespace delayq::server::runtime {

// What a long-poll ends with: the messages leased for it (none when its wait ran out or the hub
// stopped), or the error its fetch threw.
struct PollAnswer {
    std::vector<Delivery> deliveries;
    std::exception_ptr error;
};

// Answers a long-poll. It runs on a worker or the hub's timer thread and must be quick (post the
// writing to the connection's own executor). False when the request can no longer be answered
// (its connection is gone): the hub then releases the leases, so no message waits out a lease
// that nobody holds.
using PollDone = std::function<bool(PollAnswer)>;

struct PollRequest {
    std::string queue;
    // Whose poll: the auth entry's name, for the per-token caps; empty without auth (no caps
    // per token then, only the totals).
    std::string token;
    std::size_t max = 1;  // 1 to kMaxBatch
    Duration visibility = std::chrono::seconds(30);
    std::chrono::steady_clock::time_point deadline;
    PollDone done;
};

// Runs a task off the I/O threads: fetches block on Redis. Throws WorkersBusy when it cannot
// take the task now.
using Post = std::function<void(std::function<void()>)>;

// The workers have as much queued as they take (the routes answer 429 rate_limited).
class WorkersBusy : public Error {
  public:
    using Error::Error;
};

// A poll beyond one of LongPollOptions' caps (the routes answer 503 too_many_polls).
class TooManyPolls : public Error {
  public:
    using Error::Error;
};

// The defaults of `delayq serve` (docs/http.md, Long-polls). A queue's waiter costs a wake
// channel subscription and some memory; the caps bound them, and what one token can hold, so
// that names cannot exhaust the server or Redis.
struct LongPollOptions {
    WaiterOptions waiter{};  // of every queue's waiter
    // A queue's waiter is released this long after its last poll ended and its fetches did;
    // a later poll makes another (a new subscription and one fetch).
    Duration idle_release = std::chrono::seconds(5);
    // Queues with a waiter at once: in total, and made by one token. At a cap, the longest
    // idle waiter (of that token) is released first; without one, the poll is refused.
    std::size_t max_queues = 10'000;
    std::size_t max_queues_per_token = 1'000;
    // Polls one token may have waiting at once.
    std::size_t max_polls_per_token = 5'000;
};

struct LongPollStats {
    std::uint64_t fetches = 0;  // Leases::fetch calls made
    // Waiter firings the hub has acted on: equal to waiters.fired once no firing is in between
    // the waiter's count and the hub's fetch it starts.
    std::uint64_t fires = 0;
    std::size_t waiting = 0;     // long-polls not yet answered
    std::size_t queues = 0;      // waiters held
    std::size_t idle = 0;        // of them, with no poll and no fetch (released in time)
    std::size_t fetching = 0;    // queues with fetches under way
    std::uint64_t released = 0;  // waiters released (idle, or to make room at a cap)
    std::uint64_t refused = 0;   // polls refused by a cap (TooManyPolls)
    WaiterStats waiters{};       // summed over every waiter the hub made
};

// Every long-poll of the server, shared per queue: one library Waiter per queue (made on first
// use, released when idle for LongPollOptions::idle_release), and a fetch only when it fires, once
// when a poll arrives at a queue that may have something due, and again while fetches fill their
// polls. So idle long-polls cost Redis what one idle Consumer costs, however many wait, and a
// message sent while they wait wakes one. Thread-safe.
class LongPollHub {
  public:
    using PollId = std::uint64_t;

    // `post` runs the fetches (the server's worker pool); it must keep running until stop()
    // returned.
    LongPollHub(Client client, Post post, LongPollOptions options = {});
    // Stops.
    ~LongPollHub();
    LongPollHub(const LongPollHub&) = delete;
    LongPollHub& operator=(const LongPollHub&) = delete;

    // Registers a long-poll; its `done` is called exactly once (unless cancelled first), possibly
    // before wait() returns. Throws InvalidArgument for a bad queue name or max, TooManyPolls
    // beyond a cap, and what `post` throws when it refuses the fetch (the workers are full);
    // `done` is not called then.
    PollId wait(PollRequest request);
    // The client went away: the poll ends without its `done`; leases a fetch under way gets for
    // it are released.
    void cancel(PollId id);

    // Ends every waiting poll with an empty answer and lets fetches under way answer theirs,
    // then stops the waiters, all in one step (they share the client's timer and subscriber).
    // Later polls are answered empty at once. Not from a `post` task.
    void stop();

    LongPollStats stats() const;

  private:
    struct Poll;
    struct Slot;
    using Finished = std::vector<std::pair<std::shared_ptr<Poll>, PollAnswer>>;
    using Slots = std::vector<std::unique_ptr<Slot>>;
    struct Retirement;  // stops the waiters released under mu_ once it is released
    struct TokenUse {
        std::size_t queues = 0;  // waiters it made, alive
        std::size_t polls = 0;   // its polls waiting
    };

    // Under mu_; throws TooManyPolls at a cap, leaving in `retired` the idle ones it released.
    Slot& slot_for(const std::string& queue, const std::string& token, Slots& retired);
    void check_caps(const std::string& token, Slots& retired);  // under mu_
    // The oldest idle slot (of `token`, when given), released into `retired`; false if none.
    bool release_idle(const std::string* token, Slots& retired);  // under mu_
    std::unique_ptr<Slot> release(Slot& slot);                    // under mu_
    void settle(Slot& slot);  // under mu_: a slot with no poll and no fetch starts idling
    // Stops released waiters: not under mu_ (a waiter's stop waits for its callback, which may
    // wait for mu_).
    void retire(Slots&& slots) noexcept;
    void on_fire(const std::string& queue);
    void start_fetching(const std::string& queue, Slot& slot);  // under mu_
    void run_fetches(const std::string& queue);
    void run_timer();
    void remove(Slot& slot, const std::shared_ptr<Poll>& poll);  // under mu_
    void finish(Finished&& finished);                            // not under mu_

    Client client_;
    Post post_;
    LongPollOptions options_;

    mutable std::mutex mu_;
    std::condition_variable timer_cv_;
    std::condition_variable idle_cv_;  // a queue's fetches ended (stop waits for all)
    std::map<std::string, std::unique_ptr<Slot>> slots_;
    std::list<Slot*> idle_;                             // oldest idle first
    std::unordered_map<std::string, TokenUse> tokens_;  // only tokens using something
    std::unordered_map<PollId, std::shared_ptr<Poll>> polls_;
    std::multimap<std::chrono::steady_clock::time_point, PollId> deadlines_;
    PollId next_id_ = 1;
    std::uint64_t fetches_ = 0;
    std::uint64_t fires_ = 0;
    std::uint64_t released_ = 0;
    std::uint64_t refused_ = 0;
    WaiterStats retired_{};  // of the waiters released
    bool stopping_ = false;
    bool stopped_ = false;
    std::thread timer_;
};

}  // namespace delayq::server::runtime
