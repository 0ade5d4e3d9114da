#include "delayq/schedules.hpp"

namespace delayq {

// The words the CLI, the service and the stored spec use for the policies: one spelling each.
std::string_view to_string(Overlap overlap) { return overlap == Overlap::kSkip ? "skip" : "allow"; }

std::string_view to_string(CatchUp catch_up) {
    switch (catch_up) {
        case CatchUp::kNone:
            return "none";
        case CatchUp::kOne:
            return "one";
        case CatchUp::kAll:
            return "all";
    }
    return "one";
}

std::optional<Overlap> parse_overlap(std::string_view text) {
    if (text == "allow") return Overlap::kAllow;
    if (text == "skip") return Overlap::kSkip;
    return std::nullopt;
}

std::optional<CatchUp> parse_catch_up(std::string_view text) {
    if (text == "none") return CatchUp::kNone;
    if (text == "one") return CatchUp::kOne;
    if (text == "all") return CatchUp::kAll;
    return std::nullopt;
}

std::string_view to_string(LastOutcome outcome) {
    switch (outcome) {
        case LastOutcome::kNone:
            return "none";
        case LastOutcome::kPending:
            return "pending";
        case LastOutcome::kInFlight:
            return "in_flight";
        case LastOutcome::kDead:
            return "dead";
        case LastOutcome::kGone:
            return "gone";
    }
    return "none";
}

}  // namespace delayq
