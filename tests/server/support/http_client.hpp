#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

// A small blocking HTTP/1.1 client for the server's tests: one connection, kept alive across
// requests until the server closes it.
namespace delayq::test {

struct HttpResult {
    unsigned status = 0;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
    bool keep_alive = false;

    nlohmann::json json() const { return nlohmann::json::parse(body); }
    // The "code" of a problem body.
    std::string code() const;
    std::optional<std::string> header(const std::string& lower_name) const;
};

struct HttpRequestSpec {
    std::string method = "GET";
    std::string target = "/";
    std::optional<std::string> body{};
    std::string content_type = "application/json";
    std::string token{};                // Authorization: Bearer, when not empty
    std::optional<std::string> host{};  // default: 127.0.0.1:PORT
    std::vector<std::pair<std::string, std::string>> headers{};
};

class HttpClient {
  public:
    explicit HttpClient(std::uint16_t port);
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Throws std::runtime_error when the connection fails or closes before an answer.
    HttpResult request(const HttpRequestSpec& spec);
    HttpResult get(const std::string& target, const std::string& token = {});
    HttpResult post(const std::string& target, const nlohmann::json& body,
                    const std::string& token = {});
    HttpResult del(const std::string& target, const std::string& token = {});

    // Raw bytes, for requests no well-behaved client makes; then read_answer().
    void send_raw(const std::string& bytes);
    // `head_request`: the answer is to a HEAD, so no body follows its head whatever its
    // Content-Length says (RFC 9112 6.3).
    HttpResult read_answer(bool head_request = false);
    // Whether the server has closed the connection (a read ends with end of stream).
    bool closed_by_server();
    // Closes the connection, as a client that goes away.
    void close();

    std::uint16_t port() const { return port_; }

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::uint16_t port_;
};

// Whether a TCP connection to the port is accepted now.
bool can_connect(std::uint16_t port);

}  // namespace delayq::test
