#pragma once

#include <delayq/delayq.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "command_set.hpp"

namespace delayq::cli {

// The Redis server a command talks to: --redis, else $DELAYQ_REDIS_URL, else the managed local
// one, with the global options' TLS settings; and its password, when not in the URL:
// --redis-password-file, else $DELAYQ_REDIS_PASSWORD; the sentinels' password and TLS for a
// redis+sentinel:// URL likewise (--redis-sentinel-*). Nothing is contacted (or started) before
// connect(), so that a command can check all of its input first and write nothing when any of
// it is bad.
class Session {
  public:
    // Reads the password file now: UsageError when it cannot be read or is empty.
    explicit Session(const Invocation& invocation);

    const std::string& url() const { return url_; }
    bool managed() const { return managed_; }
    // How the client connects (password, TLS), for a Client made elsewhere.
    const ClientOptions& client_options() const { return options_; }

    // Checks the URL's syntax (InvalidArgument) but connects nothing.
    const Client& client();
    // Each checks the name (InvalidArgument) but connects nothing.
    Queue queue(std::string_view name);
    QueueAdmin admin(std::string_view name);
    Leases leases(std::string_view name);
    Schedules schedules(std::string_view name);
    PushTargets push_targets(std::string_view name);

    // Starts the managed server if needed, then connects and checks the server.
    void connect();

  private:
    std::string url_;
    bool managed_ = false;
    ClientOptions options_;
    std::optional<Client> client_;
};

}  // namespace delayq::cli
