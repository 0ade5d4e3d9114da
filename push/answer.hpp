#pragma once

// What a pusher does with a message once its request is over, and the error it records: the
// message's last error, which `delayq get`, the dead letters and the service show.
#include <chrono>
#include <string>
#include <string_view>

namespace delayq::push {

enum class PushAction {
    kAck,         // delivered
    kRetry,       // nack: tried again after the queue's backoff (or the answer's Retry-After)
    kDeadLetter,  // the receiver will not take it as it is: to the dead letters at once
};

// How a request failed without an HTTP answer.
enum class TransportFailure {
    kTimeout,  // no whole answer within the target's request_timeout
    kConnectionRefused,
    kConnectionReset,  // reset or closed before a whole answer
    kDnsFailure,       // the host name did not resolve
    kTlsFailure,       // the handshake, or the server's certificate
    kAddressRefused,   // every address of the host is refused by the PushNetwork
    kMalformedAnswer,  // the bytes that came back are not an HTTP/1.1 answer
};

struct TransportError {
    TransportFailure failure = TransportFailure::kConnectionReset;
    // Whatever failed says why (the resolver, OpenSSL, push_address_refusal); may be empty.
    std::string_view detail{};
    // kTimeout: the limit that ran out.
    std::chrono::milliseconds timeout{};
};

struct PushVerdict {
    PushAction action = PushAction::kRetry;
    // Empty for kAck; else one line of text, valid UTF-8 and free of control characters, to
    // record as the message's last error.
    std::string error{};
};

// An HTTP answer, by its status: 2xx acks; 408, 425, 429 and 5xx retry (the receiver is busy,
// or failing for now); 3xx (redirects are not followed) and the other 4xx dead-letter; a 1xx or
// an invalid status retries, as a broken answer. The error is "HTTP <status>" (and a note for a
// redirect or a broken status), then ": " and the first kPushAnswerExcerptBytes of the body,
// made safe to show, unless that is blank.
PushVerdict judge_answer(int status, std::string_view body);

// A request that got no answer.
PushVerdict judge_failure(const TransportError& error);

}  // namespace delayq::push
