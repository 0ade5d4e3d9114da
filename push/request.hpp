#pragma once

// What a push request of one delivery carries, apart from the target's URL and method: the
// header lines, built without a network so that they can be checked alone.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/push.hpp"
#include "push/http_client.hpp"
#include "push/signature.hpp"

namespace delayq::push {

// "Name: value" lines, in this order: Content-Type; webhook-id, webhook-timestamp
// (`unix_seconds`: this attempt's send time) and, when the target has secrets,
// webhook-signature; Delayq-Queue, Delayq-Message-Id, Delayq-Attempt (from 1) and Delayq-Due (unix
// ms, Redis clock); then the target's own headers. webhook-id is the same on every attempt of a
// message (receivers drop a second delivery by it), so it is sent unsigned too.
std::vector<std::string> push_headers(const PushTarget& target, const WebhookSigner& signer,
                                      const Delivery& delivery, std::int64_t unix_seconds);

// The whole request of one delivery to `target`, sent at `now` (its webhook-timestamp): what a
// pusher sends, and `delayq push test`.
HttpRequest push_request(const PushTarget& target, const WebhookSigner& signer,
                         const Delivery& delivery, std::chrono::system_clock::time_point now);

}  // namespace delayq::push
