// delayq push set|get|remove: a queue's push target from the command line; its credentials are
// written, never shown.
#include <gtest/gtest.h>

#include <csignal>
#include <delayq/delayq.hpp>
#include <fstream>

#include "cli/cli_fixture.hpp"
#include "push/signature.hpp"
#include "support/push_receiver.hpp"

namespace delayq::test {
namespace {

constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

class PushCliTest : public CliTest {
  protected:
    std::string file_with(const std::string& name, const std::string& content) const {
        const auto path = scratch_ / name;
        std::ofstream(path) << content;
        return path.string();
    }
};

Json push_json(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
}

TEST_F(PushCliTest, SetGetRemove) {
    const std::string secret = file_with("wh.key", std::string(kSecret) + "\n");
    CliResult r = cli({"push", "set", "q", "--url", "https://hooks.example.com/in", "--header",
                       "Authorization: Bearer tok-never-shown", "--secret-file", secret, "--rate",
                       "120/m", "--max-in-flight", "8", "--request-timeout", "3s"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "push target of queue q set: POST https://hooks.example.com/in\n");
    const Json again =
        push_json(cli({"push", "set", "q", "--url", "https://hooks.example.com/in", "--header",
                       "Authorization: Bearer tok-never-shown", "--secret-file", secret, "--rate",
                       "2/s", "--max-in-flight", "8", "--request-timeout", "3s", "--json"}));
    EXPECT_EQ(again["status"], "unchanged");  // 120/m is 2/s

    const Json got = push_json(cli({"push", "get", "q", "--json"}));
    EXPECT_EQ(got["queue"], "q");
    EXPECT_EQ(got["url"], "https://hooks.example.com/in");
    EXPECT_EQ(got["method"], "POST");
    EXPECT_EQ(got["header_names"], Json::array({"Authorization"}));
    EXPECT_EQ(got["secrets"], 1);
    EXPECT_EQ(got["rate"], 2.0);
    EXPECT_EQ(got["max_in_flight"], 8);
    EXPECT_EQ(got["request_timeout_ms"], 3000);
    EXPECT_TRUE(got["last"].is_null());
    r = cli({"push", "get", "q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Authorization"), std::string::npos) << r.out;
    for (const std::string& out : {r.out, got.dump()}) {
        EXPECT_EQ(out.find("tok-never-shown"), std::string::npos) << out;
        EXPECT_EQ(out.find("MfKQ9r8G"), std::string::npos) << out;
    }
    // The target is the library's: a pusher reads it whole.
    const auto whole = Client(redis_.url()).push_targets("q").read_for_pusher();
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->target.secrets, std::vector<std::string>{kSecret});
    EXPECT_EQ(whole->target.headers[0].value, "Bearer tok-never-shown");

    r = cli({"push", "remove", "q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = cli({"push", "remove", "q"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no push target"), std::string::npos) << r.err;
    EXPECT_EQ(cli({"push", "get", "q"}).exit_code, 1);
}

TEST_F(PushCliTest, BadInputExitsTwoAndWritesNothing) {
    const std::string good = file_with("good.key", kSecret);
    const std::string bad_secret = file_with("bad.key", "whsec_short");
    const std::string empty = file_with("empty.key", "");
    const std::string before = fingerprint();
    const std::vector<std::vector<std::string>> cases = {
        {"--url", "ftp://example.com/"},
        {"--url", "http://169.254.169.254/latest"},
        {"--url", "https://u:p@example.com/"},
        {"--url", "https://example.com/", "--method", "GET"},
        {"--url", "https://example.com/", "--header", "no colon"},
        {"--url", "https://example.com/", "--header", "Host: other"},
        {"--url", "https://example.com/", "--rate", "fast"},
        {"--url", "https://example.com/", "--rate", "5/week"},
        {"--url", "https://example.com/", "--rate", "-1"},
        {"--url", "https://example.com/", "--request-timeout", "500ms"},
        {"--url", "https://example.com/", "--request-timeout", "soon"},
        {"--url", "https://example.com/", "--max-in-flight", "0"},
        {"--url", "https://example.com/", "--secret-file", bad_secret},
        {"--url", "https://example.com/", "--secret-file", empty},
        {"--url", "https://example.com/", "--secret-file", "/nonexistent/wh.key"},
        {"--url", "https://example.com/", "--secret-file", good, "--content-type", ""},
    };
    for (const auto& args : cases) {
        std::vector<std::string> full = {"push", "set", "q"};
        full.insert(full.end(), args.begin(), args.end());
        const CliResult r = cli(full);
        EXPECT_EQ(r.exit_code, 2) << args[1] << " " << (args.size() > 2 ? args[3] : "") << ": "
                                  << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_EQ(r.err.find("whsec_short"), std::string::npos) << r.err;
    }
    EXPECT_EQ(fingerprint(), before);
}

TEST_F(PushCliTest, TestSendsOneSignedRequestAndSaysWhatAPusherWouldDo) {
    PushReceiver receiver(PushReceiver::scripted());
    const std::string secret = file_with("wh.key", kSecret);
    ASSERT_EQ(cli({"push", "set", "q", "--url", receiver.url(), "--secret-file", secret, "--header",
                   "X-Team: billing"})
                  .exit_code,
              0);
    const std::string before = fingerprint();
    CliResult r = cli({"push", "test", "q", "--payload", "ok"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(": 200 in "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a pusher would deliver it (ack)"), std::string::npos) << r.out;
    ASSERT_EQ(receiver.count(), 1U);
    const ReceivedRequest got = receiver.requests().front();
    EXPECT_EQ(got.body, "ok");
    EXPECT_EQ(got.header("X-Team"), "billing");
    EXPECT_EQ(got.header("Delayq-Message-Id").rfind("test-", 0), 0U);
    EXPECT_EQ(got.header("webhook-signature"),
              push::WebhookSigner({kSecret}).sign(
                  got.header("webhook-id"), std::stoll(got.header("webhook-timestamp")), got.body));

    r = cli({"push", "test", "q", "--payload", "bad"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find(": 400 in "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no such order"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a pusher would dead-letter it"), std::string::npos) << r.out;
    // A test sends; it writes nothing to Redis.
    EXPECT_EQ(fingerprint(), before);

    EXPECT_EQ(cli({"push", "test", "none"}).exit_code, 1);
}

TEST_F(PushCliTest, RunPushesUntilStoppedAndRefusesBadNetworkOptions) {
    PushReceiver receiver;
    ASSERT_EQ(cli({"push", "set", "q", "--url", receiver.url()}).exit_code, 0);
    send("q", "hello");
    auto run = start({"push", "run", "q"});
    ASSERT_TRUE(
        receiver.wait_for([](const auto& r) { return !r.empty(); }, std::chrono::seconds(60)));
    EXPECT_EQ(receiver.requests().front().body, "hello");
    ASSERT_TRUE(run->await_output([](const std::string&, const std::string& err) {
        return err.find("delivered 1") != std::string::npos;
    }));
    run->signal(SIGTERM);
    const CliResult done = run->wait();
    EXPECT_EQ(done.exit_code, 0) << done.err;
    EXPECT_NE(done.err.find("delayq push run: stopped"), std::string::npos) << done.err;

    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"push", "run", "--push-allow", "not-an-address"},
          {"push", "run", "--push-ca-file", "/nonexistent/ca.pem"},
          {"push", "run", "--max-in-flight", "0"},
          {"push", "run", "bad{name}"}}) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << args[2] << ": " << r.err;
    }
}

}  // namespace
}  // namespace delayq::test
