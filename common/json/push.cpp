#include "json/push.hpp"

namespace delayq::json {
namespace {

std::string_view status_name(PushSetStatus status) {
    switch (status) {
        case PushSetStatus::kCreated:
            return "created";
        case PushSetStatus::kUpdated:
            return "updated";
        case PushSetStatus::kUnchanged:
            return "unchanged";
    }
    return "created";
}

}  // namespace

Json push_target_json(const std::string& queue, const PushTargetInfo& info) {
    Json last = nullptr;
    if (info.last) {
        last = Json{{"at_ms", unix_ms(info.last->at)},
                    {"status", info.last->status},
                    {"error", info.last->error}};
    }
    return Json{{"queue", queue},
                {"url", info.url},
                {"method", std::string(to_string(info.method))},
                {"content_type", info.content_type},
                {"header_names", info.header_names},
                {"request_timeout_ms", info.request_timeout.count()},
                {"max_in_flight", info.max_in_flight},
                {"rate", info.rate},
                {"secrets", info.secrets},
                {"updated_ms", unix_ms(info.updated)},
                {"last", std::move(last)}};
}

Json push_set_json(PushSetStatus status) {
    return Json{{"status", std::string(status_name(status))}};
}

}  // namespace delayq::json
