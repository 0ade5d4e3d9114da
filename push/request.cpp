#include "push/request.hpp"

#include <string_view>

namespace delayq::push {
namespace {

std::string line(std::string_view name, std::string_view value) {
    std::string out;
    out.reserve(name.size() + 2 + value.size());
    out.append(name).append(": ").append(value);
    return out;
}

}  // namespace

std::vector<std::string> push_headers(const PushTarget& target, const WebhookSigner& signer,
                                      const Delivery& delivery, std::int64_t unix_seconds) {
    std::vector<std::string> out;
    out.reserve(8 + target.headers.size());
    out.push_back(line("Content-Type", target.content_type));
    const std::string id = webhook_id(delivery.queue(), delivery.id());
    out.push_back(line("webhook-id", id));
    out.push_back(line("webhook-timestamp", std::to_string(unix_seconds)));
    if (signer.size() > 0) {
        out.push_back(line("webhook-signature", signer.sign(id, unix_seconds, delivery.payload())));
    }
    // Queue names and message ids are printable ASCII (validate_id): safe in a header as they
    // are.
    out.push_back(line("Delayq-Queue", delivery.queue()));
    out.push_back(line("Delayq-Message-Id", delivery.id()));
    out.push_back(line("Delayq-Attempt", std::to_string(delivery.attempt())));
    out.push_back(line("Delayq-Due", std::to_string(delivery.due().time_since_epoch().count())));
    for (const PushHeader& h : target.headers) out.push_back(line(h.name, h.value));
    return out;
}

HttpRequest push_request(const PushTarget& target, const WebhookSigner& signer,
                         const Delivery& delivery, std::chrono::system_clock::time_point now) {
    const auto unix_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    return HttpRequest{target.url, target.method,
                       push_headers(target, signer, delivery, unix_seconds), delivery.payload(),
                       target.request_timeout};
}

}  // namespace delayq::push
