#include "api/schedules_json.hpp"

#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>

#include "json/fields.hpp"
#include "json/schedule.hpp"

namespace delayq::server {

NamedSchedule parse_named_schedule(const nlohmann::json& body) {
    json::require_object(body, "a schedule");
    const auto name = body.find("name");
    if (name == body.end()) throw InvalidArgument("name is required: the schedule's name");
    NamedSchedule out;
    out.name = json::string_field(*name, "name");
    // The rest is the spec, whose parse refuses unknown fields, so the name goes first.
    nlohmann::json spec = body;
    spec.erase("name");
    out.spec = json::parse_schedule_spec(spec);
    return out;
}

PageRequest parse_schedule_list_query(const QueryParams& params) {
    PageRequest page;
    for (const auto& [key, value] : params) {
        if (!parse_page_param(key, value, page)) {
            throw InvalidArgument("unknown parameter \"" + key + "\"");
        }
    }
    return page;
}

NextQuery parse_next_query(const QueryParams& params) {
    NextQuery q;
    for (const auto& [key, value] : params) {
        if (key == "count") {
            q.count = parse_query_count(key, value, 1, kMaxBatch);
        } else if (key == "from") {
            try {
                q.from = parse_time(value);
            } catch (const InvalidArgument& e) {
                throw InvalidArgument(std::string("from: ") + e.what());
            }
        } else {
            throw InvalidArgument("unknown parameter \"" + key + "\"");
        }
    }
    return q;
}

}  // namespace delayq::server
