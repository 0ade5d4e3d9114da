// A progress bar on stderr for long bulk work when stderr is a terminal; nothing otherwise.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <fstream>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;

class ProgressTest : public CliTest {
  protected:
    // `n` dead letters in `queue`, with ids prefix-0, prefix-1, ...
    std::vector<std::string> make_dead(const std::string& queue, std::size_t n) {
        Client client(redis_.url());
        Queue q = client.queue(queue);
        std::vector<std::string> ids;
        std::vector<Message> batch;
        for (std::size_t i = 0; i < n; ++i) {
            ids.push_back(queue + "-" + std::to_string(i));
            batch.push_back({.payload = "x", .options = {.id = ids.back()}});
            if (batch.size() == 1000 || i + 1 == n) {
                q.send_batch(batch);
                batch.clear();
            }
        }
        Leases leases = client.leases(queue);
        for (std::size_t done = 0; done < n;) {
            const auto deliveries = leases.fetch(1000, 1h).deliveries;
            EXPECT_FALSE(deliveries.empty());
            if (deliveries.empty()) break;
            for (const auto& d : deliveries) leases.reject(d.lease(), Reject{.error = "test"});
            done += deliveries.size();
        }
        EXPECT_EQ(stats(queue)["dead"], n);
        return ids;
    }
};

TEST_F(ProgressTest, NothingOnStderrWhenItIsNotATerminal) {
    make_dead("a", 2500);
    const CliResult r = cli({"dead", "requeue", "a", "--all"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "requeued 2500 dead letters\n");
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(stats("a")["ready"], 2500);
}

TEST_F(ProgressTest, ABarOnATerminalForAllAndForManyIds) {
    make_dead("b", 2500);
    const CliResult all = cli({"dead", "purge", "b", "--all"}, {.terminal = true});
    EXPECT_EQ(all.exit_code, 0) << all.out;
    EXPECT_NE(all.out.find("\rpurged [.............................."), std::string::npos)
        << all.out;
    EXPECT_NE(all.out.find("] 0/2500"), std::string::npos) << all.out;
    EXPECT_NE(all.out.find("\rpurged [##############################] 2500/2500"),
              std::string::npos)
        << all.out;
    EXPECT_NE(all.out.find("purged 2500 dead letters\r\n"), std::string::npos) << all.out;
    EXPECT_EQ(stats("b")["dead"], 0);
    EXPECT_EQ(stats("b")["totals"]["purged"], 2500);

    std::vector<std::string> args{"dead", "requeue", "c"};
    for (const auto& id : make_dead("c", 1500)) args.push_back(id);
    const CliResult named = cli(args, {.terminal = true});
    EXPECT_EQ(named.exit_code, 0) << named.out;
    EXPECT_NE(named.out.find("] 1500/1500"), std::string::npos) << named.out;
    EXPECT_NE(named.out.find("requeued 1500 of 1500\r\n"), std::string::npos) << named.out;
    EXPECT_EQ(stats("c")["ready"], 1500);
}

TEST_F(ProgressTest, SendFileShowsABarOnATerminalOnly) {
    std::string input;
    for (int i = 0; i < 2500; ++i) input += "{\"payload\": \"m" + std::to_string(i) + "\"}\n";
    const auto path = scratch_ / "messages.jsonl";
    { std::ofstream(path) << input; }
    const CliResult bar = cli({"send", "t", "--file", path.string()}, {.terminal = true});
    EXPECT_EQ(bar.exit_code, 0) << bar.out;
    EXPECT_NE(bar.out.find("\rsent [.............................."), std::string::npos) << bar.out;
    EXPECT_NE(bar.out.find("\rsent [##############################] 2500/2500"), std::string::npos)
        << bar.out;
    EXPECT_NE(bar.out.find("sent 2500 messages in 3 batches: 2500 new, 0 duplicates\r\n"),
              std::string::npos)
        << bar.out;
    const CliResult plain = cli({"send", "p", "--file", path.string()});
    EXPECT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(plain.err, "");
    EXPECT_EQ(plain.out, "sent 2500 messages in 3 batches: 2500 new, 0 duplicates\n");
    EXPECT_EQ(stats("t")["ready"], 2500);
    EXPECT_EQ(stats("p")["ready"], 2500);
}

TEST_F(ProgressTest, NoBarForWorkThatEndsAtOnce) {
    make_dead("d", 10);
    const CliResult r = cli({"dead", "requeue", "d", "--all"}, {.terminal = true});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "requeued 10 dead letters\r\n");
}

}  // namespace
}  // namespace delayq::test
