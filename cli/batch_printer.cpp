#include "batch_printer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>

#include "batch_acker.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "json/message.hpp"
#include "lease_keeper.hpp"

namespace delayq::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Messages leased per fetch: the first fetch's (the most is kMaxBatch, what one call takes).
// Batches grow while the output keeps up and shrink when a write is slow, so that a slow
// reader does not hold many messages leased that another consumer could take.
constexpr std::size_t kFirstBatch = 100;
constexpr auto kSlowWrite = std::chrono::milliseconds(50);
// How long run() sleeps at most before trying Redis again after a failure.
constexpr auto kMaxBackOff = std::chrono::seconds(2);
// A wait for the waiter has to end some time; it fires at least every idle_check anyway.
constexpr auto kLongWait = std::chrono::hours(1);

std::chrono::milliseconds back_off_delay(int failures) {
    const auto d = std::chrono::milliseconds(100) * (1 << std::min(failures, 5));
    return std::min<std::chrono::milliseconds>(d, kMaxBackOff);
}

void report_dead_letter(const DeadLetterEvent& e) {
    std::fprintf(stderr, "delayq: message %s moved to the dead letters (%s after %d attempts)\n",
                 e.id.c_str(), e.reason.c_str(), e.attempts);
}

void append(std::string& out, const Delivery& d, PrintFormat format) {
    if (format == PrintFormat::kRaw) {
        out += d.payload();
        return;
    }
    json::append_delivery(out, d, std::nullopt);  // the lease stays here: this acks for its reader
    out += '\n';
}

}  // namespace

BatchPrinter::BatchPrinter(Leases leases, PrintOptions options)
    : leases_(std::move(leases)), options_(options), waiter_(leases_), batch_size_(kFirstBatch) {}

void BatchPrinter::request_stop() {
    stop_ = true;
    waiter_.stop();  // ends a wait for messages at once
}

std::size_t BatchPrinter::run() {
    LeaseKeeper keeper(leases_, options_.visibility);
    BatchAcker acker(leases_, options_.visibility);
    waiter_.start();
    auto last_activity = SteadyClock::now();
    int failures = 0;
    while (!stop_) {
        std::size_t want = batch_size_;
        if (options_.max) {
            if (printed_ >= *options_.max) break;
            // Never more leased than still to print: none has to be handed back at the end.
            want = std::min(want, *options_.max - printed_);
        }
        const auto idle_until =
            options_.timeout ? last_activity + *options_.timeout : SteadyClock::now() + kLongWait;
        if (options_.timeout && SteadyClock::now() >= idle_until) break;
        // Read before the fetch, so that a firing between the fetch and the wait is not missed.
        const std::uint64_t seen = waiter_.epoch();
        FetchResult r;
        try {
            r = leases_.fetch(want, options_.visibility);
            failures = 0;
        } catch (const ConfigurationError&) {
            throw;
        } catch (const PermissionError&) {
            throw;  // the Redis user's rights do not come back by trying again
        } catch (const Error& e) {
            std::fprintf(stderr, "delayq: fetching from queue %s failed (%s); trying again\n",
                         leases_.name().c_str(), e.what());
            waiter_.wait(waiter_.epoch(), SteadyClock::now() + back_off_delay(failures++));
            continue;
        }
        waiter_.note_fetch(r);
        for (const auto& e : r.dead_lettered) report_dead_letter(e);
        if (r.deliveries.empty()) {
            waiter_.wait(seen, idle_until);
            continue;
        }
        const bool written = print(r.deliveries, keeper, acker);
        last_activity = SteadyClock::now();
        if (!written) break;
    }
    waiter_.stop();
    acker.finish();
    return printed_;
}

bool BatchPrinter::print(const std::vector<Delivery>& batch, LeaseKeeper& keeper,
                         BatchAcker& acker) {
    out_.clear();
    ends_.clear();
    leases_of_batch_.clear();
    for (const Delivery& d : batch) {
        append(out_, d, options_.format);
        ends_.push_back(out_.size());
        leases_of_batch_.push_back(d.lease());
    }
    const auto began = SteadyClock::now();
    keeper.hold(leases_of_batch_);
    const std::size_t written = write_until_failure(STDOUT_FILENO, out_);
    const int write_error = errno;
    keeper.release();
    const bool slow = SteadyClock::now() - began > kSlowWrite;

    // Only messages written whole were passed on.
    const auto whole = static_cast<std::size_t>(
        std::upper_bound(ends_.begin(), ends_.end(), written) - ends_.begin());
    const std::span<const Lease> leases(leases_of_batch_);
    acker.push({leases.begin(), leases.begin() + static_cast<std::ptrdiff_t>(whole)});
    printed_ += whole;
    if (whole < leases.size()) {
        // The rest goes back to the queue untouched, for another consumer or a later run.
        hand_back(leases.subspan(whole));
        // A reader that is gone (`| head`) has what it wanted: not a failure of ours.
        if (write_error == EPIPE) return false;
        throw RuntimeFailure("cannot write to stdout: " + std::string(std::strerror(write_error)) +
                             " (" + std::to_string(printed_) + " messages printed)");
    }
    if (slow) {
        batch_size_ = std::max<std::size_t>(1, batch_size_ / 2);
    } else if (batch.size() == batch_size_) {
        batch_size_ = std::min(kMaxBatch, batch_size_ * 2);
    }
    return true;
}

void BatchPrinter::hand_back(std::span<const Lease> leases) {
    try {
        leases_.release(leases);  // one call: a batch holds at most kMaxBatch
    } catch (const Error&) {
        // their leases run out and they are delivered again
    }
}

}  // namespace delayq::cli
