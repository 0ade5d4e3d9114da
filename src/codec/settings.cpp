#include "codec/settings.hpp"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "validate.hpp"

namespace delayq::detail::settings_codec {
namespace {

// The settings' names in the script (SETTINGS in src/lua/lib/settings.lua).
constexpr std::string_view kMaxAttempts = "max_attempts";
constexpr std::string_view kBackoffInitial = "backoff_initial_ms";
constexpr std::string_view kBackoffMax = "backoff_max_ms";
constexpr std::string_view kBackoffMultiplier = "backoff_multiplier";
constexpr std::string_view kBackoffJitter = "backoff_jitter";
constexpr std::string_view kDeadMaxCount = "dead_max_count";
constexpr std::string_view kDeadMaxAge = "dead_max_age_ms";
constexpr std::string_view kPaused = "paused";

// settings.lua: {layout, then name, value pairs}.
constexpr std::size_t kLayout = 0;
constexpr std::size_t kPairs = 1;

// delete.lua: {'deleted', pending, in_flight, dead} | {'in_flight', in_flight}.
constexpr std::size_t kDeleteStatus = 0;
constexpr std::size_t kDeletePending = 1;
constexpr std::size_t kDeleteInFlight = 2;
constexpr std::size_t kDeleteDead = 3;
constexpr std::size_t kRefusedInFlight = 1;

void add(ScriptArgs& args, std::string_view name, std::int64_t value) {
    args.add(name);
    args.add(value);
}

// Enough digits that the value Redis stores reads back the same.
void add(ScriptArgs& args, std::string_view name, double value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    if (ec != std::errc()) throw InvalidArgument(std::string(name) + " is not a number");
    args.add(name);
    args.add_owned(std::string(text, end));
}

double number(const Reply& r, std::string_view name) {
    const std::string& text = r.as_string();
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
        throw ServerError("settings: " + std::string(name) + " is not a number: " + text);
    }
    return value;
}

// A setting stored as a number, as the type that holds it: Redis keeps what a script wrote, so
// a value past the type's range (or NaN) is a ServerError, not an overflowing conversion.
template <typename T>
T whole(double value, std::string_view name) {
    // Both bounds as doubles; the upper one exclusive, one past the largest (a 64-bit maximum
    // rounds up to a power of two, to which adding one changes nothing).
    constexpr double kLow = static_cast<double>(std::numeric_limits<T>::min());
    constexpr double kHigh = static_cast<double>(std::numeric_limits<T>::max());
    if (!(value >= kLow && value < kHigh + 1.0)) {
        throw ServerError("settings: " + std::string(name) + " is out of range");
    }
    return static_cast<T>(value);
}

}  // namespace

ScriptArgs encode_update(const SettingsUpdate& update) {
    validate_settings_update(update);
    ScriptArgs args;
    if (update.max_attempts) add(args, kMaxAttempts, std::int64_t{*update.max_attempts});
    if (update.backoff) {
        add(args, kBackoffInitial, std::int64_t{update.backoff->initial.count()});
        add(args, kBackoffMax, std::int64_t{update.backoff->max.count()});
        add(args, kBackoffMultiplier, update.backoff->multiplier);
        add(args, kBackoffJitter, update.backoff->jitter);
    }
    if (update.dead_max_count) {
        add(args, kDeadMaxCount, static_cast<std::int64_t>(*update.dead_max_count));
    }
    if (update.dead_max_age) add(args, kDeadMaxAge, std::int64_t{update.dead_max_age->count()});
    return args;
}

ScriptArgs encode_paused(bool paused) {
    ScriptArgs args;
    add(args, kPaused, std::int64_t{paused ? 1 : 0});
    return args;
}

QueueSettings decode(const Reply& reply) {
    const auto& f = reply.as_array();
    QueueSettings s;
    const std::string& layout = reply.at(kLayout).as_string();
    // The version number, then the first release that speaks it (src/lua/lib/layout.lua).
    const std::string_view number_part = std::string_view(layout).substr(0, layout.find(' '));
    s.layout = layout.empty() ? 0 : static_cast<int>(decimal(number_part, "settings: layout"));
    for (std::size_t i = kPairs; i + 1 < f.size(); i += 2) {
        const std::string& name = f[i].as_string();
        const double v = number(f[i + 1], name);
        if (name == kMaxAttempts) {
            s.max_attempts = whole<int>(v, name);
        } else if (name == kBackoffInitial) {
            s.backoff.initial = Duration(whole<std::int64_t>(v, name));
        } else if (name == kBackoffMax) {
            s.backoff.max = Duration(whole<std::int64_t>(v, name));
        } else if (name == kBackoffMultiplier) {
            s.backoff.multiplier = v;
        } else if (name == kBackoffJitter) {
            s.backoff.jitter = v;
        } else if (name == kDeadMaxCount) {
            s.dead_max_count = whole<std::size_t>(v, name);
        } else if (name == kDeadMaxAge) {
            s.dead_max_age = Duration(whole<std::int64_t>(v, name));
        } else if (name == kPaused) {
            s.paused = v != 0;
        }
    }
    return s;
}

ScriptArgs encode_delete(bool force) {
    ScriptArgs args;
    args.add(std::string_view(force ? "1" : "0"));
    return args;
}

DeleteResult decode_delete(const Reply& reply) {
    DeleteResult out;
    if (reply.at(kDeleteStatus).as_string() == "in_flight") {
        out.status = DeleteStatus::kInFlight;
        out.in_flight = static_cast<std::size_t>(reply.at(kRefusedInFlight).as_int());
        return out;
    }
    out.pending = static_cast<std::size_t>(reply.at(kDeletePending).as_int());
    out.in_flight = static_cast<std::size_t>(reply.at(kDeleteInFlight).as_int());
    out.dead = static_cast<std::size_t>(reply.at(kDeleteDead).as_int());
    return out;
}

}  // namespace delayq::detail::settings_codec
