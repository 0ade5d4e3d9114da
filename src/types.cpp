#include "delayq/types.hpp"

#include <array>
#include <utility>

#include "delayq/options.hpp"

namespace delayq {
namespace {

constexpr std::array<std::pair<State, std::string_view>, 4> kStateNames = {{
    {State::kScheduled, "scheduled"},
    {State::kReady, "ready"},
    {State::kInFlight, "in_flight"},
    {State::kDead, "dead"},
}};

constexpr std::array<std::pair<ScriptEngine, std::string_view>, 3> kEngineNames = {{
    {ScriptEngine::kAuto, "auto"},
    {ScriptEngine::kFunctions, "functions"},
    {ScriptEngine::kScripts, "scripts"},
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

std::string_view to_string(ScriptEngine engine) {
    for (const auto& [e, name] : kEngineNames) {
        if (e == engine) return name;
    }
    return "unknown";
}

std::optional<ScriptEngine> parse_script_engine(std::string_view text) {
    for (const auto& [e, name] : kEngineNames) {
        if (name == text) return e;
    }
    return std::nullopt;
}

}  // namespace delayq
