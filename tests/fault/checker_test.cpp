// The checker on hand-made histories: each kind of violation is found, and clean or explained
// histories pass. No Redis needed.
#include "fault/checker.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fault/history.hpp"

namespace delayq::fault {
namespace {

SendEvent sent(const std::string& id, std::int64_t due, SendStatus status = SendStatus::kOk) {
    return {"p1", id, due, status};
}

DeliveryEvent delivered(const std::string& process, const std::string& id, int attempt,
                        std::int64_t due, std::int64_t at, std::uint64_t token) {
    return {process, id, attempt, due, at, 1000, token};
}

AckEvent acked(const std::string& process, const std::string& id, std::uint64_t token,
               AckStatus status = AckStatus::kOk) {
    return {process, id, token, status};
}

// One message sent, delivered on time to c1 and acked: the clean base the tests break.
History clean() {
    History h;
    h.sends.push_back(sent("m1", 1000));
    h.deliveries.push_back(delivered("c1", "m1", 1, 1000, 1005, 7));
    h.acks.push_back(acked("c1", "m1", 7));
    return h;
}

TEST(FaultChecker, CleanHistoryHasNoProblems) {
    const Report r = check(clean());
    EXPECT_TRUE(r.lost.empty());
    EXPECT_TRUE(r.unexpected.empty());
    EXPECT_TRUE(r.early.empty());
    EXPECT_TRUE(r.duplicates.empty());
    EXPECT_EQ(r.sends_acknowledged, 1u);
    EXPECT_EQ(r.deliveries, 1u);
}

TEST(FaultChecker, AcknowledgedSendNeverDeliveredIsLost) {
    History h = clean();
    h.sends.push_back(sent("m2", 1000));
    const Report r = check(h);
    EXPECT_EQ(r.lost, std::vector<std::string>{"m2"});
}

TEST(FaultChecker, DeliveredButNeverAckedIsLost) {
    History h = clean();
    h.sends.push_back(sent("m2", 1000));
    h.deliveries.push_back(delivered("c1", "m2", 1, 1000, 1001, 8));
    h.acks.push_back(acked("c1", "m2", 8, AckStatus::kLeaseLost));
    const Report r = check(h);
    EXPECT_EQ(r.lost, std::vector<std::string>{"m2"});
    EXPECT_EQ(r.acks_lease_lost, 1u);
}

TEST(FaultChecker, UnacknowledgedSendsMayBeMissing) {
    History h = clean();
    h.sends.push_back(sent("m2", 0, SendStatus::kUnknown));
    h.sends.push_back(sent("m3", 0, SendStatus::kFailed));
    EXPECT_TRUE(check(h).lost.empty());
}

TEST(FaultChecker, RetriedSendReportedDuplicateCountsAsAcknowledged) {
    History h = clean();
    h.sends.push_back(sent("m2", 0, SendStatus::kUnknown));
    h.sends.push_back(sent("m2", 2000, SendStatus::kDuplicate));
    EXPECT_EQ(check(h).lost, std::vector<std::string>{"m2"});
}

TEST(FaultChecker, DeliveryOfAnIdNeverSentIsUnexpected) {
    History h = clean();
    h.deliveries.push_back(delivered("c1", "ghost", 1, 1000, 1001, 9));
    h.acks.push_back(acked("c1", "ghost", 9));
    EXPECT_EQ(check(h).unexpected, std::vector<std::string>{"ghost"});
}

TEST(FaultChecker, DeliveryOfARefusedSendIsUnexpected) {
    History h = clean();
    h.sends.push_back(sent("m2", 0, SendStatus::kFailed));
    h.deliveries.push_back(delivered("c1", "m2", 1, 1000, 1001, 9));
    EXPECT_EQ(check(h).unexpected, std::vector<std::string>{"m2"});
}

TEST(FaultChecker, DeliveryOfASendWithUnknownOutcomeIsExpected) {
    History h = clean();
    h.sends.push_back(sent("m2", 0, SendStatus::kUnknown));
    h.deliveries.push_back(delivered("c1", "m2", 1, 1000, 1001, 9));
    EXPECT_TRUE(check(h).unexpected.empty());
}

TEST(FaultChecker, DeliveryBeforeItsDueTimeIsEarly) {
    History h = clean();
    h.deliveries[0].delivered_at_ms = 999;
    const Report r = check(h);
    ASSERT_EQ(r.early.size(), 1u);
    EXPECT_EQ(r.early[0].id, "m1");
}

TEST(FaultChecker, DeliveryBeforeTheSentDueTimeIsEarlyWhateverTheDeliverySays) {
    History h = clean();
    h.deliveries[0].due_ms = 900;
    h.deliveries[0].delivered_at_ms = 950;
    EXPECT_EQ(check(h).early.size(), 1u);
}

// The first try (outcome unknown) stored the message due at 900 on a primary that then failed
// over; the retry stored it again, due at 1000, on the new one. Delivered at 950 by its own due
// time, it is not early; before its own due time it still is.
TEST(FaultChecker, ADeliveryOfAnEarlierTryIsJudgedByItsOwnDueTime) {
    History h = clean();
    h.sends.insert(h.sends.begin(), sent("m1", 0, SendStatus::kUnknown));
    h.deliveries[0].due_ms = 900;
    h.deliveries[0].delivered_at_ms = 950;
    EXPECT_TRUE(check(h).early.empty());
    h.deliveries[0].delivered_at_ms = 899;
    EXPECT_EQ(check(h).early.size(), 1u);
}

TEST(FaultChecker, DeliveryExactlyAtDueTimeIsNotEarly) {
    History h = clean();
    h.deliveries[0].delivered_at_ms = 1000;
    EXPECT_TRUE(check(h).early.empty());
}

TEST(FaultChecker, RedeliveryAfterALapsedUnackedLeaseIsNoDuplicate) {
    History h = clean();
    h.acks.clear();
    h.deliveries.push_back(delivered("c2", "m1", 2, 2005, 2010, 11));
    h.acks.push_back(acked("c2", "m1", 11));
    const Report r = check(h);
    EXPECT_TRUE(r.duplicates.empty());
    EXPECT_EQ(r.redeliveries, 1u);
    EXPECT_TRUE(r.lost.empty());
}

TEST(FaultChecker, DeliveryAfterAConfirmedAckIsAnUnexplainedDuplicate) {
    History h = clean();
    h.deliveries.push_back(delivered("c2", "m1", 2, 3000, 3001, 11));
    h.acks.push_back(acked("c2", "m1", 11));
    // Even a fault on c1 cannot excuse it: Redis itself confirmed the ack.
    h.faults.push_back({"consumer_kill", "c1", 1500, 1500});
    const Report r = check(h);
    ASSERT_EQ(r.duplicates.size(), 1u);
    EXPECT_EQ(r.duplicates[0].kind, DuplicateKind::kAfterAck);
    EXPECT_EQ(r.unexplained_duplicates(), 1u);
}

TEST(FaultChecker, DeliveryAfterAConfirmedAckIsExplainedByDataLoss) {
    History h = clean();
    h.deliveries.push_back(delivered("c2", "m1", 2, 3000, 3001, 11));
    h.faults.push_back({"redis_data_loss", "", 2000, 2000});
    const Report r = check(h);
    ASSERT_EQ(r.duplicates.size(), 1u);
    EXPECT_EQ(r.duplicates[0].cause, "redis_data_loss");
}

TEST(FaultChecker, DeliveryAfterAConfirmedAckIsExplainedByAKilledPrimaryNotAFailover) {
    History h = clean();
    h.deliveries.push_back(delivered("c2", "m1", 2, 3000, 3001, 11));
    // A coordinated failover loses no write: it cannot excuse a confirmed ack undone.
    h.faults.push_back({"failover", "", 2000, 2000});
    EXPECT_EQ(check(h).unexplained_duplicates(), 1u);
    h.faults.push_back({"primary_kill", "", 2500, 2500});
    const Report r = check(h);
    ASSERT_EQ(r.duplicates.size(), 1u);
    EXPECT_EQ(r.duplicates[0].cause, "primary_kill");
}

TEST(FaultChecker, DeliveryAfterARequestedAckNeedsAFault) {
    History h = clean();
    h.acks[0].status = AckStatus::kRequested;
    h.deliveries.push_back(delivered("c2", "m1", 2, 3000, 3001, 11));
    h.acks.push_back(acked("c2", "m1", 11, AckStatus::kRequested));
    Report r = check(h);
    ASSERT_EQ(r.duplicates.size(), 1u);
    EXPECT_EQ(r.unexplained_duplicates(), 1u);
    EXPECT_NE(r.summary().find("UNEXPLAINED=1"), std::string::npos) << r.summary();

    // A fault that hit another process, or came after the redelivery, explains nothing.
    h.faults.push_back({"consumer_kill", "c2", 1500, 1500});
    h.faults.push_back({"consumer_stop", "c1", 3500, 4000});
    EXPECT_EQ(check(h).unexplained_duplicates(), 1u);

    h.faults.push_back({"consumer_stop", "c1", 900, 2500});
    r = check(h);
    EXPECT_EQ(r.unexplained_duplicates(), 0u);
    EXPECT_EQ(r.duplicates[0].cause, "consumer_stop");
    EXPECT_EQ(r.duplicates_by_cause().at("consumer_stop"), 1u);
}

TEST(FaultChecker, FaultsOnEveryProcessExplainRequestedAcks) {
    History h = clean();
    h.acks[0].status = AckStatus::kRequested;
    h.deliveries.push_back(delivered("c2", "m1", 2, 3000, 3001, 11));
    h.faults.push_back({"script_flush", "", 1500, 1500});  // cannot delay an ack
    EXPECT_EQ(check(h).unexplained_duplicates(), 1u);
    h.faults.push_back({"redis_kill", "", 1500, 2500});
    EXPECT_EQ(check(h).duplicates.at(0).cause, "redis_kill");
}

// A fault that broke connections keeps delaying acks after it ended, while the consumer backs
// off before reconnecting (up to 5 s): it explains a requested ack lost for that long, no longer.
TEST(FaultChecker, ConnectionFaultsExplainAcksLostDuringTheRecovery) {
    History h = clean();
    h.acks[0].status = AckStatus::kRequested;
    h.deliveries[0].delivered_at_ms = 20'000;
    h.deliveries.push_back(delivered("c2", "m1", 2, 1000, 22'000, 11));
    h.faults.push_back({"client_kill", "c1", 14'000, 14'100});  // ended 5.9 s before
    EXPECT_EQ(check(h).unexplained_duplicates(), 1u);
    h.faults.push_back({"client_kill", "c1", 15'500, 15'600});  // ended 4.4 s before
    EXPECT_EQ(check(h).duplicates.at(0).cause, "client_kill");
}

TEST(FaultChecker, OverlappingLeasesAreADuplicate) {
    History h = clean();
    h.acks.clear();
    // c1's lease runs from 1005 to 2005: c2 must not have it before then.
    h.deliveries.push_back(delivered("c2", "m1", 2, 1000, 2004, 11));
    h.acks.push_back(acked("c2", "m1", 11));
    h.faults.push_back({"consumer_stop", "c1", 1010, 3000});
    const Report r = check(h);
    ASSERT_EQ(r.duplicates.size(), 1u);
    EXPECT_EQ(r.duplicates[0].kind, DuplicateKind::kOverlap);
    EXPECT_EQ(r.unexplained_duplicates(), 1u);
}

TEST(FaultChecker, DeliveryWhenTheLeaseRunsOutIsNoOverlap) {
    History h = clean();
    h.acks.clear();
    h.deliveries.push_back(delivered("c2", "m1", 2, 2005, 2005, 11));
    h.acks.push_back(acked("c2", "m1", 11));
    EXPECT_TRUE(check(h).duplicates.empty());
}

TEST(FaultChecker, SummaryCountsFaultsByKind) {
    History h = clean();
    h.faults.push_back({"client_kill", "", 1, 1});
    h.faults.push_back({"client_kill", "c1", 2, 2});
    h.faults.push_back({"script_flush", "", 3, 3});
    const Report r = check(h);
    EXPECT_EQ(r.faults_by_kind.at("client_kill"), 2u);
    EXPECT_NE(r.summary().find("client_kill=2 script_flush=1"), std::string::npos) << r.summary();
}

TEST(FaultHistory, LinesRoundTrip) {
    History h = clean();
    h.sends.push_back(sent("m2", 0, SendStatus::kUnknown));
    h.faults.push_back({"consumer_kill", "c1", 10, 20});
    History parsed;
    for (const auto& e : h.sends) ASSERT_TRUE(parse_line(to_line(e), parsed));
    for (const auto& e : h.deliveries) ASSERT_TRUE(parse_line(to_line(e), parsed));
    for (const auto& e : h.acks) ASSERT_TRUE(parse_line(to_line(e), parsed));
    for (const auto& e : h.faults) ASSERT_TRUE(parse_line(to_line(e), parsed));
    ASSERT_EQ(parsed.sends.size(), 2u);
    EXPECT_EQ(parsed.sends[1].status, SendStatus::kUnknown);
    ASSERT_EQ(parsed.deliveries.size(), 1u);
    EXPECT_EQ(parsed.deliveries[0].token, 7u);
    EXPECT_EQ(parsed.deliveries[0].delivered_at_ms, 1005);
    ASSERT_EQ(parsed.faults.size(), 1u);
    EXPECT_EQ(parsed.faults[0].end_ms, 20);
    EXPECT_FALSE(parse_line("deliver\tc1\tm1\t1", parsed));
    EXPECT_FALSE(parse_line("send\tp1\tm1\t12x\tok", parsed));
}

TEST(FaultHistory, FilesMergeAndACutLastLineIsSkipped) {
    const auto dir =
        std::filesystem::temp_directory_path() /
        ("delayq-history-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    std::filesystem::create_directories(dir);
    {
        HistoryWriter producer(dir / "p1.history");
        producer.write(to_line(sent("m1", 1000)));
        HistoryWriter consumer(dir / "c1.history");
        consumer.write(to_line(delivered("c1", "m1", 1, 1000, 1005, 7)));
    }
    {
        // What a kill -9 in the middle of a line would leave.
        std::ofstream cut(dir / "c1.history", std::ios::app);
        cut << "ack\tc1\tm1\t7\tok";
    }
    const History h = read_histories(dir);
    std::filesystem::remove_all(dir);
    EXPECT_EQ(h.sends.size(), 1u);
    EXPECT_EQ(h.deliveries.size(), 1u);
    EXPECT_TRUE(h.acks.empty());
    EXPECT_EQ(check(h).lost, std::vector<std::string>{"m1"});
}

}  // namespace
}  // namespace delayq::fault
