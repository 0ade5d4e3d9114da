#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/support/http_client.hpp"
#include "service/service.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

// A real redis-server and the HTTP service in this process on an ephemeral loopback port.
class ServiceTest : public ::testing::Test {
  protected:
    void TearDown() override;

    // Starts the service; `tweak` changes its configuration first.
    void start(const std::function<void(server::service::ServiceConfig&)>& tweak = {});
    void stop_service();

    RedisServer& redis() { return redis_; }
    server::service::Service& service() { return *service_; }
    std::uint16_t port() const { return service_->port(); }
    // One kept-alive connection, opened on first use.
    HttpClient& http();

    // Every key with its DUMP, to show that a refused request wrote nothing.
    std::map<std::string, std::string> key_dump() const;

    // An auth file in the test's directory with one entry per call; returns the token.
    std::string add_token(const std::string& name, const std::string& scopes,
                          const std::string& queues);
    std::string auth_file() const;

    // A batch of one message: a send that runs on the worker pool (a single send does not),
    // for tests that need a request to hold a worker.
    static nlohmann::json one_message(const std::string& payload) {
        return {{"messages", nlohmann::json::array({{{"payload", payload}}})}};
    }

  private:
    RedisServer redis_;
    std::unique_ptr<server::service::Service> service_;
    std::unique_ptr<HttpClient> http_;
};

}  // namespace delayq::test
