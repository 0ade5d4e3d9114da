#pragma once

#include <delayq/delayq.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace delayq::cli {

// The Redis server a command talks to: --redis, else $DELAYQ_REDIS_URL, else the managed local
// one. Nothing is contacted (or started) before connect(), so that a command can check all of
// its input first and write nothing when any of it is bad.
class Session {
  public:
    explicit Session(std::string url_option);

    const std::string& url() const { return url_; }
    bool managed() const { return managed_; }

    // Checks the URL's syntax (InvalidArgument) but connects nothing.
    const Client& client();
    // Each checks the name (InvalidArgument) but connects nothing.
    Queue queue(std::string_view name);
    QueueAdmin admin(std::string_view name);
    Leases leases(std::string_view name);

    // Starts the managed server if needed, then connects and checks the server.
    void connect();

  private:
    std::string url_;
    bool managed_ = false;
    std::optional<Client> client_;
};

}  // namespace delayq::cli
