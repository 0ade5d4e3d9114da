// The operators' routes' JSON: queues, a queue, pages of messages, dead-letter selections,
// queue changes and deletes.
#include "api/admin_json.hpp"

#include <gtest/gtest.h>

#include <delayq/limits.hpp>
#include <string>
#include <utility>
#include <vector>

#include "json/queue.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;
using namespace delayq::server;
using namespace delayq::json;  // the shapes the CLI shares (common/json)
using AdminJsonTest = RedisTest;

template <class Parse, class Input>
std::string admin_refusal(Parse parse, const Input& input) {
    try {
        parse(input);
        return "";
    } catch (const InvalidArgument& e) {
        return e.what();
    }
}

TEST_F(AdminJsonTest, QueuesAndAQueueShowCountsTotalsAndSettings) {
    Queue q = queue();
    q.send("now");
    q.send("later", {.delay = std::chrono::hours(1)});
    QueueAdmin a = admin(q);
    const QueueStats stats = a.stats();
    const std::vector<QueueCounts> counts = {{"q", stats}};
    EXPECT_EQ(queue_list_json(counts), json::parse(R"({"queues":[)"
                                                   R"({"queue":"q","scheduled":1,"ready":1,)"
                                                   R"("in_flight":0,"dead":0}]})"));
    const json j = queue_json("q", stats, a.settings());
    EXPECT_EQ(j["queue"], "q");
    EXPECT_EQ(j["stats"]["scheduled"], 1);
    EXPECT_EQ(j["stats"]["ready"], 1);
    EXPECT_EQ(j["stats"]["next_due_ms"], ms(stats.next_due));
    EXPECT_EQ(j["stats"]["now_ms"], ms(stats.now));
    EXPECT_EQ(j["totals"]["sent"], 2);
    EXPECT_EQ(j["totals"]["acked"], 0);
    EXPECT_EQ(j["settings"]["max_attempts"], 25);
    EXPECT_EQ(j["settings"]["paused"], false);
    EXPECT_EQ(j["settings"]["backoff"]["initial_ms"], 1000);
    EXPECT_EQ(j["settings"]["dead_max_age_ms"], 30LL * 24 * 3600 * 1000);
}

TEST_F(AdminJsonTest, PagesCarryMessagesAndTheCursorUntilTheLast) {
    Queue q = queue();
    q.send("a", {.id = "m1"});
    q.send(std::string("\xff", 1), {.id = "m2"});
    const ListQuery query = parse_list_query({{"state", "ready"}, {"limit", "1"}});
    EXPECT_EQ(query.state, State::kReady);
    EXPECT_EQ(query.page.limit, 1U);
    QueueAdmin a = admin(q);
    const MessagePage first = a.list(query.state, query.page);
    const json j1 = message_page_json(first);
    ASSERT_EQ(j1["messages"].size(), 1U);
    EXPECT_EQ(j1["messages"][0]["id"], "m1");
    EXPECT_EQ(j1["messages"][0]["state"], "ready");
    EXPECT_EQ(j1["messages"][0]["payload"], "a");
    EXPECT_TRUE(j1["messages"][0]["lease_deadline_ms"].is_null());
    ASSERT_TRUE(j1["next_cursor"].is_string());
    const ListQuery next =
        parse_list_query({{"state", "ready"}, {"cursor", j1["next_cursor"].get<std::string>()}});
    const json j2 = message_page_json(a.list(next.state, next.page));
    ASSERT_EQ(j2["messages"].size(), 1U);
    EXPECT_EQ(j2["messages"][0]["id"], "m2");
    EXPECT_EQ(j2["messages"][0]["payload_base64"], "/w==");
    EXPECT_TRUE(j2["next_cursor"].is_null());
}

TEST_F(AdminJsonTest, BadListQueriesAreRefused) {
    const std::vector<std::pair<QueryParams, std::string>> cases = {
        {{}, "give ?state="},
        {{{"state", "done"}}, "not \"done\""},
        {{{"state", "dead"}, {"limit", "0"}}, "limit must be"},
        {{{"state", "dead"}, {"limit", "1001"}}, "limit must be"},
        {{{"state", "dead"}, {"limit", "-1"}}, "limit must be"},
        {{{"state", "dead"}, {"limit", "99999999999"}}, "limit must be"},
        {{{"state", "dead"}, {"sort", "x"}}, "unknown parameter \"sort\""},
    };
    for (const auto& [params, text] : cases) {
        const std::string why = admin_refusal(parse_list_query, params);
        EXPECT_NE(why.find(text), std::string::npos) << why;
    }
}

TEST_F(AdminJsonTest, DeadSelectorsAreIdsOrAll) {
    EXPECT_EQ(parse_dead_selector(json::parse(R"({"ids":["a","b"]})")).ids,
              (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(parse_dead_selector(json::parse(R"({"all":true})")).all);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({})", "give {\"ids\""},
        {R"({"ids":["a"],"all":true})", "give {\"ids\""},
        {R"({"all":false})", "all must be true"},
        {R"({"ids":[]})", "1 to 1000 ids"},
        {R"({"ids":[1]})", "ids[0] must be a string"},
        {R"({"id":"a"})", "unknown field \"id\""},
        {R"([])", "JSON object"},
    };
    for (const auto& [body, text] : cases) {
        const std::string why = admin_refusal(parse_dead_selector, json::parse(body));
        EXPECT_NE(why.find(text), std::string::npos) << body << " -> " << why;
    }
}

TEST_F(AdminJsonTest, APatchChangesOnlyWhatItNames) {
    Queue q = queue();
    QueueAdmin a = admin(q);
    const QueuePatch p = parse_queue_patch(json::parse(
        R"({"max_attempts":3,"backoff":{"initial":"5s","jitter":0},"dead_max_age":"7d"})"));
    EXPECT_FALSE(p.paused);
    const QueueSettings after = a.update_settings(p.update(a.settings()));
    EXPECT_EQ(after.max_attempts, 3);
    EXPECT_EQ(after.backoff.initial, Duration(5000));
    EXPECT_EQ(after.backoff.jitter, 0.0);
    EXPECT_EQ(after.backoff.max, std::chrono::hours(1));  // kept
    EXPECT_EQ(after.backoff.multiplier, 2.0);             // kept
    EXPECT_EQ(after.dead_max_age, std::chrono::hours(24 * 7));
    EXPECT_EQ(after.dead_max_count, 100'000U);
    const QueuePatch pause = parse_queue_patch(json::parse(R"({"paused":true})"));
    EXPECT_EQ(pause.paused, true);
    EXPECT_FALSE(pause.changes_settings());
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({})", "at least one"},
        {R"({"paused":"yes"})", "paused must be true or false"},
        {R"({"max_attempts":0})", "max_attempts must be"},
        {R"({"backoff":{"initial":"1x"}})", "backoff.initial: "},
        {R"({"backoff":{"factor":2}})", "unknown field \"backoff.factor\""},
        {R"({"backoff":{"multiplier":"2"}})", "backoff.multiplier must be a number"},
        {R"({"dead_max_count":-1})", "dead_max_count must be"},
        {R"({"layout":2})", "unknown field \"layout\""},
    };
    for (const auto& [body, text] : cases) {
        const std::string why = admin_refusal(parse_queue_patch, json::parse(body));
        EXPECT_NE(why.find(text), std::string::npos) << body << " -> " << why;
    }
}

TEST_F(AdminJsonTest, RetentionTakesTheWholeRangeTheLibraryAllows) {
    // The service once capped dead_max_count at 2^32 - 1 where the library and the scripts
    // allow kMaxDeadCount (10^12): one limit, from src/shared_constants.txt, everywhere.
    Queue q = queue();
    QueueAdmin a = admin(q);
    const QueuePatch big = parse_queue_patch(json::parse(R"({"dead_max_count":4294967296})"));
    EXPECT_EQ(a.update_settings(big.update(a.settings())).dead_max_count, 4'294'967'296U);
    const QueuePatch most = parse_queue_patch(
        json::parse("{\"dead_max_count\":" + std::to_string(kMaxDeadCount) + "}"));
    EXPECT_EQ(a.update_settings(most.update(a.settings())).dead_max_count, kMaxDeadCount);
    const std::string why = admin_refusal(
        parse_queue_patch,
        json::parse("{\"dead_max_count\":" + std::to_string(kMaxDeadCount + 1) + "}"));
    EXPECT_NE(why.find("dead_max_count must be a whole number from 0 to " +
                       std::to_string(kMaxDeadCount)),
              std::string::npos)
        << why;
    EXPECT_EQ(a.settings().dead_max_count, kMaxDeadCount);  // the refusal wrote nothing
}

TEST_F(AdminJsonTest, DeletesTakeForceAndSayWhatHappened) {
    EXPECT_FALSE(parse_force({}));
    EXPECT_TRUE(parse_force({{"force", "true"}}));
    EXPECT_FALSE(parse_force({{"force", "false"}}));
    EXPECT_NE(admin_refusal(parse_force, QueryParams{{"force", "yes"}}).find("force must be"),
              std::string::npos);
    EXPECT_NE(admin_refusal(parse_force, QueryParams{{"all", "1"}}).find("unknown parameter"),
              std::string::npos);
    Queue q = queue();
    q.send("m");
    fetch_one(q);
    const DeleteResult refused = admin(q).delete_queue(false);
    EXPECT_EQ(delete_result_json(refused),
              json::parse(R"({"status":"in_flight","pending":0,"in_flight":1,"dead":0})"));
    const json deleted = delete_result_json(admin(q).delete_queue(true));
    EXPECT_EQ(deleted["status"], "deleted");
}

}  // namespace
}  // namespace delayq::test
