#include "not_waiting.hpp"

#include "errors.hpp"

namespace delayq::cli {

void throw_not_waiting(const std::string& queue, const std::string& id, NotWaiting why) {
    switch (why) {
        case NotWaiting::kNotFound:
            throw RuntimeFailure("no message " + id + " in queue " + queue +
                                 " (never sent, or already acked, cancelled or purged)");
        case NotWaiting::kInFlight:
            throw RuntimeFailure("message " + id +
                                 " is in flight (a consumer is handling it); nothing was changed");
        case NotWaiting::kDead:
            break;
    }
    throw RuntimeFailure("message " + id +
                         " is a dead letter (see delayq dead --help); nothing was changed");
}

}  // namespace delayq::cli
