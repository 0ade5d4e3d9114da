#include "push/answer.hpp"

#include <cstdint>

#include "delayq/limits.hpp"
#include "delayq/time.hpp"

namespace delayq::push {
namespace {

bool is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_continuation(unsigned char c) { return (c & 0xc0U) == 0x80U; }

// The length of the well-formed UTF-8 sequence at text[at] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0. `cut` is set when the text ends inside a sequence
// that was well-formed so far.
std::size_t utf8_length(std::string_view text, std::size_t at, bool& cut) {
    const auto lead = static_cast<unsigned char>(text[at]);
    std::size_t length = 0;
    unsigned char low = 0x80;  // the bounds of the second byte, which rule out the bad forms
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        if (lead == 0xe0) low = 0xa0;
        if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        if (lead == 0xf0) low = 0x90;
        if (lead == 0xf4) high = 0x8f;
    } else {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if (at + i >= text.size()) {
            cut = true;
            return 0;
        }
        const auto byte = static_cast<unsigned char>(text[at + i]);
        if (i == 1 ? (byte < low || byte > high) : !is_continuation(byte)) return 0;
    }
    return length;
}

std::uint32_t code_point(std::string_view sequence) {
    const auto lead = static_cast<unsigned char>(sequence[0]);
    std::uint32_t value = sequence.size() == 2   ? lead & 0x1fU
                          : sequence.size() == 3 ? lead & 0x0fU
                                                 : lead & 0x07U;
    for (std::size_t i = 1; i < sequence.size(); ++i) {
        value = (value << 6U) | (static_cast<unsigned char>(sequence[i]) & 0x3fU);
    }
    return value;
}

// Characters that are valid but would change how a UI lays the text out or reads it: the C1
// controls, the line and paragraph separators, the bidirectional marks and overrides (which can
// make the text read as something else), and the byte order mark.
bool hidden_effect(std::uint32_t c) {
    return (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f || c == 0x2028 || c == 0x2029 ||
           (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

// Text from the far side (an answer's body, a library's error) as one line for the message's
// last error: at most max_bytes of it, whitespace runs as one space, control characters and
// bytes that are not UTF-8 escaped (\xNN, \uNNNN; a backslash doubled), so that what is stored
// is valid UTF-8 that any UI may print as it is. Up to 4 bytes may come out for each byte in.
std::string shown_text(std::string_view text, std::size_t max_bytes) {
    const bool truncated = text.size() > max_bytes;
    text = text.substr(0, max_bytes);
    std::string out;
    bool space = false;
    const auto put = [&](std::string_view piece) {
        if (space && !out.empty()) out.push_back(' ');
        space = false;
        out += piece;
    };
    // \x and two hex digits for a byte, \u and four for a character.
    const auto put_escape = [&](char kind, std::uint32_t value) {
        constexpr std::string_view kDigits = "0123456789abcdef";
        std::string escaped{'\\', kind};
        for (int shift = kind == 'x' ? 4 : 12; shift >= 0; shift -= 4) {
            escaped.push_back(kDigits[(value >> static_cast<unsigned>(shift)) & 0xfU]);
        }
        put(escaped);
    };
    for (std::size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (is_space(byte)) {
            space = true;
            ++i;
        } else if (byte < 0x20 || byte == 0x7f) {
            put_escape('x', byte);
            ++i;
        } else if (byte == '\\') {
            put("\\\\");
            ++i;
        } else if (byte < 0x80) {
            put(text.substr(i, 1));
            ++i;
        } else {
            bool cut = false;
            const std::size_t length = utf8_length(text, i, cut);
            // A character the excerpt's end cut in two is left out: "..." follows.
            if (cut && truncated) break;
            if (length == 0) {
                put_escape('x', byte);
                ++i;
                continue;
            }
            const std::string_view sequence = text.substr(i, length);
            const std::uint32_t c = code_point(sequence);
            if (hidden_effect(c)) {
                put_escape('u', c);
            } else {
                put(sequence);
            }
            i += length;
        }
    }
    if (truncated) out += "...";
    return out;
}

PushAction action_for_status(int status) {
    if (status >= 200 && status <= 299) return PushAction::kAck;
    // Request Timeout, Too Early, Too Many Requests: the receiver asks for the request again.
    if (status == 408 || status == 425 || status == 429) return PushAction::kRetry;
    // The receiver or a proxy before it is failing, overloaded or restarting: it may heal.
    if (status >= 500 && status <= 599) return PushAction::kRetry;
    // A redirect is not followed (the Standard Webhooks specification's advice: the target's
    // URL should be set to where it leads), and the other client errors say that this request
    // will not be taken however often it comes.
    if (status >= 300 && status <= 499) return PushAction::kDeadLetter;
    // A 1xx as the final answer, or no valid status: a broken answer, which a receiver in the
    // middle of a deployment or a confused proxy may give once, like kMalformedAnswer.
    return PushAction::kRetry;
}

std::string_view status_note(int status) {
    if (status >= 300 && status <= 399) return " (redirects are not followed)";
    if (status >= 100 && status <= 199) return " (not a final answer)";
    if (status < 100 || status > 599) return " (not an HTTP status)";
    return {};
}

struct FailureRule {
    PushAction action;
    std::string_view text;
};

FailureRule rule_for(TransportFailure failure) {
    switch (failure) {
        case TransportFailure::kTimeout:
            return {PushAction::kRetry, "timeout"};
        case TransportFailure::kConnectionRefused:
            return {PushAction::kRetry, "connection refused"};
        case TransportFailure::kConnectionReset:
            return {PushAction::kRetry, "connection reset"};
        // A name that does not resolve is often one that is being set up or moved; an answer
        // that a resolver could not give now may come later.
        case TransportFailure::kDnsFailure:
            return {PushAction::kRetry, "DNS lookup failed"};
        // Retried, though a bad certificate looks permanent: the usual one has expired, and is
        // renewed within hours of someone noticing, and a handshake also fails when a
        // connection breaks in the middle of it, which the error cannot tell apart. Dead-
        // lettering at once would send every message of such an outage to the dead letters;
        // the queue's max_attempts still ends the retries of one that never heals.
        case TransportFailure::kTlsFailure:
            return {PushAction::kRetry, "TLS failed"};
        // The pusher's own policy refused every address: nothing was sent, and the same name
        // and policy will be refused the same way on every attempt (a name moves rarely within
        // a retry schedule). Like a 4xx, the message goes to the dead letters, where the
        // refusal shows at once; after the target or the allow list is fixed, it is requeued.
        case TransportFailure::kAddressRefused:
            return {PushAction::kDeadLetter, "address refused"};
        case TransportFailure::kMalformedAnswer:
            return {PushAction::kRetry, "malformed answer"};
    }
    return {PushAction::kRetry, "failed"};
}

}  // namespace

PushVerdict judge_answer(int status, std::string_view body) {
    PushVerdict verdict{action_for_status(status), {}};
    if (verdict.action == PushAction::kAck) return verdict;
    verdict.error = "HTTP " + std::to_string(status);
    verdict.error += status_note(status);
    const std::string excerpt = shown_text(body, kPushAnswerExcerptBytes);
    if (!excerpt.empty()) verdict.error += ": " + excerpt;
    return verdict;
}

PushVerdict judge_failure(const TransportError& error) {
    const FailureRule rule = rule_for(error.failure);
    PushVerdict verdict{rule.action, std::string(rule.text)};
    if (error.failure == TransportFailure::kTimeout) {
        verdict.error += " after " + format_duration(error.timeout);
    }
    const std::string detail = shown_text(error.detail, kPushAnswerExcerptBytes);
    if (!detail.empty()) verdict.error += ": " + detail;
    return verdict;
}

}  // namespace delayq::push
