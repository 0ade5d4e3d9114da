// What the HTTP server writes besides routes' bodies: the head of each answer and the access
// log's lines, and the sink that writes those in blocks.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "http/access_log.hpp"
#include "http/buffered_sink.hpp"
#include "http/response_head.hpp"

namespace delayq::server::http {
namespace {

using namespace std::chrono_literals;

TEST(ResponseHeadTest, WritesStatusContentTypeHeadersAndLength) {
    HttpResponse r = json_response(201, R"({"id":"x"})");
    r.headers.emplace_back("Retry-After", "1");
    EXPECT_EQ(response_head(r, true),
              "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
              "Content-Length: 10\r\n\r\n");
    // A problem's answer: its status's reason and media type; Retry-After from the problem.
    const std::string problem =
        response_head(problem_response({503, "redis_unavailable", "down"}), false);
    EXPECT_EQ(problem.substr(0, problem.find("\r\nContent-Length")),
              "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
              "Retry-After: 1");
    EXPECT_NE(response_head(r, false).find("\r\nConnection: close\r\n\r\n"), std::string::npos);
}

TEST(ResponseHeadTest, NoLineBreakOfAValueEndsAField) {
    HttpResponse r = json_response(200, "{}");
    r.headers.emplace_back("Allow", "GET\r\nSet-Cookie: x=1");
    const std::string head = response_head(r, true);
    EXPECT_NE(head.find("Allow: GET  Set-Cookie: x=1\r\n"), std::string::npos) << head;
    EXPECT_EQ(head.find("\r\nSet-Cookie"), std::string::npos) << head;
}

TEST(AccessLineTest, IsOneJsonObjectWithEveryField) {
    const AccessRecord record{.method = "POST",
                              .target = "/v1/queues/q/messages?x=\"1\"",
                              .remote = "127.0.0.1:5000",
                              .principal = "bench",
                              .status = 201,
                              .bytes_in = 30,
                              .bytes_out = 64,
                              .duration = 1500us};
    const auto at = std::chrono::system_clock::time_point(1'795'658'608'638ms);
    const std::string line = access_line(record, at);
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["time"], "2026-11-26T02:03:28.638Z");
    EXPECT_EQ(j["method"], "POST");
    EXPECT_EQ(j["target"], "/v1/queues/q/messages?x=\"1\"");
    EXPECT_EQ(j["status"], 201);
    EXPECT_DOUBLE_EQ(j["ms"].get<double>(), 1.5);
    EXPECT_EQ(j["in"], 30);
    EXPECT_EQ(j["out"], 64);
    EXPECT_EQ(j["remote"], "127.0.0.1:5000");
    EXPECT_EQ(j["token"], "bench");
    EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(AccessLineTest, EscapesControlCharactersAndReplacesBytesThatAreNotUtf8) {
    const AccessRecord record{
        .method = "GET", .target = "/a\nb\\c\xff", .remote = "?", .principal = "caf\xc3\xa9"};
    const std::string line = access_line(record, std::chrono::system_clock::time_point{});
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    const nlohmann::json j = nlohmann::json::parse(line);
    EXPECT_EQ(j["target"], "/a\nb\\c\xef\xbf\xbd");
    EXPECT_EQ(j["token"], "caf\xc3\xa9");
    EXPECT_EQ(j["time"], "1970-01-01T00:00:00.000Z");
}

// A pipe's reading end, read without blocking.
class Pipe {
  public:
    Pipe() { EXPECT_EQ(::pipe2(fds_.data(), O_NONBLOCK), 0); }
    ~Pipe() {
        ::close(fds_[0]);
        ::close(fds_[1]);
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    int write_end() const { return fds_[1]; }
    std::string read_all() const {
        std::string out;
        std::array<char, 4096> chunk{};
        ssize_t n = 0;
        while ((n = ::read(fds_[0], chunk.data(), chunk.size())) > 0) {
            out.append(chunk.data(), static_cast<std::size_t>(n));
        }
        return out;
    }

  private:
    std::array<int, 2> fds_{-1, -1};
};

spdlog::logger logger_on(const std::shared_ptr<BufferedFdSink>& sink) {
    spdlog::logger logger("buffered-test", sink);
    logger.set_pattern("%v");
    return logger;
}

TEST(BufferedFdSinkTest, HoldsLinesUntilFlushedThenWritesThemInOrder) {
    Pipe pipe;
    auto sink = std::make_shared<BufferedFdSink>(pipe.write_end(), 1 << 20, std::chrono::hours(1));
    spdlog::logger logger = logger_on(sink);
    logger.info("one");
    logger.info("two");
    EXPECT_EQ(pipe.read_all(), "");
    logger.flush();
    EXPECT_EQ(pipe.read_all(), "one\ntwo\n");
}

TEST(BufferedFdSinkTest, WritesWhenTheBufferFills) {
    Pipe pipe;
    auto sink = std::make_shared<BufferedFdSink>(pipe.write_end(), 10, std::chrono::hours(1));
    spdlog::logger logger = logger_on(sink);
    logger.info("12345");
    EXPECT_EQ(pipe.read_all(), "");
    logger.info("67890");  // 12 bytes with the newlines: over the 10
    EXPECT_EQ(pipe.read_all(), "12345\n67890\n");
}

TEST(BufferedFdSinkTest, WritesWhenTheOldestLineIsOldEnough) {
    Pipe pipe;
    auto sink = std::make_shared<BufferedFdSink>(pipe.write_end(), 1 << 20, 0ms);
    spdlog::logger logger = logger_on(sink);
    logger.info("at once");
    EXPECT_EQ(pipe.read_all(), "at once\n");
}

TEST(BufferedFdSinkTest, WritesWhatIsLeftWhenDestroyed) {
    Pipe pipe;
    {
        auto sink =
            std::make_shared<BufferedFdSink>(pipe.write_end(), 1 << 20, std::chrono::hours(1));
        spdlog::logger logger = logger_on(sink);
        logger.info("last words");
    }
    EXPECT_EQ(pipe.read_all(), "last words\n");
}

}  // namespace
}  // namespace delayq::server::http
