#include "model/inputs.hpp"

#include <chrono>
#include <cmath>
#include <limits>

namespace delayq::model {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kDayMs = 24 * kHourMs;

// Few enough that ids repeat: duplicates, and ids reused once their message has gone.
std::string caller_id(Rng& rng) {
    static const std::vector<std::string> names = {
        "order-1", "order-2", "order-3", "order-4",  "order-5",  "order 6: eu", "a",
        "b:c",     "x y z",   "~!@#$%",  "order-10", "order-11", "order-12",    "order-13"};
    if (rng.chance(0.7)) return rng.pick(names);
    return "id-" + std::to_string(rng.between(0, 30));
}

std::string bad_id(Rng& rng) {
    static const std::vector<std::string> bad_ids = {
        "",     "with{brace}",         "tab\there", "new\nline",      "caf\xc3\xa9",
        "\x7f", std::string(201, 'x'), "}",         "0123456789abcd", "ffffffffffffff"};
    return rng.pick(bad_ids);
}

Duration send_delay(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 25) return 0ms;
    if (r < 45) return Duration(rng.between(1, 20));
    if (r < 70) return Duration(rng.between(20, 5'000));
    if (r < 85) return Duration(rng.between(5'000, 180'000));
    if (r < 95) return Duration(kHourMs + rng.between(1, 2 * kHourMs));  // cold
    return Duration(rng.between(kDayMs, 40 * kDayMs));
}

}  // namespace

std::string random_payload(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    std::size_t size = 0;
    if (r < 10) {
        size = 0;
    } else if (r < 80) {
        size = static_cast<std::size_t>(rng.between(1, 24));
    } else if (r < 99 || rng.chance(0.8)) {
        size = static_cast<std::size_t>(rng.between(25, 80));
    } else {
        // Larger than a block may hold (BLOCK_MAX_BYTES, 65,535): stored on its own.
        size = static_cast<std::size_t>(rng.between(65'000, 70'000));
    }
    std::string out(size, 'p');
    for (char& c : out) {
        // Any byte: payloads are binary.
        c = rng.chance(0.9) ? static_cast<char>(rng.between('a', 'z'))
                            : static_cast<char>(rng.between(0, 255));
    }
    return out;
}

std::string error_text(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 10) return "";
    if (r < 95) return "error " + std::to_string(rng.between(0, 999));
    return std::string(static_cast<std::size_t>(rng.between(4090, 5000)), 'e');  // cut to 4096
}

std::string pick_id(Rng& rng, const IdPool& ids) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 65 && !ids.current.empty()) return rng.pick(ids.current);
    if (r < 85 && !ids.history.empty()) return rng.pick(ids.history);
    if (r < 96) return caller_id(rng);
    return bad_id(rng);
}

SendOptions send_options(Rng& rng, std::int64_t now_ms) {
    SendOptions o;
    const std::int64_t id_kind = rng.between(0, 99);
    if (id_kind < 45) {
        o.id = caller_id(rng);
    } else if (id_kind < 48) {
        o.id = bad_id(rng);
    }
    const std::int64_t due_kind = rng.between(0, 99);
    if (due_kind < 70) {
        o.delay = send_delay(rng);
    } else if (due_kind < 95) {
        o.at = due_time(rng, now_ms);
    } else if (due_kind < 97) {
        // Refused by the client: negative, past the year 9999, or both a delay and a time.
        const std::int64_t bad = rng.between(0, 2);
        if (bad == 0) o.delay = Duration(-rng.between(1, 1000));
        if (bad == 1) o.delay = Duration(kMaxTimeMs + 1);
        if (bad == 2) {
            o.delay = 5ms;
            o.at = TimePoint(Duration(now_ms));
        }
    } else {
        // Valid for the client, but now + delay passes the year 9999: the script refuses it.
        o.delay = Duration(kMaxTimeMs - now_ms + rng.between(1, 1000));
    }
    const std::int64_t max_kind = rng.between(0, 99);
    if (max_kind < 55) {
        o.max_attempts = 0;
    } else if (max_kind < 95) {
        o.max_attempts = static_cast<int>(rng.between(1, 5));
    } else if (max_kind < 98) {
        o.max_attempts = 1'000'000;
    } else {
        o.max_attempts = rng.chance(0.5) ? -1 : 1'000'001;
    }
    const std::int64_t expire_kind = rng.between(0, 99);
    if (expire_kind < 60) return o;
    if (expire_kind < 96) {
        // After the delay; with a due time the script checks it against that time, and may
        // refuse it.
        o.expire_after = o.delay + Duration(rng.between(1, 10'000));
    } else if (expire_kind < 98) {
        o.expire_after = o.delay;  // not after the delay: refused
    } else {
        o.expire_after = Duration(-1);
    }
    return o;
}

namespace {

// Options a batch's message may have: one invalid message refuses the whole batch, so a batch
// holds one only now and then.
SendOptions batch_options(Rng& rng, std::int64_t now_ms, bool allow_invalid) {
    for (;;) {
        SendOptions o = send_options(rng, now_ms);
        if (allow_invalid ||
            (valid_send(Message{"", o}, QueueOptions{}) && !script_refuses(o, now_ms))) {
            return o;
        }
    }
}

}  // namespace

std::vector<Message> send_batch(Rng& rng, std::int64_t now_ms) {
    const std::int64_t kind = rng.between(0, 99);
    const bool allow_invalid = rng.chance(0.1);
    std::vector<Message> out;
    if (kind < 2) return out;  // empty: sends nothing
    if (kind < 3) {
        out.assign(kMaxBatch + 1, Message{"x", {}});  // too many: refused whole
        return out;
    }
    if (kind < 25) {
        // A run of generated ids far ahead: stored in blocks (16 or more) or cold records.
        const auto n = static_cast<std::size_t>(rng.between(10, 40));
        const Duration d = Duration(kHourMs + rng.between(1, 3 * kHourMs));
        const int max = rng.chance(0.5) ? 0 : static_cast<int>(rng.between(1, 4));
        for (std::size_t i = 0; i < n; ++i) {
            out.push_back({random_payload(rng), {.delay = d, .max_attempts = max}});
        }
        return out;
    }
    if (kind < 45) {
        // The same options but each its own due time: a run that states a due time per message.
        const SendOptions base = batch_options(rng, now_ms, allow_invalid);
        const auto n = static_cast<std::size_t>(rng.between(2, 12));
        for (std::size_t i = 0; i < n; ++i) {
            SendOptions o = base;
            if (o.at) {
                o.at = due_time(rng, now_ms);
            } else {
                o.delay = send_delay(rng);
                if (o.expire_after.count() > 0) o.expire_after = o.delay + 1s;
            }
            if (o.id) o.id = caller_id(rng);
            out.push_back({random_payload(rng), o});
        }
        return out;
    }
    const auto n = static_cast<std::size_t>(rng.between(1, 12));
    for (std::size_t i = 0; i < n; ++i)
        out.push_back({random_payload(rng), send_options(rng, now_ms)});
    return out;
}

std::size_t fetch_count(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 2) return rng.chance(0.5) ? 0 : kMaxBatch + 1;
    if (r < 80) return static_cast<std::size_t>(rng.between(1, 5));
    return static_cast<std::size_t>(rng.between(6, 60));
}

Duration visibility(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 2) return rng.chance(0.5) ? 0ms : Duration(kMaxTimeMs + 1);
    if (r < 30) return Duration(rng.between(1, 50));
    if (r < 70) return Duration(rng.between(50, 10'000));
    return Duration(rng.between(10'000, 120'000));
}

Duration delay(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 2) return Duration(-rng.between(1, 100));
    if (r < 20) return 0ms;
    if (r < 70) return Duration(rng.between(1, 5'000));
    if (r < 90) return Duration(rng.between(5'000, 2 * kHourMs));
    if (r < 99) return Duration(rng.between(2 * kHourMs, 50 * kDayMs));
    return Duration(kMaxTimeMs);  // capped at the year 9999 by nack, refused by reschedule
}

TimePoint due_time(Rng& rng, std::int64_t now_ms) {
    const std::int64_t r = rng.between(0, 99);
    std::int64_t t = now_ms;
    if (r < 3) {
        t = rng.chance(0.5) ? -1 : kMaxTimeMs + 1;  // refused by the client
    } else if (r < 20) {
        t = now_ms - rng.between(0, 60'000);  // already due
    } else if (r < 25) {
        t = rng.between(0, 1000);  // 1970
    } else if (r < 27) {
        t = kMaxTimeMs;
    } else if (r < 85) {
        t = now_ms + rng.between(0, 10'000);
    } else {
        t = now_ms + kHourMs + rng.between(1, 3 * kHourMs);
    }
    return TimePoint(Duration(t));
}

SettingsUpdate settings_update(Rng& rng, bool known_bugs) {
    // Fractions of a million: what any number of 14 significant digits reads back exactly.
    const auto real = [&](double lo, double hi) {
        const double x = rng.real(lo, hi);
        return known_bugs ? x : std::floor(x * 1e6) / 1e6;
    };
    SettingsUpdate u;
    if (rng.chance(0.5)) {
        const std::int64_t r = rng.between(0, 99);
        if (r < 85) {
            u.max_attempts = static_cast<int>(rng.between(1, 5));
        } else if (r < 95) {
            u.max_attempts = static_cast<int>(rng.between(6, 1'000'000));
        } else {
            u.max_attempts = rng.chance(0.5) ? 0 : 1'000'001;
        }
    }
    if (rng.chance(0.4)) {
        Backoff b;
        b.initial = Duration(rng.between(0, 3'000));
        b.max = b.initial + Duration(rng.between(0, 60'000));
        static const std::vector<double> multipliers = {1.0, 1.5, 2.0, 3.0, 10.0};
        b.multiplier = rng.chance(0.8) ? rng.pick(multipliers) : real(1.0, 4.0);
        static const std::vector<double> jitters = {0.0, 0.2, 0.5, 1.0};
        b.jitter = rng.chance(0.8) ? rng.pick(jitters) : real(0.0, 1.0);
        if (known_bugs && rng.chance(0.1)) b.max = Duration(kMaxTimeMs - rng.between(0, 1000));
        const std::int64_t bad = rng.between(0, 99);
        if (bad == 0) b.max = b.initial - 1ms;
        if (bad == 1) b.multiplier = 0.5;
        if (bad == 2) b.jitter = 1.5;
        if (bad == 3) b.jitter = std::numeric_limits<double>::quiet_NaN();
        if (bad == 4) b.initial = -1ms;
        u.backoff = b;
    }
    if (rng.chance(0.3)) {
        const std::int64_t r = rng.between(0, 99);
        if (r < 20) {
            u.dead_max_count = 0;
        } else if (r < 80) {
            u.dead_max_count = static_cast<std::size_t>(rng.between(1, 8));
        } else if (r < 98) {
            u.dead_max_count = 100'000;
        } else {
            u.dead_max_count = std::size_t{1'000'000'000'001};  // over the limit
        }
    }
    if (rng.chance(0.3)) {
        const std::int64_t r = rng.between(0, 99);
        if (r < 25) {
            u.dead_max_age = 0ms;
        } else if (r < 70) {
            u.dead_max_age = Duration(rng.between(1, 60'000));
        } else if (r < 98) {
            u.dead_max_age = Duration(rng.between(kHourMs, 30 * kDayMs));
        } else if (known_bugs && r < 99) {
            u.dead_max_age = Duration(kMaxTimeMs - rng.between(0, 1000));
        } else {
            u.dead_max_age = Duration(-1);
        }
    }
    return u;
}

DeadLetterSelector selector(Rng& rng, const IdPool& ids, const std::vector<std::string>& dead) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 25) return {.all = true};
    if (r < 28) return {.ids = {pick_id(rng, ids)}, .all = true};  // both: refused
    DeadLetterSelector s;
    const std::int64_t n = rng.between(0, 4);
    for (std::int64_t i = 0; i < n; ++i) {
        if (!dead.empty() && rng.chance(0.6)) {
            s.ids.push_back(rng.pick(dead));
        } else {
            s.ids.push_back(pick_id(rng, ids));
        }
    }
    if (!s.ids.empty() && rng.chance(0.2)) s.ids.push_back(s.ids.front());  // named twice
    return s;
}

std::int64_t clock_step_us(Rng& rng) {
    const std::int64_t r = rng.between(0, 99);
    if (r < 15) return rng.between(1, 999);  // within the millisecond, or just across it
    if (r < 40) return rng.between(1'000, 20'000);
    if (r < 75) return rng.between(20'000, 3'000'000);
    if (r < 90) return rng.between(3'000'000, 200'000'000);
    if (r < 97) return rng.between(kHourMs, 4 * kHourMs) * 1000;
    return rng.between(kDayMs, 35 * kDayMs) * 1000;
}

}  // namespace delayq::model
