// The HTTP server's small parts on their own: router, percent-decoding, Host check, --listen,
// what a failed read is answered, and the session's side of the client watch.
#include <gtest/gtest.h>

#include <boost/asio/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <delayq/error.hpp>

#include "http/client_watch.hpp"
#include "http/host_check.hpp"
#include "http/listen_address.hpp"
#include "http/percent.hpp"
#include "http/refusal.hpp"
#include "http/router.hpp"

namespace delayq::server::http {
namespace {

Route noop() {
    Route route;
    route.handle = [](HttpRequest, const Reply&) {};
    return route;
}

TEST(RouterTest, MatchesParametersPercentDecodedAndPrefersLiterals) {
    Router router;
    router.add(Verb::get, "/v1/queues/{queue}/messages/{id}", noop());
    router.add(Verb::post, "/v1/queues/{queue}/messages/batch", noop());
    router.add(Verb::delete_, "/v1/queues/{queue}/messages/{id}", noop());
    router.add(Verb::post, "/v1/queues/{queue}/messages/{id}", noop());

    const auto m = router.match(Verb::get, "/v1/queues/a%2Fb/messages/x%20y");
    ASSERT_EQ(m.kind, Router::Match::Kind::kFound);
    EXPECT_EQ(m.params.at("queue"), "a/b");
    EXPECT_EQ(m.params.at("id"), "x y");

    const auto batch = router.match(Verb::post, "/v1/queues/q/messages/batch");
    ASSERT_EQ(batch.kind, Router::Match::Kind::kFound);
    EXPECT_EQ(batch.pattern, "/v1/queues/{queue}/messages/batch");
    EXPECT_EQ(batch.params.count("id"), 0u);
}

TEST(RouterTest, AnswersNotFoundMethodNotAllowedAndBadPaths) {
    Router router;
    router.add(Verb::get, "/v1/queues/{queue}/messages/{id}", noop());
    router.add(Verb::delete_, "/v1/queues/{queue}/messages/{id}", noop());
    EXPECT_EQ(router.match(Verb::get, "/v1/queues/q/messages").kind,
              Router::Match::Kind::kNotFound);
    EXPECT_EQ(router.match(Verb::get, "/v1/queues//messages/x").kind,
              Router::Match::Kind::kNotFound);
    const auto put = router.match(Verb::put, "/v1/queues/q/messages/x");
    EXPECT_EQ(put.kind, Router::Match::Kind::kMethodNotAllowed);
    EXPECT_EQ(put.allow, "GET, HEAD, DELETE");
    EXPECT_EQ(router.match(Verb::get, "/v1/queues/q%zz/messages/x").kind,
              Router::Match::Kind::kBadPath);
    EXPECT_THROW(router.add(Verb::get, "/v1/queues/{queue}/messages/{id}", noop()),
                 std::invalid_argument);
}

// RFC 9110 9.3.2: HEAD is served wherever GET is, by the GET route; elsewhere it is a 405.
TEST(RouterTest, AGetRouteAnswersHead) {
    Router router;
    router.add(Verb::get, "/v1/queues/{queue}", noop());
    router.add(Verb::patch, "/v1/queues/{queue}", noop());
    router.add(Verb::post, "/v1/queues/{queue}/ack", noop());
    const auto head = router.match(Verb::head, "/v1/queues/a%2Fb");
    ASSERT_EQ(head.kind, Router::Match::Kind::kFound);
    EXPECT_EQ(head.pattern, "/v1/queues/{queue}");
    EXPECT_EQ(head.params.at("queue"), "a/b");
    const auto post_only = router.match(Verb::head, "/v1/queues/q/ack");
    EXPECT_EQ(post_only.kind, Router::Match::Kind::kMethodNotAllowed);
    EXPECT_EQ(post_only.allow, "POST");
    EXPECT_EQ(router.match(Verb::delete_, "/v1/queues/q").allow, "GET, HEAD, PATCH");
}

TEST(PercentTest, DecodesAndRefusesBadEscapes) {
    EXPECT_EQ(percent_decode("a%20b%2f%7B"), "a b/{");
    EXPECT_EQ(percent_decode("a+b", true), "a b");
    EXPECT_EQ(percent_decode("a+b"), "a+b");
    EXPECT_FALSE(percent_decode("%").has_value());
    EXPECT_FALSE(percent_decode("%4").has_value());
    EXPECT_FALSE(percent_decode("%g0").has_value());
}

TEST(HostCheckTest, KnowsLoopbackNamesAndAddresses) {
    for (const char* host : {"localhost", "LOCALHOST:80", "a.localhost", "127.0.0.1", "127.9.9.9:1",
                             "[::1]", "[::1]:7380"}) {
        EXPECT_TRUE(is_loopback_host(host)) << host;
    }
    for (const char* host : {"", "example.com", "localhost.example.com", "10.0.0.1:80", "[::2]",
                             "[::1", "0.0.0.0", "::1"}) {
        EXPECT_FALSE(is_loopback_host(host)) << host;
    }
    EXPECT_TRUE(is_loopback_address("::1"));
    EXPECT_FALSE(is_loopback_address("0.0.0.0"));
}

TEST(ListenAddressTest, ParsesHostAndPort) {
    const auto a = parse_listen_address("127.0.0.1:7380");
    EXPECT_EQ(a.host, "127.0.0.1");
    EXPECT_EQ(a.port, 7380);
    const auto b = parse_listen_address("[::1]:0");
    EXPECT_EQ(b.host, "::1");
    EXPECT_EQ(b.port, 0);
    EXPECT_EQ(parse_listen_address(":80").host, "0.0.0.0");
    for (const char* bad : {"", "7380", "host:", "host:70000", "host:x", "::1:80", "[::1:80"}) {
        EXPECT_THROW(parse_listen_address(bad), InvalidArgument) << bad;
    }
}

TEST(RefusalTest, AFailedReadIsAnswered413Or400OrOnlyClosed) {
    namespace bhttp = boost::beast::http;
    namespace net = boost::asio;
    EXPECT_EQ(head_failure_response(bhttp::error::header_limit)->status, 413u);
    EXPECT_EQ(head_failure_response(bhttp::error::body_limit)->status, 413u);
    EXPECT_EQ(head_failure_response(bhttp::error::bad_method)->status, 400u);
    EXPECT_EQ(head_failure_response(bhttp::error::bad_transfer_encoding)->status, 400u);
    // The client went away or fell silent, or the server stops: nobody to answer.
    EXPECT_FALSE(head_failure_response(net::error::eof));
    EXPECT_FALSE(head_failure_response(boost::beast::error::timeout));
    EXPECT_FALSE(head_failure_response(net::error::operation_aborted));

    EXPECT_EQ(body_failure_response(bhttp::error::body_limit)->status, 413u);
    EXPECT_EQ(body_failure_response(bhttp::error::bad_chunk)->status, 400u);
    EXPECT_FALSE(body_failure_response(bhttp::error::partial_message));
    EXPECT_FALSE(body_failure_response(net::error::connection_reset));
    EXPECT_EQ(server_busy_response().status, 503u);
}

TEST(SessionWatchTest, AWatchIsMadeAgainOnlyWhenAHandlerKeptIt) {
    SessionWatch session;
    int begun = 0;
    const auto begin = [&begun] { ++begun; };
    const ClientWatch* first = session.arm(begin).get();
    EXPECT_FALSE(session.start_read());  // no handler asked
    EXPECT_EQ(session.arm(begin).get(), first);
    auto kept = session.arm(begin);
    EXPECT_NE(session.arm(begin).get(), first);
    EXPECT_EQ(begun, 0);
    kept->watch([] {});  // the handler asks: the session's read begins
    EXPECT_EQ(begun, 1);
}

TEST(SessionWatchTest, TheClientGoingAwayIsTold) {
    SessionWatch session;
    const auto watch = session.arm([] {});
    bool gone = false;
    watch->watch([&gone] { gone = true; });
    ASSERT_TRUE(session.start_read());
    EXPECT_FALSE(session.start_read());  // one read at a time
    EXPECT_EQ(session.read_ended(true), SessionWatch::Next::kClientGone);
    EXPECT_TRUE(gone);
    EXPECT_TRUE(watch->gone());
}

TEST(SessionWatchTest, AnAnswerWrittenDuringTheReadWaitsForItsEnd) {
    SessionWatch session;
    const auto watch = session.arm([] {});
    bool gone = false;
    watch->watch([&gone] { gone = true; });
    ASSERT_TRUE(session.start_read());
    session.answered();
    EXPECT_TRUE(session.wait_for_read(false));
    // Cancelled, or failed: the answer came first, and the connection goes on.
    EXPECT_EQ(session.read_ended(true), SessionWatch::Next::kReadNext);
    EXPECT_FALSE(gone);
    EXPECT_FALSE(session.wait_for_read(true));  // no read pending now

    auto next = session.arm([] {});
    next->watch([] {});
    ASSERT_TRUE(session.start_read());
    session.answered();
    EXPECT_TRUE(session.wait_for_read(true));
    EXPECT_EQ(session.read_ended(false), SessionWatch::Next::kClose);
    // A read that ends with bytes (the next request's start) and no answer yet: nothing to do.
    next = session.arm([] {});
    next->watch([] {});
    ASSERT_TRUE(session.start_read());
    EXPECT_EQ(session.read_ended(false), SessionWatch::Next::kNothing);
}

}  // namespace
}  // namespace delayq::server::http
