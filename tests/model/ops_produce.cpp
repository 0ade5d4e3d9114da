// The producers' operations, and the clock.
#include <exception>
#include <future>
#include <span>
#include <sstream>

#include "model/driver.hpp"

namespace delayq::model {
namespace {

std::string describe_message(const Message& m) {
    std::ostringstream out;
    const SendOptions& o = m.options;
    out << (o.id ? "id=" + show(*o.id) : std::string("generated"));
    if (o.at) out << " at=" << show(*o.at);
    if (o.delay.count() != 0 || !o.at) out << " delay=" << show(o.delay);
    if (o.max_attempts != 0) out << " max=" << o.max_attempts;
    if (o.expire_after.count() != 0) out << " expire_after=" << show(o.expire_after);
    out << " payload=" << m.payload.size() << "B";
    return out.str();
}

std::string describe_message(const std::vector<Message>& batch) {
    std::ostringstream out;
    out << batch.size() << " messages";
    for (std::size_t i = 0; i < std::min<std::size_t>(batch.size(), 3); ++i) {
        out << (i == 0 ? ": " : "; ") << describe_message(batch[i]);
    }
    if (batch.size() > 3) out << "; ...";
    return out.str();
}

// How far ahead the clock may jump onto an instant: past every retention age and lease here.
constexpr std::int64_t kHorizonMs = 100LL * 24 * 3'600'000;

std::uint64_t sequence_number(const std::string& id) { return std::stoull(id, nullptr, 16); }

}  // namespace

void Driver::advance_clock(Target& t) {
    std::int64_t us = clock_step_us(rng_);
    // Often onto an instant where something changes, a millisecond before it, or just inside its
    // last microsecond: boundaries are where the off-by-ones are.
    // Never past a few months ahead: a message due in the year 9999 must not take the server's
    // clock there (the sequence counter tracks the clock in microseconds, exact only until 2255:
    // design.md section 2).
    std::vector<QueueModel::Instant> instants = t.model.instants();
    std::erase_if(instants, [&](const QueueModel::Instant& i) {
        return i.ms > clock_.now_ms() + kHorizonMs;
    });
    if (!instants.empty() && rng_.chance(0.5)) {
        const QueueModel::Instant& at = rng_.pick(instants);
        const std::int64_t target_us =
            (at.ms - (rng_.chance(0.7) ? 0 : 1)) * 1000 + (rng_.chance(0.5) ? 0 : 999);
        if (target_us > clock_.now_us()) {
            us = target_us - clock_.now_us();
            // What the clock reaches is only seen by the next operation: a nack of the message
            // when it is in flight (its expiry), else a fetch (due, expired, lapsed, aged out).
            const auto it = t.model.messages().find(at.id);
            const bool in_flight =
                it != t.model.messages().end() && it->second.place == Place::kInFlight;
            follow_up_ = in_flight && rng_.chance(0.7) ? &Driver::nack : &Driver::fetch;
            if (t.model.schedules().contains(at.id)) follow_up_ = &Driver::schedule_claim;
            follow_up_target_ = &t;
            follow_up_id_ = at.id;
        }
    }
    note(t, "advance the clock by " + std::to_string(us) + "us");
    clock_.advance(us);
    for (auto& target : targets_) target->model.set_now_us(clock_.now_us());
}

void Driver::send_one(Target& t) {
    const Message m{random_payload(rng_), send_options(rng_, clock_.now_ms())};
    const bool small = rng_.chance(0.15);
    const std::int64_t via = rng_.between(0, 2);
    static constexpr const char* kVia[] = {"send", "send_async(future)", "send_async(callback)"};
    note(t, std::string(kVia[via]) + (small ? " (small limit) " : " ") + describe_message(m));
    // The public validate_due must refuse exactly what the script will.
    if (valid_send(Message{"", m.options}, QueueOptions{})) {
        bool refused = false;
        try {
            validate_due(m.options, TimePoint(Duration(clock_.now_ms())));
        } catch (const InvalidArgument&) {
            refused = true;
        }
        diff_.eq("validate_due refuses", t.model.script_refuses(m.options), refused);
    }
    const QueueOptions limits =
        small ? QueueOptions{.max_payload_bytes = kSmallPayloadLimit} : QueueOptions{};
    const auto expected = t.model.send(std::span(&m, 1), limits);
    Queue& q = small ? t.small : t.queue;
    const auto actual = call([&] {
        if (via == 0) return std::vector<SendResult>{q.send(m.payload, m.options)};
        if (via == 1) return std::vector<SendResult>{q.send_async(m.payload, m.options).get()};
        std::promise<SendResult> answer;
        std::future<SendResult> answered = answer.get_future();
        q.send_async(m.payload, m.options,
                     [&answer](const std::exception_ptr& error, SendResult r) {
                         if (error) {
                             answer.set_exception(error);
                         } else {
                             answer.set_value(std::move(r));
                         }
                     });
        return std::vector<SendResult>{answered.get()};
    });
    if (outcome("send", expected, actual,
                [&](const auto& e, const auto& a) { compare_each(diff_, "send", e, a); })) {
        if (const std::string wrong = t.model.name_generated(*actual); !wrong.empty()) {
            diff_.add("send: " + wrong);
        }
        for (const SendResult& r : *actual) {
            if (!m.options.id) {
                const std::uint64_t n = sequence_number(r.id);
                if (n <= t.last_generated) diff_.add("send: generated id " + r.id + " not new");
                t.last_generated = n;
            }
        }
        remember(t, *actual);
        if (actual->front().duplicate) tally("send -> duplicate");
        result(actual->front().id + (actual->front().duplicate ? " duplicate" : "") + " due " +
               show(actual->front().due));
    }
}

void Driver::send_many(Target& t) {
    const std::vector<Message> batch = send_batch(rng_, clock_.now_ms());
    note(t, "send_batch(" + describe_message(batch) + ")");
    const auto expected = t.model.send(batch, QueueOptions{});
    const auto actual = call([&] { return t.queue.send_batch(batch); });
    if (outcome("send_batch", expected, actual,
                [&](const auto& e, const auto& a) { compare_each(diff_, "send_batch", e, a); })) {
        if (const std::string wrong = t.model.name_generated(*actual); !wrong.empty()) {
            diff_.add("send_batch: " + wrong);
        }
        for (std::size_t i = 0; i < std::min(batch.size(), actual->size()); ++i) {
            if (batch[i].options.id) continue;
            const std::uint64_t n = sequence_number((*actual)[i].id);
            if (n <= t.last_generated) diff_.add("send_batch: generated id not new");
            t.last_generated = n;
        }
        remember(t, *actual);
        for (const SendResult& r : *actual) {
            if (r.duplicate) tally("send_batch -> duplicate");
        }
    }
}

void Driver::cancel(Target& t) {
    const std::string id = pick_id(rng_, ids(t));
    note(t, "cancel(" + show(id) + ")");
    const auto expected = t.model.cancel(id);
    const auto actual = call([&] { return t.queue.cancel(id); });
    if (outcome("cancel", expected, actual,
                [&](const auto& e, const auto& a) { diff_.eq("cancel", e, a); })) {
        tally("cancel -> " + show(*actual));
    }
}

void Driver::reschedule(Target& t) {
    const std::string id = pick_id(rng_, ids(t));
    Expect<RescheduleResult> expected;
    std::optional<RescheduleResult> actual;
    if (rng_.chance(0.5)) {
        const Duration d = delay(rng_);
        note(t, "reschedule(" + show(id) + ", " + show(d) + ")");
        expected = t.model.reschedule(id, d);
        actual = call([&] { return t.queue.reschedule(id, d); });
    } else {
        const TimePoint at = due_time(rng_, clock_.now_ms());
        note(t, "reschedule_at(" + show(id) + ", " + show(at) + ")");
        expected = t.model.reschedule_at(id, at);
        actual = call([&] { return t.queue.reschedule_at(id, at); });
    }
    if (outcome("reschedule", expected, actual,
                [&](const auto& e, const auto& a) { compare(diff_, "reschedule", e, a); })) {
        tally("reschedule -> " + show(actual->status));
    }
}

}  // namespace delayq::model
