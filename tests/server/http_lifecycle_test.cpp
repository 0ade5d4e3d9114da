// A graceful stop: no new connections, the requests under way answered, then the end.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <future>

#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

class HttpLifecycleTest : public ServiceTest {};

TEST_F(HttpLifecycleTest, StopAnswersTheRequestUnderWayAndClosesIdleConnections) {
    start([](auto& c) { c.client.command_timeout = std::chrono::seconds(30); });
    HttpClient idle(port());
    EXPECT_EQ(idle.get("/healthz").status, 200u);
    EXPECT_EQ(http().get("/readyz").status, 200u);
    const std::uint16_t listen_port = port();

    // The worker that answered may not have counted itself idle yet.
    ASSERT_TRUE(eventually([&] { return service().pool().running() == 0; }));
    redis().freeze();  // the next batch send hangs in its worker until Redis thaws
    auto in_flight = std::async(std::launch::async, [listen_port] {
        HttpClient c(listen_port);
        return c.post("/v1/queues/q/messages/batch", one_message("under way"));
    });
    ASSERT_TRUE(eventually([&] { return service().pool().running() == 1; }));
    auto stopping = std::async(std::launch::async, [this] { service().stop(); });

    // The idle connection is closed, and no new one is taken, while the send still hangs.
    EXPECT_TRUE(idle.closed_by_server());
    EXPECT_TRUE(eventually([&] { return !can_connect(listen_port); }));
    EXPECT_EQ(in_flight.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);

    redis().thaw();
    const HttpResult answer = in_flight.get();
    EXPECT_EQ(answer.status, 201u) << answer.body;
    EXPECT_FALSE(answer.keep_alive);
    stopping.get();
    EXPECT_EQ(Client(redis().url()).admin("q").stats().ready, 1u);
}

}  // namespace
}  // namespace delayq::test
