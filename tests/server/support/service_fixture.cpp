#include "server/support/service_fixture.hpp"

#include "auth/queue_pattern.hpp"
#include "auth/scope.hpp"
#include "auth/token_file.hpp"

namespace delayq::test {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        out.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace

void ServiceTest::TearDown() { stop_service(); }

void ServiceTest::start(const std::function<void(server::service::ServiceConfig&)>& tweak) {
    server::service::ServiceConfig config;
    config.redis_url = redis_.url();
    config.listen = {"127.0.0.1", 0};
    config.limits.io_threads = 2;
    config.worker_threads = 4;
    if (tweak) tweak(config);
    service_ = std::make_unique<server::service::Service>(std::move(config));
    service_->start();
}

void ServiceTest::stop_service() {
    http_.reset();
    if (service_) service_->stop();
    service_.reset();
}

HttpClient& ServiceTest::http() {
    if (!http_) http_ = std::make_unique<HttpClient>(port());
    return *http_;
}

std::map<std::string, std::string> ServiceTest::key_dump() const {
    std::map<std::string, std::string> out;
    for (const std::string& key : redis_.keys("*")) {
        out[key] = redis_.command({"DUMP", key}).str;
    }
    return out;
}

std::string ServiceTest::auth_file() const { return (redis_.dir() / "tokens").string(); }

std::string ServiceTest::add_token(const std::string& name, const std::string& scopes,
                                   const std::string& queues) {
    std::vector<server::Scope> scope_list;
    for (const auto& s : split_commas(scopes)) scope_list.push_back(*server::parse_scope(s));
    std::vector<server::QueuePattern> patterns;
    for (const auto& q : split_commas(queues)) patterns.push_back(*server::QueuePattern::parse(q));
    return server::add_token(auth_file(), name, scope_list, patterns);
}

}  // namespace delayq::test
