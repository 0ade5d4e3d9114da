#pragma once

#include <string>
#include <vector>

#include "delayq/delayq.hpp"

namespace delayq::test::script_args {

// What populate() left in the queue that a script's arguments name.
struct Population {
    std::string queue;
    std::vector<std::string> leases;  // of messages in flight, as Lease::to_string
    std::string scheduled_id;         // pending, due in an hour
    std::string dead_id;              // a dead letter
    std::string schedule;             // a schedule sending ahead
    // Its spec hash and next occurrence as schedule_get reads them, for a claim that is not a
    // conflict (read raw by the test: the public API does not show the hash).
    std::string schedule_hash = "sa-hash";
    std::string schedule_next = "0";
};

// A queue with messages in every state, through the public API only: pending (in msg, cold
// and a block), ready, in flight, retried with an error, dead; its settings changed, two
// schedules (one paused), a push target with a header and a secret and its last answer, the
// lateness histogram and a history point.
Population populate(Client& client, const std::string& queue);

}  // namespace delayq::test::script_args
