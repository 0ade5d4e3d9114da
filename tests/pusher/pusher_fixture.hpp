#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "push/pusher.hpp"
#include "support/fixture.hpp"
#include "support/push_receiver.hpp"

namespace delayq::test {

inline constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// A queue "q" whose push target is a receiver the test starts, and pushers on it.
class PusherTest : public RedisTest {
  protected:
    void SetUp() override {
        RedisTest::SetUp();
        // Retries come at once, so that a test of them waits for events, not for a back-off.
        client().admin("q").update_settings(
            SettingsUpdate{.backoff = Backoff{.initial = 10ms, .max = 10ms, .jitter = 0}});
    }

    PushTarget target_for(const PushReceiver& receiver) const {
        PushTarget t;
        t.url = receiver.url();
        t.secrets = {kSecret};
        t.request_timeout = 2s;
        return t;
    }

    std::unique_ptr<push::Pusher> start_pusher(push::PusherOptions options = {}) {
        options.discover = 100ms;
        auto pusher = std::make_unique<push::Pusher>(client(), options);
        pusher->start();
        return pusher;
    }

    // The requests whose body is `body`, in arrival order.
    static std::vector<ReceivedRequest> with_body(const PushReceiver& receiver,
                                                  const std::string& body) {
        std::vector<ReceivedRequest> out;
        for (ReceivedRequest& r : receiver.requests()) {
            if (r.body == body) out.push_back(std::move(r));
        }
        return out;
    }

    // Every message sent is gone: acked or dead-lettered, none pending or leased.
    bool queue_settled() {
        const QueueStats s = client().admin("q").stats();
        return s.ready == 0 && s.in_flight == 0 && s.scheduled == 0;
    }
};

}  // namespace delayq::test
