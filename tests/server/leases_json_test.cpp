// The lease routes' bodies: what they take, what they answer, and the 400s for bad ones.
#include "api/leases_json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;
using namespace delayq::server;
using namespace delayq::json;  // the shapes the CLI shares (common/json)

template <class Parse>
std::string lease_refusal(Parse parse, const std::string& body) {
    try {
        parse(json::parse(body));
        return "";
    } catch (const InvalidArgument& e) {
        return e.what();
    }
}

void expect_refusals(auto parse, const std::vector<std::pair<std::string, std::string>>& cases) {
    for (const auto& [body, text] : cases) {
        const std::string why = lease_refusal(parse, body);
        EXPECT_NE(why.find(text), std::string::npos) << body << " -> \"" << why << "\"";
    }
}

const auth::LeaseSeal kSeal(std::string(32, 'k'));
const LeaseOpener kOpener{[]() -> const auth::LeaseSeal& { return kSeal; }, "q"};
const std::string kLease = kSeal.seal("q", Lease("order-1", 7));
const std::string kOther = kSeal.seal("q", Lease("order-2", 9));

std::vector<LeaseArg> parse_list(const json& body) { return parse_lease_list(body, kOpener); }
ExtendRequest parse_ext(const json& body) { return parse_extend(body, kOpener); }
NackRequest parse_n(const json& body) { return parse_nack(body, kOpener); }
RejectRequest parse_r(const json& body) { return parse_reject(body, kOpener); }

std::vector<Lease> leases_of(const std::vector<LeaseArg>& args) {
    std::vector<Lease> out;
    for (const LeaseArg& a : args) out.push_back(a.lease.value_or(Lease()));
    return out;
}

TEST(LeasesJsonTest, ALeaseRequestHasDefaultsAndTakesEachField) {
    const LeaseRequest d = parse_lease_request(json::object());
    EXPECT_EQ(d.max, 1U);
    EXPECT_EQ(d.visibility, Duration(30'000));
    EXPECT_EQ(d.wait, Duration(0));
    const LeaseRequest r =
        parse_lease_request(json::parse(R"({"max":1000,"visibility":"1m30s","wait":60000})"));
    EXPECT_EQ(r.max, 1000U);
    EXPECT_EQ(r.visibility, Duration(90'000));
    EXPECT_EQ(r.wait, Duration(60'000));
}

TEST(LeasesJsonTest, BadLeaseRequestsAreRefused) {
    expect_refusals(parse_lease_request,
                    {
                        {R"([])", "JSON object"},
                        {R"({"max":0})", "max must be a whole number from 1 to 1000"},
                        {R"({"max":1001})", "1 to 1000"},
                        {R"({"max":"5"})", "max must be"},
                        {R"({"max":2.5})", "max must be"},
                        {R"({"visibility":"0s"})", "at least 1ms"},
                        {R"({"visibility":"30 s"})", "visibility: "},
                        {R"({"wait":"61s"})", "at most 60s"},
                        {R"({"wait":-1})", "wait must be a duration"},
                        {R"({"timeout":"1s"})", "unknown field \"timeout\""},
                    });
}

TEST(LeasesJsonTest, DeliveriesRenderEveryField) {
    const std::vector<Delivery> ds = {
        Delivery("q", Lease("a", 1), "text", 2, 5, from_ms(1000), from_ms(1250), "boom"),
        Delivery("q", Lease("b", 2), std::string("\xff\x00", 2), 1, 25, from_ms(5), from_ms(6)),
    };
    const json out = json::parse(deliveries_text(ds, kSeal));
    ASSERT_EQ(out.size(), 1U);
    ASSERT_EQ(out["deliveries"].size(), 2U);
    const json& a = out["deliveries"][0];
    EXPECT_EQ(a["id"], "a");
    EXPECT_EQ(a["lease"], kSeal.seal("q", Lease("a", 1)));
    EXPECT_EQ(a["payload"], "text");
    EXPECT_EQ(a["attempt"], 2);
    EXPECT_EQ(a["max_attempts"], 5);
    EXPECT_EQ(a["due_ms"], 1000);
    EXPECT_EQ(a["delivered_ms"], 1250);
    EXPECT_EQ(a["last_error"], "boom");
    const json& b = out["deliveries"][1];
    EXPECT_FALSE(b.contains("payload"));
    EXPECT_EQ(b["payload_base64"], "/wA=");
    EXPECT_EQ(json::parse(deliveries_text({}, kSeal)), json::parse(R"({"deliveries":[]})"));
}

TEST(LeasesJsonTest, LeaseListsAndExtendsParse) {
    const auto leases = parse_list(json{{"leases", {kLease, kOther}}});
    EXPECT_EQ(leases_of(leases), (std::vector<Lease>{Lease("order-1", 7), Lease("order-2", 9)}));
    EXPECT_EQ(leases[1].text, kOther);
    const ExtendRequest e = parse_ext(json{{"leases", {kLease}}, {"visibility", "2m"}});
    EXPECT_EQ(leases_of(e.leases), std::vector<Lease>{Lease("order-1", 7)});
    EXPECT_EQ(e.visibility, Duration(120'000));
}

TEST(LeasesJsonTest, BadLeaseListsAreRefusedNamingTheIndex) {
    const std::string many = json{{"leases", std::vector<std::string>(1001, kLease)}}.dump();
    const std::string bad_second = json{{"leases", {kLease, "nope"}}}.dump();
    expect_refusals(parse_list, {
                                    {R"("x")", "JSON object"},
                                    {R"({})", "needs \"leases\""},
                                    {R"({"leases":[]})", "1 to 1000 leases"},
                                    {many, "1 to 1000 leases"},
                                    {R"({"leases":"x"})", "1 to 1000 leases"},
                                    {bad_second, "leases[1] is not a lease"},
                                    {R"({"leases":[5]})", "leases[0] is not a lease"},
                                    {R"({"ids":[]})", "unknown field \"ids\""},
                                });
    const std::string no_visibility = json{{"leases", {kLease}}}.dump();
    const std::string zero = json{{"leases", {kLease}}, {"visibility", 0}}.dump();
    expect_refusals(parse_ext, {
                                   {no_visibility, "needs \"visibility\""},
                                   {zero, "at least 1ms"},
                                   {R"({"visibility":"1s"})", "needs \"leases\""},
                               });
}

TEST(LeasesJsonTest, ResultsSayOkOrLeaseLostWithExtendedDeadlines) {
    const std::vector<LeaseArg> leases = {{"la", Lease("a", 1)}, {"lb", Lease("b", 2)}, {"lc", {}}};
    const std::vector<LeaseResult> results = {
        {LeaseStatus::kExtended, from_ms(9000)}, {LeaseStatus::kLost}, {LeaseStatus::kAcked}};
    const json out = json::parse(lease_results_text(leases, results));
    EXPECT_EQ(out, json::parse(R"({"results":[)"
                               R"({"lease":")" +
                               leases[0].text +
                               R"(","status":"ok","deadline_ms":9000},)"
                               R"({"lease":")" +
                               leases[1].text +
                               R"(","status":"lease_lost"},)"
                               R"({"lease":")" +
                               leases[2].text + R"(","status":"ok"}]})"));
}

TEST(LeasesJsonTest, NacksAndRejectsParse) {
    const NackRequest n = parse_n(json{{"lease", kLease}, {"delay", "5s"}, {"error", "timeout"}});
    EXPECT_EQ(n.lease.lease, Lease("order-1", 7));
    EXPECT_EQ(n.nack.delay, Duration(5000));
    EXPECT_EQ(n.nack.error, "timeout");
    EXPECT_FALSE(parse_n(json{{"lease", kLease}}).nack.delay);
    const RejectRequest r = parse_r(json{{"lease", kLease}, {"error", "bad"}});
    EXPECT_EQ(r.lease.lease, Lease("order-1", 7));
    EXPECT_EQ(r.reject.error, "bad");
    expect_refusals(parse_n,
                    {
                        {R"({})", "needs \"lease\""},
                        {R"({"lease":"zzz"})", "lease is not a lease"},
                        {R"({"lease":")" + kLease + R"(","error":1})", "error must be a string"},
                        {R"({"lease":")" + kLease + R"(","delay":"x"})", "delay: "},
                        {R"({"lease":")" + kLease + R"(","retry":1})", "unknown field"},
                    });
    expect_refusals(
        parse_r, {
                     {R"([])", "JSON object"},
                     {R"({"lease":")" + kLease + R"(","delay":"1s"})", "unknown field \"delay\""},
                 });
}

TEST(LeasesJsonTest, OutcomesNameTheStatus) {
    EXPECT_EQ(outcome_json({LeaseStatus::kRetrying, from_ms(42)}),
              json::parse(R"({"status":"retrying","due_ms":42})"));
    EXPECT_EQ(outcome_json({LeaseStatus::kDeadLettered}),
              json::parse(R"({"status":"dead_lettered"})"));
    EXPECT_EQ(outcome_json({LeaseStatus::kLost}), json::parse(R"({"status":"lease_lost"})"));
}

}  // namespace
}  // namespace delayq::test
