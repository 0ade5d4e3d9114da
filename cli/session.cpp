#include "session.hpp"

#include <cstdlib>

#include "local_redis.hpp"
#include "redis_password.hpp"

namespace delayq::cli {

Session::Session(const Invocation& invocation) : url_(invocation.redis) {
    options_.tls = invocation.redis_tls;
    if (url_.empty()) {
        const char* env = std::getenv("DELAYQ_REDIS_URL");
        if (env != nullptr) url_ = env;
    }
    if (url_.empty()) {
        managed_ = true;
        url_ = LocalRedis(LocalRedis::default_dir()).url();
    }
    options_.password = redis_password(invocation.redis_password_file);
    options_.sentinel.password = sentinel_password(invocation.redis_sentinel_password_file);
    options_.sentinel.tls = invocation.redis_sentinel_tls;
    options_.sentinel.user = invocation.redis_sentinel_user;
}

const Client& Session::client() {
    if (!client_) client_.emplace(url_, options_);
    return *client_;
}

Queue Session::queue(std::string_view name) { return client().queue(name); }

QueueAdmin Session::admin(std::string_view name) { return client().admin(name); }

Leases Session::leases(std::string_view name) { return client().leases(name); }

Schedules Session::schedules(std::string_view name) { return client().schedules(name); }

PushTargets Session::push_targets(std::string_view name) { return client().push_targets(name); }

void Session::connect() {
    if (managed_) LocalRedis(LocalRedis::default_dir()).ensure_running();
    client().ping();
}

}  // namespace delayq::cli
