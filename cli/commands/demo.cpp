// delayq demo: order timeouts. Orders come in with payment deadlines; each deadline is a delayed
// message. Paying cancels it; an order still unpaid when its message arrives is closed. Every
// event is shown as it happens, and the end checks by counting that no message came early and
// none was lost.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>

#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "signals.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kArrivals = 3s;  // orders come in over this long
constexpr milliseconds kMinDeadline = 1s;
constexpr milliseconds kMaxDeadline = 5s;
constexpr double kPaidShare = 0.5;
constexpr auto kDrainTimeout = 30s;  // after the last deadline, for the last deliveries

struct DemoArgs {
    int orders = 20;
    unsigned seed = 0;
    CLI::Option* seed_opt = nullptr;
};

struct Order {
    std::string id;
    milliseconds placed_at{0};
    milliseconds deadline{0};
    std::optional<milliseconds> paid_at;  // when the customer pays, if ever
    bool sent = false;
    bool cancelled = false;  // paid in time: its timer was cancelled
    int deliveries = 0;      // timers fired; more than one would be a redelivery
};

struct Event {
    milliseconds at;
    bool payment;  // else the order comes in
    std::size_t order;
};

// Everything the consumer threads and the main thread share.
struct Board {
    void say(const char* format, ...) __attribute__((format(printf, 2, 3))) {
        const double t = std::chrono::duration<double>(Clock::now() - start).count();
        std::lock_guard lock(print_mutex);
        std::printf("[%7.3fs] ", t);
        va_list args;
        va_start(args, format);
        std::vprintf(format, args);
        va_end(args);
        std::printf("\n");
        std::fflush(stdout);
    }

    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Order> orders;
    std::vector<long long> lateness_ms;
    int early = 0;
    int after_cancel = 0;
    int redelivered = 0;
    std::size_t closed = 0;
    std::size_t cancelled = 0;
    bool interrupted = false;
    Clock::time_point start = Clock::now();
    std::mutex print_mutex;
};

std::vector<Order> plan(int count, std::mt19937& rng) {
    std::uniform_int_distribution<long long> arrival(0, kArrivals.count());
    std::uniform_int_distribution<long long> deadline(kMinDeadline.count(), kMaxDeadline.count());
    std::uniform_real_distribution<double> pay_point(0.15, 0.6);
    std::vector<Order> orders(static_cast<std::size_t>(count));
    std::vector<long long> arrivals;
    for (std::size_t i = 0; i < orders.size(); ++i) arrivals.push_back(arrival(rng));
    std::sort(arrivals.begin(), arrivals.end());
    // Exactly this share pays, so that every run shows both outcomes.
    std::vector<bool> pays(orders.size(), false);
    const auto paying = static_cast<std::size_t>(std::llround(kPaidShare * count));
    std::fill(pays.begin(), pays.begin() + static_cast<std::ptrdiff_t>(paying), true);
    std::shuffle(pays.begin(), pays.end(), rng);
    for (std::size_t i = 0; i < orders.size(); ++i) {
        char id[32];
        std::snprintf(id, sizeof id, "order-%03zu", i + 1);
        orders[i].id = id;
        orders[i].placed_at = milliseconds(arrivals[i]);
        orders[i].deadline = milliseconds(deadline(rng));
        if (pays[i]) {
            const auto after = static_cast<long long>(
                std::llround(static_cast<double>(orders[i].deadline.count()) * pay_point(rng)));
            orders[i].paid_at = orders[i].placed_at + milliseconds(after);
        }
    }
    return orders;
}

std::vector<Event> events_of(const std::vector<Order>& orders) {
    std::vector<Event> events;
    for (std::size_t i = 0; i < orders.size(); ++i) {
        events.push_back({orders[i].placed_at, false, i});
        if (orders[i].paid_at) events.push_back({*orders[i].paid_at, true, i});
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const Event& a, const Event& b) { return a.at < b.at; });
    return events;
}

Outcome on_timer(Board& board, const Delivery& d) {
    std::unique_lock lock(board.mutex);
    auto it = std::find_if(board.orders.begin(), board.orders.end(),
                           [&](const Order& o) { return o.id == d.id(); });
    const long long late = d.lateness().count();
    if (it == board.orders.end()) return Ack{};  // not ours: cannot happen on a fresh queue
    Order& o = *it;
    ++o.deliveries;
    board.lateness_ms.push_back(late);
    if (late < 0) ++board.early;
    if (o.cancelled) ++board.after_cancel;
    if (o.deliveries > 1) ++board.redelivered;
    if (o.deliveries == 1 && !o.cancelled) ++board.closed;
    board.changed.notify_all();
    lock.unlock();
    board.say("%s  deadline, unpaid  order closed (timer %lld ms late%s)", d.id().c_str(), late,
              late < 0 ? ": EARLY" : "");
    return Ack{};
}

long long percentile(const std::vector<long long>& sorted, double q) {
    if (sorted.empty()) return 0;
    auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// Counts what happened, compares with the queue's own counters, prints the summary.
bool report(Board& board, QueueAdmin& admin) {
    const QueueStats s = admin.stats();
    std::lock_guard lock(board.mutex);
    std::size_t sent = 0;
    for (const auto& o : board.orders) sent += o.sent ? 1 : 0;
    std::vector<long long> late = board.lateness_ms;
    std::sort(late.begin(), late.end());
    const std::size_t left = s.scheduled + s.ready + s.in_flight + s.dead;
    const bool none_lost = board.cancelled + board.closed == sent && left == 0 &&
                           s.totals.sent == sent && s.totals.cancelled == board.cancelled &&
                           s.totals.acked == board.closed;
    const bool none_early = board.early == 0;
    std::printf("\nsummary\n");
    std::printf("  messages sent (orders placed)         %zu\n", sent);
    std::printf("  cancelled (paid before the deadline)  %zu\n", board.cancelled);
    std::printf("  delivered (closed unpaid)             %zu\n", board.closed);
    std::printf("  lateness on the Redis clock           p50 %lld ms, p99 %lld ms, max %lld ms\n",
                percentile(late, 0.5), percentile(late, 0.99), late.empty() ? 0 : late.back());
    std::printf("  early deliveries                      %s\n",
                none_early ? "none" : std::to_string(board.early).c_str());
    std::printf("  delivered after a cancel              %s\n",
                board.after_cancel == 0 ? "none" : std::to_string(board.after_cancel).c_str());
    if (board.redelivered > 0) {
        std::printf("  delivered again (at least once)       %d\n", board.redelivered);
    }
    std::printf("  lost                                  %s\n",
                none_lost ? "none" : "SOME: the counts below do not add up");
    std::printf(
        "  check: sent %zu = cancelled %zu + delivered %zu; queue left with %zu; Redis "
        "counted sent %llu, cancelled %llu, acked %llu\n",
        sent, board.cancelled, board.closed, left, static_cast<unsigned long long>(s.totals.sent),
        static_cast<unsigned long long>(s.totals.cancelled),
        static_cast<unsigned long long>(s.totals.acked));
    return none_lost && none_early && board.after_cancel == 0;
}

void clean_up(Queue& queue, QueueAdmin& admin, const std::vector<Order>& orders) {
    try {
        for (const auto& o : orders) queue.cancel(o.id);  // only after an interruption
        admin.purge({.all = true});
    } catch (const Error& e) {
        std::fprintf(stderr, "delayq: cleaning up queue %s failed: %s\n", queue.name().c_str(),
                     e.what());
    }
}

int demo(const DemoArgs& a, const Invocation& invocation) {
    std::mt19937 rng(a.seed_opt->count() > 0 ? a.seed : std::random_device{}());
    Session session(invocation);
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(rng()));
    const std::string name = std::string("demo-orders-") + suffix;
    Queue queue = session.queue(name);
    QueueAdmin admin = session.admin(name);
    session.connect();

    Board board;
    board.orders = plan(a.orders, rng);
    const std::vector<Event> events = events_of(board.orders);
    std::printf(
        "delayq demo: order timeouts on queue %s (%s)\n"
        "%d orders come in over %llds, each with a payment deadline of %lld-%llds: a message due "
        "at the\ndeadline. About half are paid in time, which cancels the message; an order "
        "still unpaid when\nits message arrives is closed.\n\n",
        queue.name().c_str(), session.url().c_str(), a.orders,
        static_cast<long long>(kArrivals.count() / 1000),
        static_cast<long long>(kMinDeadline.count() / 1000),
        static_cast<long long>(kMaxDeadline.count() / 1000));
    std::fflush(stdout);

    ConsumerOptions options;
    options.concurrency = 4;
    Consumer consumer(
        session.leases(name), [&](const Delivery& d) { return on_timer(board, d); }, options);
    SignalWatcher signals([&](int) {
        std::lock_guard lock(board.mutex);
        board.interrupted = true;
        board.changed.notify_all();
    });
    consumer.start();

    board.start = Clock::now();
    const auto start = board.start;
    for (const Event& e : events) {
        {
            std::unique_lock lock(board.mutex);
            board.changed.wait_until(lock, start + e.at, [&] { return board.interrupted; });
            if (board.interrupted) break;
        }
        Order& o = board.orders[e.order];
        if (!e.payment) {
            const SendResult r =
                queue.send("{\"order\":\"" + o.id + "\"}", {.delay = o.deadline, .id = o.id});
            {
                std::lock_guard lock(board.mutex);
                o.sent = !r.duplicate;
            }
            board.say("%s  placed           payment due within %s", o.id.c_str(),
                      format_duration(o.deadline).c_str());
            continue;
        }
        const CancelResult r = queue.cancel(o.id);
        if (r == CancelResult::kCancelled) {
            std::lock_guard lock(board.mutex);
            o.cancelled = true;
            ++board.cancelled;
            board.changed.notify_all();
        }
        board.say("%s  paid             %s", o.id.c_str(),
                  r == CancelResult::kCancelled ? "timer cancelled"
                                                : "too late: the order was already closed");
    }
    {
        std::unique_lock lock(board.mutex);
        board.changed.wait_for(lock, kMaxDeadline + kDrainTimeout, [&] {
            std::size_t sent = 0;
            for (const auto& o : board.orders) sent += o.sent ? 1 : 0;
            return board.interrupted ||
                   (sent == board.orders.size() && board.closed + board.cancelled == sent);
        });
    }
    consumer.stop();
    consumer.wait();
    const bool interrupted = board.interrupted;
    const bool ok = !interrupted && report(board, admin);
    clean_up(queue, admin, board.orders);
    if (interrupted) {
        std::printf("\ninterrupted; queue %s cleaned up\n", queue.name().c_str());
        return kExitFailure;
    }
    std::printf("%s\n", ok ? "\nall checks passed" : "\nCHECKS FAILED");
    return ok ? kExitOk : kExitFailure;
}

}  // namespace

void add_demo(CommandSet& set) {
    auto a = std::make_shared<DemoArgs>();
    CLI::App& cmd = set.add(
        {.path = "demo",
         .summary = "Order timeouts, live: delayed messages, cancels, lateness, nothing lost",
         .details =
             R"(Runs for about ten seconds on a queue of its own (demo-orders-<random>), which it
empties at the end. Exit status 1 when a check fails or it is interrupted.

Examples:
  delayq demo
  delayq demo --orders 200 --redis redis://127.0.0.1:6379)"},
        [a](const Invocation& i) { return demo(*a, i); });
    cmd.add_option("--orders", a->orders, "How many orders (default 20)")
        ->type_name("N")
        ->check(CLI::Range(1, 1000));
    a->seed_opt = cmd.add_option("--seed", a->seed, "Seed of the random plan, to repeat a run")
                      ->type_name("N");
}

}  // namespace delayq::cli
