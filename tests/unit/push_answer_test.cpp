// What a pusher does with each answer, and the error it records: statuses, failures without an
// answer, and the body's excerpt kept one line of valid UTF-8 whatever the receiver sent.
#include <gtest/gtest.h>

#include <string>

#include "delayq/limits.hpp"
#include "push/answer.hpp"

namespace delayq::push {
namespace {

PushAction action_of(int status) { return judge_answer(status, "").action; }

std::string error_of(int status, std::string_view body) { return judge_answer(status, body).error; }

TEST(PushAnswer, AcksEvery2xxWithoutAnError) {
    for (const int status : {200, 201, 202, 204, 299}) {
        const PushVerdict verdict = judge_answer(status, "ok");
        EXPECT_EQ(verdict.action, PushAction::kAck) << status;
        EXPECT_EQ(verdict.error, "") << status;
    }
}

TEST(PushAnswer, RetriesWhatMayHeal) {
    for (const int status : {408, 425, 429, 500, 502, 503, 504, 599}) {
        EXPECT_EQ(action_of(status), PushAction::kRetry) << status;
    }
}

TEST(PushAnswer, DeadLettersRedirectsAndOtherClientErrors) {
    for (const int status : {300, 301, 302, 304, 307, 308, 399, 400, 401, 403, 404, 405, 409, 410,
                             413, 415, 422, 426, 499}) {
        EXPECT_EQ(action_of(status), PushAction::kDeadLetter) << status;
    }
    EXPECT_EQ(error_of(301, "moved"), "HTTP 301 (redirects are not followed): moved");
}

TEST(PushAnswer, RetriesBrokenStatuses) {
    for (const int status : {0, -1, 99, 100, 101, 103, 199, 600, 999}) {
        EXPECT_EQ(action_of(status), PushAction::kRetry) << status;
    }
    EXPECT_EQ(error_of(103, ""), "HTTP 103 (not a final answer)");
    EXPECT_EQ(error_of(600, "x"), "HTTP 600 (not an HTTP status): x");
    EXPECT_EQ(error_of(0, ""), "HTTP 0 (not an HTTP status)");
}

TEST(PushAnswer, QuotesTheStartOfTheBody) {
    EXPECT_EQ(error_of(404, "no such hook"), "HTTP 404: no such hook");
    EXPECT_EQ(error_of(500, ""), "HTTP 500");
    EXPECT_EQ(error_of(500, " \r\n\t "), "HTTP 500");
    const std::string exact(kPushAnswerExcerptBytes, 'a');
    EXPECT_EQ(error_of(500, exact), "HTTP 500: " + exact);
    EXPECT_EQ(error_of(500, exact + "b"), "HTTP 500: " + exact + "...");
}

TEST(PushAnswer, MakesTheBodyOneLine) {
    EXPECT_EQ(error_of(400, "<html>\r\n  <body>\n\tbad  request\n</body>\n"),
              "HTTP 400: <html> <body> bad request </body>");
}

TEST(PushAnswer, EscapesControlsAndBackslashes) {
    EXPECT_EQ(error_of(400, std::string_view("a\0b\x1b[31mc\x7f", 10)),
              "HTTP 400: a\\x00b\\x1b[31mc\\x7f");
    EXPECT_EQ(error_of(400, "C:\\path"), "HTTP 400: C:\\\\path");
}

TEST(PushAnswer, KeepsUtf8AndEscapesWhatIsNot) {
    EXPECT_EQ(error_of(400, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
              "HTTP 400: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    // A lone continuation byte, a lead byte without its continuation, Latin-1.
    EXPECT_EQ(error_of(400, "a\x80z \xc3z \xe9t\xe9"), "HTTP 400: a\\x80z \\xc3z \\xe9t\\xe9");
    // Overlong forms, a surrogate, past U+10FFFF, and bytes that never start a character.
    EXPECT_EQ(error_of(400, "\xc0\xaf \xe0\x80\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xff"),
              "HTTP 400: \\xc0\\xaf \\xe0\\x80\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xff");
    // A sequence that the body itself ends in the middle of.
    EXPECT_EQ(error_of(400, "end \xe2\x82"), "HTTP 400: end \\xe2\\x82");
}

TEST(PushAnswer, EscapesCharactersThatChangeTheLayout) {
    // RIGHT-TO-LEFT OVERRIDE, a C1 control, LINE SEPARATOR, the byte order mark.
    EXPECT_EQ(error_of(400,
                       "a\xe2\x80\xae"
                       "b\xc2\x85"
                       "c\xe2\x80\xa8"
                       "d\xef\xbb\xbf"),
              "HTTP 400: a\\u202eb\\u0085c\\u2028d\\ufeff");
}

TEST(PushAnswer, LeavesOutACharacterTheExcerptCuts) {
    // The euro sign's 3 bytes start 2 bytes before the excerpt's end.
    const std::string body = std::string(kPushAnswerExcerptBytes - 2, 'a') + "\xe2\x82\xac" + "z";
    EXPECT_EQ(error_of(500, body),
              "HTTP 500: " + std::string(kPushAnswerExcerptBytes - 2, 'a') + "...");
}

TEST(PushAnswer, JudgesFailuresWithoutAnAnswer) {
    const auto judged = [](TransportFailure failure, std::string_view detail) {
        return judge_failure({.failure = failure, .detail = detail});
    };
    const PushVerdict timeout =
        judge_failure({.failure = TransportFailure::kTimeout, .timeout = std::chrono::seconds{10}});
    EXPECT_EQ(timeout.action, PushAction::kRetry);
    EXPECT_EQ(timeout.error, "timeout after 10s");
    EXPECT_EQ(judge_failure({.failure = TransportFailure::kTimeout,
                             .timeout = std::chrono::milliseconds{1500}})
                  .error,
              "timeout after 1s500ms");

    const PushVerdict refused = judged(TransportFailure::kConnectionRefused, "");
    EXPECT_EQ(refused.action, PushAction::kRetry);
    EXPECT_EQ(refused.error, "connection refused");
    EXPECT_EQ(judged(TransportFailure::kConnectionReset, "").action, PushAction::kRetry);
    EXPECT_EQ(judged(TransportFailure::kConnectionReset, "").error, "connection reset");

    const PushVerdict dns = judged(TransportFailure::kDnsFailure, "Name or service not known");
    EXPECT_EQ(dns.action, PushAction::kRetry);
    EXPECT_EQ(dns.error, "DNS lookup failed: Name or service not known");

    const PushVerdict tls =
        judged(TransportFailure::kTlsFailure, "certificate verify failed: certificate has expired");
    EXPECT_EQ(tls.action, PushAction::kRetry);
    EXPECT_EQ(tls.error, "TLS failed: certificate verify failed: certificate has expired");

    const PushVerdict address =
        judged(TransportFailure::kAddressRefused, "169.254.169.254 is link-local (cloud metadata)");
    EXPECT_EQ(address.action, PushAction::kDeadLetter);
    EXPECT_EQ(address.error, "address refused: 169.254.169.254 is link-local (cloud metadata)");

    const PushVerdict malformed = judged(TransportFailure::kMalformedAnswer, "bad\nstatus line");
    EXPECT_EQ(malformed.action, PushAction::kRetry);
    EXPECT_EQ(malformed.error, "malformed answer: bad status line");
}

TEST(PushAnswer, BoundsAndEscapesAFailuresDetail) {
    const std::string long_detail(kPushAnswerExcerptBytes + 50, 'x');
    const PushVerdict verdict =
        judge_failure({.failure = TransportFailure::kTlsFailure, .detail = long_detail});
    EXPECT_EQ(verdict.error, "TLS failed: " + std::string(kPushAnswerExcerptBytes, 'x') + "...");
    EXPECT_EQ(judge_failure(
                  {.failure = TransportFailure::kDnsFailure, .detail = std::string_view("a\0b", 3)})
                  .error,
              "DNS lookup failed: a\\x00b");
}

}  // namespace
}  // namespace delayq::push
