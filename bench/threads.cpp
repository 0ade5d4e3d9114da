// Producer threads released together, and batched sends from them.

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <latch>
#include <mutex>
#include <random>
#include <thread>

#include "harness.hpp"

namespace delayq::bench {

double run_threads(std::size_t threads, const std::function<void(std::size_t)>& setup,
                   const std::function<void(std::size_t)>& body, const std::function<void()>& ready,
                   const std::function<void()>& done) {
    std::latch set_up(static_cast<std::ptrdiff_t>(threads));
    std::mutex mutex;
    std::condition_variable cv;
    bool go = false;
    bool abort = false;
    std::exception_ptr failure;
    std::vector<SteadyClock::time_point> ends(threads);
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < threads; ++i) {
        pool.emplace_back([&, i] {
            bool ok = true;
            try {
                if (setup) setup(i);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
                ok = false;
            }
            set_up.count_down();
            {
                std::unique_lock lock(mutex);
                cv.wait(lock, [&] { return go || abort; });
                if (abort || !ok) return;
            }
            try {
                body(i);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
            }
            ends[i] = SteadyClock::now();
        });
    }
    set_up.wait();
    bool failed = false;
    {
        std::lock_guard lock(mutex);
        failed = failure != nullptr;
    }
    SteadyClock::time_point t0;
    if (failed) {
        std::lock_guard lock(mutex);
        abort = true;
    } else {
        if (ready) ready();
        t0 = SteadyClock::now();
        std::lock_guard lock(mutex);
        go = true;
    }
    cv.notify_all();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    if (done) done();
    auto last = *std::max_element(ends.begin(), ends.end());
    return std::chrono::duration<double>(last - t0).count();
}

double send_batches(const std::string& url, const ClientOptions& client_options,
                    const std::string& queue_name, std::size_t n, std::size_t batch,
                    std::size_t producers, const SendOptions& options,
                    std::chrono::milliseconds spread, const std::function<void()>& ready,
                    const std::function<void()>& done) {
    std::vector<std::unique_ptr<Client>> clients(producers);
    std::vector<std::vector<Message>> batches(producers);
    auto setup = [&](std::size_t i) {
        clients[i] = std::make_unique<Client>(url, client_options);
        clients[i]->ping();
        batches[i].assign(batch, Message{payload16(), options});
        if (spread.count() > 0) {
            // Delays drawn once per producer, so that the timed loop draws nothing.
            std::mt19937 rng(static_cast<std::uint32_t>(i));
            std::uniform_int_distribution<std::int64_t> extra(0, spread.count());
            for (auto& m : batches[i]) m.options.delay += Duration(extra(rng));
        }
    };
    auto body = [&](std::size_t i) {
        Queue q = clients[i]->queue(queue_name);
        std::size_t share = n / producers + (i < n % producers ? 1 : 0);
        std::span<const Message> all(batches[i]);
        while (share > 0) {
            std::size_t k = std::min(share, batch);
            q.send_batch(all.first(k));
            share -= k;
        }
    };
    auto finish = [&] {
        clients.clear();  // connections closed before the closing measurement
        if (done) done();
    };
    return run_threads(producers, setup, body, ready, finish);
}

}  // namespace delayq::bench
