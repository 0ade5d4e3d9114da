// The push tests' HTTP receiver (tests/support/push_receiver.hpp), driven by a plain Boost.Beast
// client, so that a failing push test can be blamed on the pusher and not on its receiver.
#include "support/push_receiver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <string>
#include <thread>
#include <vector>

namespace delayq::test {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using Tcp = asio::ip::tcp;
using Response = http::response<http::string_body>;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::chrono::milliseconds kWait{10'000};

// One keep-alive connection to the receiver.
class Client {
  public:
    explicit Client(const PushReceiver& receiver) {
        socket_.connect(Tcp::endpoint(asio::ip::address_v4::loopback(), receiver.port()));
    }

    void send(std::string body, const Headers& headers = {}, std::string_view target = "/hook") {
        http::request<http::string_body> request{http::verb::post, target, 11};
        request.set(http::field::host, "127.0.0.1");
        for (const auto& [name, value] : headers) request.insert(name, value);
        request.body() = std::move(body);
        request.prepare_payload();
        http::write(socket_, request);
    }
    void send_raw(std::string_view text) { asio::write(socket_, asio::buffer(text)); }

    Response receive() {
        Response response;
        http::read(socket_, buffer_, response);
        return response;
    }
    // What reading an answer ends with: end_of_stream when the receiver closed without one.
    beast::error_code receive_error() {
        Response response;
        beast::error_code error;
        http::read(socket_, buffer_, response, error);
        return error;
    }
    Response post(std::string body) {
        send(std::move(body));
        return receive();
    }
    std::size_t unread() { return socket_.available() + buffer_.size(); }

  private:
    asio::io_context io_;
    Tcp::socket socket_{io_};
    beast::flat_buffer buffer_;
};

// count() moves after the answer is written, so a client that has read it may be ahead.
bool has_count(PushReceiver& receiver, std::size_t count) {
    return receiver.wait_for([&](const auto&) { return receiver.count() == count; }, kWait);
}

TEST(PushReceiver, KeepAliveReusesOneConnectionAndRecordsTheRequest) {
    PushReceiver receiver;
    EXPECT_EQ(receiver.url(), "http://127.0.0.1:" + std::to_string(receiver.port()) + "/hook");
    Client client(receiver);
    client.send("first", {{"Webhook-Id", "msg_1"}, {"X-Extra", "a"}}, "/hook?queue=q");
    EXPECT_EQ(client.receive().result_int(), 200);
    EXPECT_EQ(client.post("second").result_int(), 200);
    EXPECT_EQ(client.post("").result_int(), 200);
    ASSERT_TRUE(has_count(receiver, 3));
    EXPECT_EQ(receiver.connections(), 1U);

    const auto requests = receiver.requests();
    ASSERT_EQ(requests.size(), 3U);
    EXPECT_EQ(requests[0].method, "POST");
    EXPECT_EQ(requests[0].target, "/hook?queue=q");
    EXPECT_EQ(requests[0].body, "first");
    EXPECT_EQ(requests[0].header("webhook-id"), "msg_1");
    EXPECT_EQ(requests[0].header("x-missing"), "");
    // In the order sent: Host first, then ours, then Content-Length from prepare_payload.
    ASSERT_EQ(requests[0].headers.size(), 4U);
    EXPECT_EQ(requests[0].headers[1], (std::pair<std::string, std::string>{"Webhook-Id", "msg_1"}));
    EXPECT_EQ(requests[0].headers[2].first, "X-Extra");
    EXPECT_EQ(requests[2].body, "");
    for (const auto& request : requests) EXPECT_EQ(request.connection, 1U);
    EXPECT_LE(requests[0].received_at, requests[1].received_at);
}

TEST(PushReceiver, ScriptedFailOnceFailsTheFirstOfEachBody) {
    PushReceiver receiver(PushReceiver::scripted());
    Client client(receiver);
    const Response first = client.post("fail-once:a");
    EXPECT_EQ(first.result_int(), 500);
    EXPECT_EQ(first.body(), "boom");
    EXPECT_EQ(client.post("fail-once:a").result_int(), 200);
    EXPECT_EQ(client.post("fail-once:b").result_int(), 500);
    EXPECT_EQ(client.post("ok").result_int(), 200);
    EXPECT_EQ(client.post("anything else").result_int(), 200);
}

TEST(PushReceiver, ScriptedBusyOnceCarriesRetryAfter) {
    PushReceiver receiver(PushReceiver::scripted());
    Client client(receiver);
    const Response busy = client.post("busy-once:1");
    EXPECT_EQ(busy.result_int(), 429);
    EXPECT_EQ(busy[http::field::retry_after], "1");
    EXPECT_EQ(client.post("busy-once:1").result_int(), 200);
}

TEST(PushReceiver, ScriptedBadAndRedirect) {
    PushReceiver receiver(PushReceiver::scripted());
    Client client(receiver);
    const Response bad = client.post("bad:7");
    EXPECT_EQ(bad.result_int(), 400);
    EXPECT_EQ(bad.body(), "no such order");
    const Response redirect = client.post("redirect");
    EXPECT_EQ(redirect.result_int(), 302);
    EXPECT_EQ(redirect[http::field::location], "/elsewhere");
}

TEST(PushReceiver, ScriptedCloseOnceClosesWithoutAnAnswer) {
    PushReceiver receiver(PushReceiver::scripted());
    Client closed(receiver);
    closed.send("close-once:x");
    EXPECT_EQ(closed.receive_error(), http::error::end_of_stream);
    Client again(receiver);
    EXPECT_EQ(again.post("close-once:x").result_int(), 200);
    EXPECT_EQ(receiver.connections(), 2U);
    EXPECT_TRUE(has_count(receiver, 2));
}

TEST(PushReceiver, ScriptedSlowAnswersAfterItsDelay) {
    PushReceiver receiver(PushReceiver::scripted());
    Client client(receiver);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(client.post("slow:50").result_int(), 200);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
}

TEST(PushReceiver, SlowAnswerDoesNotHoldUpAnotherConnection) {
    PushReceiver receiver(PushReceiver::scripted());
    Client slow(receiver);
    slow.send("slow:600000");
    ASSERT_TRUE(
        receiver.wait_for([](const auto& requests) { return requests.size() == 1; }, kWait));
    Client other(receiver);
    EXPECT_EQ(other.post("ok").result_int(), 200);
    // Answered while the slow one, which arrived first, still waits for its timer (which the
    // receiver's destructor cancels).
    EXPECT_TRUE(has_count(receiver, 1));
    EXPECT_EQ(slow.unread(), 0U);
    EXPECT_EQ(receiver.requests()[0].body, "slow:600000");
}

TEST(PushReceiver, CountsEachBodyOnceAcrossThreads) {
    PushReceiver receiver(PushReceiver::scripted(), 4);
    constexpr int kClients = 8;
    std::vector<int> statuses(kClients);
    std::vector<std::thread> clients;
    clients.reserve(kClients);
    for (int i = 0; i < kClients; ++i) {
        clients.emplace_back([&, i] {
            Client client(receiver);
            statuses[static_cast<std::size_t>(i)] =
                static_cast<int>(client.post("fail-once:shared").result_int());
        });
    }
    for (auto& client : clients) client.join();
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 500), 1);
    EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 200), kClients - 1);
    EXPECT_EQ(receiver.connections(), static_cast<std::size_t>(kClients));
}

TEST(PushReceiver, WaitForReturnsOnceThePredicateHolds) {
    PushReceiver receiver;
    std::thread sender([&] {
        Client client(receiver);
        client.post("one");
        client.post("two");
    });
    EXPECT_TRUE(receiver.wait_for(
        [](const auto& requests) { return requests.size() == 2 && requests[1].body == "two"; },
        kWait));
    sender.join();
    EXPECT_FALSE(receiver.wait_for([](const auto& requests) { return requests.size() == 3; },
                                   std::chrono::milliseconds(20)));
}

TEST(PushReceiver, MalformedRequestIsAnswered400AndClosed) {
    PushReceiver receiver;
    Client client(receiver);
    client.send_raw("NOT HTTP\r\n\r\n");
    EXPECT_EQ(client.receive().result_int(), 400);
    EXPECT_EQ(client.receive_error(), http::error::end_of_stream);
    EXPECT_EQ(receiver.count(), 0U);
}

TEST(PushReceiver, BodyOverOneMebibyteIsRefused) {
    PushReceiver receiver;
    Client client(receiver);
    client.send_raw("POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 1048577\r\n\r\n");
    EXPECT_EQ(client.receive().result_int(), 413);
    Client fits(receiver);
    EXPECT_EQ(fits.post(std::string(std::size_t{1024} * 1024, 'x')).result_int(), 200);
}

TEST(PushReceiver, AnswersExpectContinueBeforeTheBody) {
    PushReceiver receiver;
    Client client(receiver);
    client.send_raw(
        "POST /hook HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
    EXPECT_EQ(client.receive().result_int(), 100);
    client.send_raw("body");
    EXPECT_EQ(client.receive().result_int(), 200);
    EXPECT_EQ(receiver.requests().at(0).body, "body");
}

TEST(PushReceiver, WithoutKeptRequestsRecordsLatenessOnly) {
    PushReceiver receiver({}, 1, false);
    Client client(receiver);
    const auto due = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch()) -
                     std::chrono::seconds(1);
    client.send("late", {{"Delayq-Due", std::to_string(due.count())}});
    EXPECT_EQ(client.receive().result_int(), 200);
    EXPECT_EQ(client.post("no due header").result_int(), 200);
    EXPECT_TRUE(has_count(receiver, 2));
    EXPECT_TRUE(receiver.requests().empty());
    const auto lateness = receiver.lateness_us();
    ASSERT_EQ(lateness.size(), 1U);
    EXPECT_GE(lateness[0], 1'000'000);
}

}  // namespace
}  // namespace delayq::test
