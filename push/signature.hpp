#pragma once

// Standard Webhooks signing (https://www.standardwebhooks.com/): what a push request carries in
// its webhook-id and webhook-signature headers, so that a receiver can check it with any of the
// specification's libraries.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace delayq::push {

// Signs with each of a target's secrets, so that a receiver can rotate keys: it accepts any one
// signature that it can check.
class WebhookSigner {
  public:
    // "whsec_" secrets as PushTarget::secrets holds them; throws InvalidArgument (which never
    // quotes a secret) on one that validate_push_secret refuses.
    explicit WebhookSigner(const std::vector<std::string>& secrets);

    // The webhook-signature value: "v1,<base64 of HMAC-SHA256 over msg_id.unix_seconds.body>"
    // for each secret, in order, separated by spaces; empty without secrets (the request is
    // sent unsigned). Throws InvalidArgument when msg_id holds a '.', which would let one
    // signed text stand for another id and body.
    std::string sign(std::string_view msg_id, std::int64_t unix_seconds,
                     std::string_view body) const;

    std::size_t size() const { return keys_.size(); }

  private:
    std::vector<std::string> keys_;  // the decoded keys
};

// The webhook-id of a message: the same on every attempt (receivers use it to drop a second
// delivery), and distinct for every queue and message id. "msg_" and 32 lowercase hex digits,
// the first 128 bits of SHA-256 over the queue and the id: a queue name and a message id are up
// to 200 bytes each and may hold any printable character, '.' included, which the specification
// keeps out of ids (the signed text is id.timestamp.body), and should not be sent as they are in
// a header; 128 bits leave a collision unlikely below 2^64 messages.
std::string webhook_id(std::string_view queue, std::string_view message_id);

}  // namespace delayq::push
