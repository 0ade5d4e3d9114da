#include "validate.hpp"

#include <string>

#include "delayq/error.hpp"
#include "delayq/time.hpp"
#include "delayq/validate.hpp"
#include "keys.hpp"

namespace delayq::detail {
namespace {

[[noreturn]] void invalid(std::string_view what, std::string_view why) {
    throw InvalidArgument(std::string(what) + " " + std::string(why));
}

}  // namespace

void validate_text(std::string_view text, std::string_view what, bool allow_space,
                   std::size_t max_bytes) {
    if (text.empty()) invalid(what, "must not be empty");
    if (text.size() > max_bytes) {
        invalid(what, "is " + std::to_string(text.size()) + " bytes, over the limit of " +
                          std::to_string(max_bytes));
    }
    for (char ch : text) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '{' || c == '}') {
            invalid(what, "must not contain braces (they would change the Redis Cluster hash tag)");
        }
        if (c < 0x20 || c >= 0x7f) invalid(what, "must contain only printable ASCII characters");
        if (c == ' ' && !allow_space) invalid(what, "must not contain spaces");
    }
}

void validate_queue_name(std::string_view name) {
    validate_text(name, "queue name", false, kMaxNameBytes);
}

void validate_id(std::string_view id) { validate_text(id, "message id", true, kMaxNameBytes); }

void validate_payload(std::string_view payload, std::size_t max_bytes) {
    if (payload.size() > max_bytes) {
        throw InvalidArgument("payload is " + std::to_string(payload.size()) +
                              " bytes, over the limit of " + std::to_string(max_bytes));
    }
}

std::int64_t validate_delay(Duration delay, std::string_view what) {
    if (delay.count() < 0) invalid(what, "must not be negative");
    if (delay.count() > kMaxTimeMs) invalid(what, "is absurdly long (past the year 9999)");
    return delay.count();
}

std::int64_t validate_time(TimePoint at, std::string_view what) {
    const std::int64_t ms = at.time_since_epoch().count();
    if (ms < 0) invalid(what, "is before 1970");
    if (ms > kMaxTimeMs) invalid(what, "is after the year 9999");
    return ms;
}

std::int64_t validate_visibility(Duration visibility) {
    if (visibility.count() < 1) invalid("visibility timeout", "must be at least 1 ms");
    return validate_delay(visibility, "visibility timeout");
}

void validate_send(const SendOptions& options) {
    if (options.id) {
        validate_id(*options.id);
        if (is_sequence_key(*options.id)) {
            invalid("message id",
                    "must not be " + std::to_string(kSeqLen) +
                        " lowercase hex digits: that form is reserved for generated ids");
        }
    }
    if (options.at && options.delay.count() != 0) {
        invalid("send options", "must not set both delay and at");
    }
    validate_delay(options.delay, "delay");
    if (options.at) validate_time(*options.at, "due time");
    if (options.max_attempts < 0 || options.max_attempts > kMaxAttempts) {
        invalid("max_attempts", "must be from 1 to " + std::to_string(kMaxAttempts) +
                                    " (or 0 for the queue's default)");
    }
    validate_delay(options.expire_after, "expire_after");
    if (options.expire_after.count() > 0 && !options.at && options.expire_after <= options.delay) {
        invalid("expire_after",
                "must be longer than the delay (the message would expire "
                "before it is due)");
    }
}

void validate_queue_options(const QueueOptions& options) {
    if (options.max_payload_bytes > kMaxPayloadBytes) {
        invalid("max_payload_bytes", "must be at most 512 MiB (Redis's string limit)");
    }
    if (options.send_linger.count() < 0 || options.send_linger > std::chrono::seconds(1)) {
        invalid("send_linger", "must be from 0 to 1 s");
    }
    detail::validate_durability(options.durability);
}

void validate_durability(const Durability& durability) {
    if (durability.replicas < 0 || durability.replicas > kMaxWaitReplicas) {
        invalid("durability.replicas", "must be from 0 to " + std::to_string(kMaxWaitReplicas));
    }
    if (durability.timeout.count() < 0 || durability.timeout > kMaxWaitTimeout) {
        invalid("durability.timeout",
                "must be from 0 to " + std::to_string(kMaxWaitTimeout.count()) + " ms");
    }
    if (durability.replicas > 0 && durability.timeout.count() == 0) {
        // WAIT n 0 blocks until n replicas confirm, however long that takes.
        invalid("durability.timeout", "must be more than 0 with replicas (WAIT 0 waits forever)");
    }
}

void validate_consumer_options(const ConsumerOptions& options) {
    if (options.concurrency < 1 || options.concurrency > 10'000) {
        invalid("concurrency", "must be from 1 to 10000");
    }
    if (options.max_batch < 1 || options.max_batch > kMaxBatch) {
        invalid("max_batch", "must be from 1 to " + std::to_string(kMaxBatch));
    }
    if (options.prefetch && *options.prefetch > 10'000) {
        invalid("prefetch", "must be at most 10000");
    }
    validate_visibility(options.visibility_timeout);
    validate_delay(options.shutdown_timeout, "shutdown_timeout");
    // The consumer adds these to steady_clock's now, which counts nanoseconds (about 292 years):
    // anything longer overflowed there (undefined behaviour) instead of being refused.
    const auto timer = [](Duration d, std::string_view what) {
        if (d.count() > kMaxTimerMs) {
            invalid(what, "is absurdly long for a consumer (at most 100 years)");
        }
    };
    timer(options.visibility_timeout, "visibility timeout");
    timer(options.shutdown_timeout, "shutdown_timeout");
    validate_idle_check(options.idle_check);
    if (options.ack_linger.count() < 0 || options.ack_linger > std::chrono::seconds(1)) {
        invalid("ack_linger", "must be from 0 to 1 s");
    }
    if (options.backoff) validate_backoff(*options.backoff);
}

void validate_idle_check(Duration idle_check) {
    if (idle_check.count() < 1) invalid("idle_check", "must be at least 1 ms");
    // Added to steady_clock's now, which counts nanoseconds (about 292 years).
    if (idle_check.count() > kMaxTimerMs) {
        invalid("idle_check", "is absurdly long for a timer (at most 100 years)");
    }
}

void validate_backoff(const Backoff& b) {
    if (b.initial.count() < 0 || b.max < b.initial || !(b.multiplier >= 1.0) ||
        !(b.multiplier <= kMaxBackoffMultiplier) || !(b.jitter >= 0.0 && b.jitter <= 1.0)) {
        invalid("backoff",
                "needs 0 <= initial <= max, 1 <= multiplier <= 1e9 and jitter in [0, 1]");
    }
    validate_delay(b.max, "backoff max");
}

void validate_settings_update(const SettingsUpdate& u) {
    if (u.max_attempts && (*u.max_attempts < 1 || *u.max_attempts > kMaxAttempts)) {
        invalid("max_attempts", "must be from 1 to " + std::to_string(kMaxAttempts));
    }
    if (u.backoff) validate_backoff(*u.backoff);
    if (u.dead_max_count && *u.dead_max_count > kMaxDeadCount) {
        invalid("dead_max_count", "must be at most " + std::to_string(kMaxDeadCount));
    }
    if (u.dead_max_age) validate_delay(*u.dead_max_age, "dead_max_age");
}

}  // namespace delayq::detail

namespace delayq {

void validate_queue_name(std::string_view name) { detail::validate_queue_name(name); }

void validate_message_id(std::string_view id) { detail::validate_id(id); }

void validate_consumer_options(const ConsumerOptions& options) {
    detail::validate_consumer_options(options);
}

void validate_durability(const Durability& durability) { detail::validate_durability(durability); }

void validate_message(std::string_view payload, const SendOptions& options,
                      const QueueOptions& queue) {
    detail::validate_payload(payload, queue.max_payload_bytes);
    detail::validate_send(options);
}

void validate_due(const SendOptions& options, TimePoint now) {
    // send.lua's two checks against its clock, in its terms: due and expiry in unix ms.
    const std::int64_t now_ms = now.time_since_epoch().count();
    const std::int64_t due = options.at ? detail::validate_time(*options.at, "due time")
                                        : now_ms + detail::validate_delay(options.delay, "delay");
    if (due > detail::kMaxTimeMs) {
        detail::invalid("due time", "would fall after the year 9999 (delay " +
                                        format_duration(options.delay) + " from now)");
    }
    if (options.expire_after.count() > 0 &&
        now_ms + detail::validate_delay(options.expire_after, "expire_after") <= due) {
        detail::invalid("expire_after",
                        "ends before the due time (the message would expire "
                        "before it is due)");
    }
}

}  // namespace delayq
