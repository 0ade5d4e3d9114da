#pragma once

#include <cstddef>
#include <delayq/schedules.hpp>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/admin_json.hpp"

// What the service's schedule routes read beside the shapes of common/json/schedule.hpp, which
// they write and whose spec they parse (docs/http.md, Schedules). Parsing throws
// InvalidArgument (a 400, nothing written) naming the field or parameter.
namespace delayq::server {

// POST /v1/queues/{queue}/schedules: {"name", ...the spec's fields (json::parse_schedule_spec)}.
// The name is only parsed here; validate_schedule_name checks it.
struct NamedSchedule {
    std::string name;
    ScheduleSpec spec;
};
NamedSchedule parse_named_schedule(const nlohmann::json& body);

// GET /v1/queues/{queue}/schedules?limit=1..kMaxBatch&cursor=
PageRequest parse_schedule_list_query(const QueryParams& params);

// GET .../schedules/{name}/next?count=1..kMaxBatch&from=TIME: the first `count` (default 10)
// occurrences after `from` (RFC 3339 or unix milliseconds; default: now on the Redis clock).
struct NextQuery {
    std::size_t count = 10;
    std::optional<TimePoint> from;
};
NextQuery parse_next_query(const QueryParams& params);

}  // namespace delayq::server
