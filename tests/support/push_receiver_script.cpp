// The receiver's scripted behaviours and its requests' header lookup: what a push test asks of
// a receiver, chosen by the message it sends, so that one receiver serves a test's every case.
#include <charconv>
#include <string>

#include "support/push_receiver.hpp"

namespace delayq::test {
namespace {

bool iequal(std::string_view a, std::string_view b) {
    const auto lower = [](char c) {
        return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    };
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

ReceiverAnswer scripted_answer(std::string_view body, std::size_t nth) {
    const std::size_t colon = body.find(':');
    const std::string_view word = body.substr(0, colon);
    const bool first = nth == 0;
    if (word == "fail-once" && first) return {.status = 500, .body = "boom"};
    if (word == "busy-once" && first) return {.status = 429, .headers = {{"Retry-After", "1"}}};
    if (word == "bad") return {.status = 400, .body = "no such order"};
    if (word == "close-once" && first) return {.close = true};
    if (word == "redirect") return {.status = 302, .headers = {{"Location", "/elsewhere"}}};
    if (word == "slow" && colon != std::string_view::npos) {
        // The digits after "slow:", up to the next ':' or the end.
        const std::string_view rest = body.substr(colon + 1);
        long long ms = 0;
        std::from_chars(rest.data(), rest.data() + rest.size(), ms);
        return {.delay = std::chrono::milliseconds(ms)};
    }
    return {};
}

}  // namespace

std::string ReceivedRequest::header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
        if (iequal(key, name)) return value;
    }
    return "";
}

PushReceiver::Responder PushReceiver::scripted() {
    return [](const ReceivedRequest& request, std::size_t nth) {
        return scripted_answer(request.body, nth);
    };
}

}  // namespace delayq::test
