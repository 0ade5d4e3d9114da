#pragma once

// Random arguments for the model test's operations: mostly valid, sometimes at a limit, now and
// then invalid (which must change nothing). Only the shapes of the inputs live here; what they
// must do is the model's business.
#include <cstdint>
#include <string>
#include <vector>

#include "delayq/delayq.hpp"
#include "model/model.hpp"
#include "model/rng.hpp"

namespace delayq::model {

// A payload limit small enough that random payloads cross it (a second handle of each queue).
inline constexpr std::size_t kSmallPayloadLimit = 48;

// Ids a message may be sent with, named by the operations on messages: existing ones, ones
// that existed, never-used and invalid ones.
struct IdPool {
    std::vector<std::string> current;  // the model's
    std::vector<std::string> history;  // every id ever sent, generated ones included
};

std::string random_payload(Rng& rng);
std::string error_text(Rng& rng);
std::string pick_id(Rng& rng, const IdPool& ids);
SendOptions send_options(Rng& rng, std::int64_t now_ms);
std::vector<Message> send_batch(Rng& rng, std::int64_t now_ms);
std::size_t fetch_count(Rng& rng);
Duration visibility(Rng& rng);
// A delay for reschedule or a nack.
Duration delay(Rng& rng);
TimePoint due_time(Rng& rng, std::int64_t now_ms);
// With `known_bugs`, also values that the settings readback is known to misreport (doubles of
// more than 14 significant digits, integers of 15 digits: see model_test.cpp).
SettingsUpdate settings_update(Rng& rng, bool known_bugs);
DeadLetterSelector selector(Rng& rng, const IdPool& ids, const std::vector<std::string>& dead);
// How far the clock moves in a step, in microseconds: mostly not or a little, sometimes by
// hours or days (cold records fall due, dead letters age out of retention).
std::int64_t clock_step_us(Rng& rng);

}  // namespace delayq::model
