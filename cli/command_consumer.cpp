#include "command_consumer.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <delayq/consumer.hpp>
#include <delayq/error.hpp>
#include <exception>
#include <thread>

#include "errors.hpp"
#include "process.hpp"
#include "run_control.hpp"
#include "signals.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

Outcome run_for(const std::vector<std::string>& command, const Delivery& d) {
    const CommandResult r = run_command(command, d.payload(),
                                        {"DELAYQ_QUEUE=" + d.queue(), "DELAYQ_ID=" + d.id(),
                                         "DELAYQ_ATTEMPT=" + std::to_string(d.attempt()),
                                         "DELAYQ_DUE_MS=" + std::to_string(unix_ms(d.due()))});
    if (r.succeeded()) return Ack{};
    std::fprintf(stderr, "delayq: message %s, attempt %d of %d: %s; %s\n", d.id().c_str(),
                 d.attempt(), d.max_attempts(), r.headline().c_str(),
                 d.attempt() < d.max_attempts() ? "it will be retried" : "no attempts left");
    return Nack{.error = r.describe()};
}

}  // namespace

int run_command_consumer(Leases leases, const CommandConsumerOptions& o) {
    ConsumerOptions options;
    // Never more handlers than messages wanted: see RunControl.
    options.concurrency = o.max ? std::min(o.concurrency, *o.max) : o.concurrency;
    // With --max, lease no message beyond the handlers: one leased and then handed back at the
    // end would still count as delivered.
    if (o.max) options.prefetch = 0;
    if (o.visibility) options.visibility_timeout = *o.visibility;
    options.on_dead_letter = [](const DeadLetterEvent& e) {
        std::fprintf(stderr,
                     "delayq: message %s moved to the dead letters (%s after %d attempts)\n",
                     e.id.c_str(), e.reason.c_str(), e.attempts);
    };

    RunControl control(o.max, options.concurrency, o.timeout);
    Consumer consumer(
        leases,
        [&](const Delivery& d) -> Outcome {
            if (!control.begin()) {
                // Only after a lost lease can more than --max be fetched; hand it back unstarted
                // (the ack that follows then finds the lease gone and changes nothing).
                try {
                    leases.release(d.lease());
                } catch (const Error&) {
                    // its lease runs out and it is delivered again
                }
                return Ack{};
            }
            struct EndGuard {
                RunControl& control;
                ~EndGuard() { control.end(); }
            } guard{control};
            return run_for(o.command, d);
        },
        options);
    control.set_stop([&] { consumer.stop(); });
    std::atomic<bool> interrupted{false};
    SignalWatcher signals([&](int) {
        interrupted = true;
        std::fprintf(stderr,
                     "delayq: stopping: letting running handlers finish (again to exit at once)\n");
        control.request_stop();
    });
    consumer.start();
    // The consumer can also end by itself (a fatal ConfigurationError): then the stop must still
    // reach RunControl, which may be holding handlers back.
    std::exception_ptr failure;
    std::thread waiter([&] {
        try {
            consumer.wait();
        } catch (...) {
            failure = std::current_exception();
        }
        control.request_stop();
    });
    control.wait();
    waiter.join();
    if (failure) std::rethrow_exception(failure);
    if (interrupted) {
        std::fprintf(stderr, "delayq: stopped after %zu messages\n", control.handled());
    }
    return kExitOk;
}

}  // namespace delayq::cli
