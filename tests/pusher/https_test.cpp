// HTTPS targets: the receiver's certificate is verified, against the CA file given
// (--push-ca-file) or the system's store; a receiver the pusher cannot verify gets nothing, and
// its messages are retried, not lost.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pusher/pusher_fixture.hpp"
#include "support/test_certificates.hpp"

extern char** environ;

namespace delayq::test {
namespace {

// tests/pusher/https_receiver.py in python3, for one test.
class HttpsReceiver {
  public:
    explicit HttpsReceiver(const TestCertificates& certs) {
        dir_ = std::filesystem::temp_directory_path() /
               ("delayq-https-" + std::to_string(::getpid()) + "-" +
                std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        std::filesystem::create_directories(dir_);
        const std::string port_file = (dir_ / "port").string();
        std::vector<std::string> args = {"python3",           DELAYQ_HTTPS_RECEIVER,
                                         certs.server_cert(), certs.server_key(),
                                         port_file,           log().string()};
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        if (posix_spawnp(&pid_, "python3", nullptr, nullptr, argv.data(), environ) != 0) {
            throw std::runtime_error("cannot start python3");
        }
        if (!eventually([&] { return std::filesystem::exists(port_file); })) {
            throw std::runtime_error("the HTTPS receiver did not start");
        }
        std::ifstream(port_file) >> port_;
    }
    ~HttpsReceiver() {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    HttpsReceiver(const HttpsReceiver&) = delete;
    HttpsReceiver& operator=(const HttpsReceiver&) = delete;

    std::string url() const { return "https://localhost:" + std::to_string(port_) + "/hook"; }
    // The bodies received, one a line.
    std::string bodies() const {
        std::ifstream in(log());
        std::stringstream all;
        all << in.rdbuf();
        return all.str();
    }

  private:
    std::filesystem::path log() const { return dir_ / "bodies"; }

    std::filesystem::path dir_;
    pid_t pid_ = -1;
    int port_ = 0;
};

TEST_F(PusherTest, AnHttpsReceiverIsVerifiedAgainstTheCaFile) {
    const TestCertificates certs;
    const HttpsReceiver receiver(certs);
    PushTarget target;
    target.url = receiver.url();
    target.request_timeout = 2s;
    client().push_targets("q").set(target);
    queue().send("over tls", SendOptions{.id = "m"});

    // A CA that signed nothing the receiver has: the handshake fails, the message is retried.
    {
        auto pusher = start_pusher(push::PusherOptions{.ca_file = certs.other_ca()});
        ASSERT_TRUE(eventually([&] {
            const auto info = client().admin("q").get("m");
            return info && info->attempts >= 2;
        }));
    }
    const auto refused = client().admin("q").get("m");
    ASSERT_TRUE(refused.has_value());
    EXPECT_NE(refused->state, State::kDead);
    EXPECT_NE(refused->last_error.find("TLS"), std::string::npos) << refused->last_error;
    EXPECT_EQ(receiver.bodies(), "");

    // Its own CA: delivered.
    auto pusher = start_pusher(push::PusherOptions{.ca_file = certs.ca()});
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    EXPECT_EQ(receiver.bodies(), "over tls\n");
}

}  // namespace
}  // namespace delayq::test
