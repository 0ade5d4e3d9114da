// `delayq serve` over a Redis Cluster, given its seeds: the routes work on queues whose slots
// sit on different primaries, a long-poll is woken by a send through the primary that serves
// its queue, and the queue list covers every primary.
#include <gtest/gtest.h>
#include <signal.h>

#include <future>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "server/support/http_client.hpp"
#include "server/support/serve_process.hpp"
#include "support/await.hpp"
#include "support/redis_cluster.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

TEST(ServeClusterTest, EveryRouteWorksOnQueuesOfEveryPrimary) {
    RedisCluster cluster(RedisClusterOptions{.replicas_per_primary = 0});
    const int port = free_port();
    CliProcess serve({"serve", "--listen", listen_arg(port), "--redis", cluster.seeds_url(),
                      "--io-threads", "1"});
    ASSERT_TRUE(await_listening(serve));
    HttpClient http(static_cast<std::uint16_t>(port));
    EXPECT_EQ(http.get("/readyz").status, 200u);

    std::vector<std::string> queues;
    for (const std::size_t p : cluster.primaries()) {
        queues.push_back(cluster.name_served_by(p, "http"));
    }
    for (const std::string& queue : queues) {
        // A poll that waits before anything is sent: the send must wake it on its node.
        auto poll = std::async(std::launch::async, [port, queue] {
            HttpClient own(static_cast<std::uint16_t>(port));
            return own.post("/v1/queues/" + queue + "/leases", {{"wait", "60s"}});
        });
        await("the poll waits", [&] {
            const HttpResult metrics = http.get("/metrics");
            return metrics.body.find("\ndelayq_http_long_polls 1\n") != std::string::npos
                       ? ""
                       : "not yet";
        });
        const HttpResult sent =
            http.post("/v1/queues/" + queue + "/messages", {{"payload", "to " + queue}});
        ASSERT_EQ(sent.status, 201u) << sent.body;
        const HttpResult leased = poll.get();
        ASSERT_EQ(leased.status, 200u) << leased.body;
        const json deliveries = leased.json()["deliveries"];
        ASSERT_EQ(deliveries.size(), 1u) << leased.body;
        EXPECT_EQ(deliveries[0]["payload"], "to " + queue);
        const HttpResult acked =
            http.post("/v1/queues/" + queue + "/ack", {{"leases", {deliveries[0]["lease"]}}});
        ASSERT_EQ(acked.status, 200u) << acked.body;
        EXPECT_EQ(acked.json()["results"][0]["status"], "ok") << acked.body;

        // What was sent, acked and is left, as the queue's own node counts it.
        const std::string key = queue_key(queue, "stats");
        const RedisServer& owner =
            cluster.node(cluster.primary_of_slot(RedisCluster::slot_of(key)));
        EXPECT_EQ(owner.command({"HGET", key, "acked"}).str, "1") << queue;
    }

    const HttpResult listed = http.get("/v1/queues");
    ASSERT_EQ(listed.status, 200u) << listed.body;
    for (const std::string& queue : queues) {
        EXPECT_NE(listed.body.find('"' + queue + '"'), std::string::npos) << listed.body;
    }
    serve.signal(SIGTERM);
    EXPECT_EQ(serve.wait().exit_code, 0);
}

}  // namespace
}  // namespace delayq::test
