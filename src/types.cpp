#include "delayq/types.hpp"

#include <array>
#include <utility>

namespace delayq {
namespace {

constexpr std::array<std::pair<State, std::string_view>, 4> kStateNames = {{
    {State::kScheduled, "scheduled"},
    {State::kReady, "ready"},
    {State::kInFlight, "in_flight"},
    {State::kDead, "dead"},
}};

}  // namespace

std::string_view to_string(State state) {
    for (const auto& [s, name] : kStateNames) {
        if (s == state) return name;
    }
    return "unknown";
}

std::optional<State> parse_state(std::string_view text) {
    for (const auto& [s, name] : kStateNames) {
        if (name == text) return s;
    }
    return std::nullopt;
}

}  // namespace delayq
