// A queue that layout 1 wrote becomes layout 2 in place (docs/design.md, Layout migration): its
// records lack the due time, which layout 2 then reads from the pending score; the first script
// that may write marks the queue, and a layout-1 client is refused from then on with a text that
// names the release to upgrade to. Tested on a queue of 1M messages in every state layout 1
// left: scheduled in msg, cold and blocks, with caller ids and expiries, retried, in flight, dead.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

// Writes what layout 1's scripts wrote (its lib/record.lua, lib/blocks.lua, fetch.lua, nack.lua
// and dead.lua), for messages with sequence numbers ARGV[1] .. ARGV[1] + ARGV[2] - 1, all of one
// kind (ARGV[3]), due at ARGV[4] + (number % 3000) ms. Layout 1's records start with max or
// attempts and carry no due time while pending: its score is the due time.
//   msg, cold: the 2-value shape (max, payload) in msg or cold; block: blocks of 64 such records
//   caller: a caller id "order-<n>" with an expiry (the 4-value shape; the member is token..id)
//   retry: retried once, pending again: the 8-value shape with token 0 and its last error; its
//     due field is stale (layout 1 moved only the score), 5 s before its score
//   inflight: leased on attempt 1 with token number + 2^40, until its due + 3 s: the 2-value shape
//     followed by attempt, token, due as decimal digits
//   dead: the 8-value shape, reason 'attempts exhausted', dead-lettered at ARGV[4] - 1000
constexpr const char* kLayout1Writer = R"lua(
local msg, pending, inflight, dead, err = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local cold, blocks, blockidx, settings = KEYS[8], KEYS[9], KEYS[10], KEYS[11]
local first, n, kind, base = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
redis.call('HSET', settings, 'layout', '1')
local function key(s) return string.format('%014x', s) end
local function due(s) return base + s % 3000 end
local function fixstr(s) return string.char(0xa0 + #s) .. s end
local function payload(s) return string.format('p%d', s) end
local hash, zset = {}, {}
for s = first, first + n - 1 do
    local id, member, rec = key(s), key(s), nil
    if kind == 'msg' or kind == 'cold' or kind == 'block' then
        rec = cmsgpack.pack(0, payload(s))
    elseif kind == 'caller' then
        id = string.format('order-%d', s)
        member = key(s) .. id
        rec = cmsgpack.pack(0, base + 3600000, member, payload(s))
    elseif kind == 'retry' then
        rec = cmsgpack.pack(1, 0, 0, 0, due(s) - 5000, '', '', payload(s))
        redis.call('HSET', err, id, 'boom')
    elseif kind == 'inflight' then
        local token = key(s + 1099511627776)
        rec = cmsgpack.pack(0, payload(s)) .. cmsgpack.pack(1) .. fixstr(token)
              .. fixstr(string.format('%d', due(s)))
        redis.call('ZADD', inflight, due(s) + 3000, token .. id)
    elseif kind == 'dead' then
        rec = cmsgpack.pack(3, 3, 0, 0, due(s), '', 'attempts exhausted', payload(s))
        redis.call('ZADD', dead, base - 1000, member)
        redis.call('HSET', err, id, 'boom')
    end
    hash[#hash + 1], hash[#hash + 2] = id, rec
    if kind ~= 'inflight' and kind ~= 'dead' then
        zset[#zset + 1], zset[#zset + 2] = due(s), member
    end
end
if kind == 'block' then
    for b = first, first + n - 1, 64 do
        local c = math.min(64, first + n - b)
        local ends, total = {}, 0
        for k = 1, c do
            total = total + #hash[2 * (b - first + k)]
            ends[k] = string.char(math.floor(total / 256), total % 256)
        end
        local recs = {}
        for k = 1, c do recs[k] = hash[2 * (b - first + k)] end
        redis.call('HSET', blocks, key(b), string.char(math.floor(c / 256), c % 256)
                   .. table.concat(ends) .. table.concat(recs), key(b) .. '#', c)
        redis.call('ZADD', blockidx, b, key(b))
    end
else
    redis.call('HSET', kind == 'cold' and cold or msg, unpack(hash))
end
if #zset > 0 then redis.call('ZADD', pending, unpack(zset)) end
redis.call('HSET', settings, 'seq', string.format('%d', first + n + 1099511627776))
return n
)lua";

// The check every layout-1 script ran first (layout 1's lib/layout.lua): what a client of
// layout 1 answers on this queue.
constexpr const char* kLayout1Check = R"lua(
local layout = redis.call('HGET', KEYS[1], 'layout')
if layout and layout ~= '1' then
    return redis.error_reply('ERR delayq layout: the queue has layout version ' .. layout
        .. ' and this client speaks version 1; run one version of delayq on a queue')
end
return 'ok'
)lua";

struct Kind {
    const char* name;
    std::int64_t count;
};
// 1M messages: most in msg, blocks and cold, then the rarer states.
constexpr Kind kKinds[] = {{"msg", 400'000},      {"block", 300'000}, {"cold", 100'000},
                           {"inflight", 100'000}, {"dead", 50'000},   {"retry", 25'000},
                           {"caller", 25'000}};
constexpr std::int64_t kChunk = 1000;  // messages per EVAL: unpack() takes at most ~8000 values
constexpr std::uint64_t kTokenOffset = 1'099'511'627'776;

class LayoutMigrationTest : public RedisTest {
  protected:
    std::vector<std::string> keys_args() const {
        std::vector<std::string> args = {"12"};
        for (const char* part : {"msg", "pending", "inflight", "dead", "err", "stats", "wake",
                                 "cold", "blocks", "blockidx", "settings", "lateness"}) {
            args.push_back(queue_key("q", part));
        }
        return args;
    }

    // Writes `count` layout-1 messages of `kind` from sequence number `first` on.
    void write_layout1(const char* kind, std::int64_t first, std::int64_t count,
                       std::int64_t base_ms) {
        for (std::int64_t at = 0; at < count; at += kChunk) {
            std::vector<std::string> args = {"EVAL", kLayout1Writer};
            for (std::string& k : keys_args()) args.push_back(std::move(k));
            args.insert(args.end(),
                        {std::to_string(first + at), std::to_string(std::min(kChunk, count - at)),
                         kind, std::to_string(base_ms)});
            const RawReply r = server().command(args);
            ASSERT_FALSE(r.is_error()) << r.str;
        }
    }

    RawReply layout1_check() {
        return server().command({"EVAL", kLayout1Check, "1", queue_key("q", "settings")});
    }
};

std::string layout1_key(std::int64_t n) {
    char out[32];
    std::snprintf(out, sizeof out, "%014llx", static_cast<unsigned long long>(n));
    return out;
}

TEST_F(LayoutMigrationTest, AMillionMessagesOfLayoutOneAreDeliveredOnceAndNeverEarly) {
    Queue q = queue();
    Leases l = leases(q);
    // Sequence numbers from well before now, as layout 1 took them from the Redis clock in µs;
    // due times from 2 s ahead, so the queue is whole before the first is due.
    const std::int64_t now_ms = server().time_ms();
    const std::int64_t first_seq = now_ms * 1000 - 4'000'000'000;
    const std::int64_t base = now_ms + 2000;
    std::map<std::string, std::int64_t> first_of;  // kind -> its first sequence number
    std::int64_t seq = first_seq;
    for (const Kind& k : kKinds) {
        write_layout1(k.name, seq, k.count, base);
        if (HasFatalFailure()) return;
        first_of[k.name] = seq;
        seq += k.count;
    }
    const std::int64_t total = seq - first_seq;
    ASSERT_EQ(total, 1'000'000);
    // The kind of sequence number s: the kinds are written in kKinds' order.
    const auto kind_of = [&](std::int64_t s) {
        std::string kind;
        for (const Kind& k : kKinds) {
            if (s >= first_of[k.name]) kind = k.name;
        }
        return kind;
    };
    ASSERT_EQ(server().zcard(queue_key("q", "pending")), 850'000);

    // Reading leaves the queue as layout 1 wrote it: a layout-1 client still runs.
    EXPECT_EQ(admin(q).settings().layout, 1);
    const auto due_of = [&](std::int64_t s) { return base + s % 3000; };
    const auto info = [&](const std::string& id) {
        auto m = admin(q).get(id);
        EXPECT_TRUE(m) << id;
        return m.value_or(MessageInfo{});
    };
    const std::int64_t s_msg = first_of["msg"];
    const std::int64_t s_block = first_of["block"] + 70;  // in a block's middle
    const std::int64_t s_retry = first_of["retry"];
    const std::int64_t s_dead = first_of["dead"];
    const std::int64_t s_inflight = first_of["inflight"];
    const std::int64_t s_caller = first_of["caller"];
    const auto waiting = [](State s) { return s == State::kScheduled || s == State::kReady; };
    EXPECT_TRUE(waiting(info(layout1_key(s_msg)).state));
    EXPECT_EQ(ms(info(layout1_key(s_msg)).due), due_of(s_msg));
    EXPECT_EQ(info(layout1_key(s_block)).payload, "p" + std::to_string(s_block));
    EXPECT_EQ(ms(info(layout1_key(s_block)).due), due_of(s_block));
    EXPECT_EQ(ms(info(layout1_key(s_retry)).due),
              due_of(s_retry));  // the score, not the stale field
    EXPECT_EQ(info(layout1_key(s_retry)).attempts, 1);
    EXPECT_EQ(info(layout1_key(s_dead)).state, State::kDead);
    EXPECT_EQ(ms(info(layout1_key(s_dead)).due), due_of(s_dead));
    EXPECT_EQ(info(layout1_key(s_inflight)).state, State::kInFlight);
    EXPECT_EQ(ms(info(layout1_key(s_inflight)).due), due_of(s_inflight));
    EXPECT_TRUE(waiting(info("order-" + std::to_string(s_caller)).state));
    EXPECT_EQ(admin(q).settings().layout, 1);
    EXPECT_EQ(layout1_check().str, "ok");

    // The first write marks the queue; a layout-1 client is refused, told what to run.
    std::vector<Lease> held;
    for (std::int64_t s = s_inflight; s < s_inflight + 50'000; ++s) {
        held.emplace_back(layout1_key(s), static_cast<std::uint64_t>(s) + kTokenOffset);
    }
    for (std::size_t at = 0; at < held.size(); at += 1000) {
        const std::span<const Lease> part(held.data() + at,
                                          std::min<std::size_t>(1000, held.size() - at));
        for (const LeaseResult& r : l.ack(part)) ASSERT_EQ(r.status, LeaseStatus::kAcked);
    }
    EXPECT_EQ(admin(q).settings().layout, 2);
    const RawReply refused = layout1_check();
    ASSERT_TRUE(refused.is_error());
    EXPECT_NE(refused.str.find("layout version 2 (delayq 0.2.0 or later)"), std::string::npos)
        << refused.str;

    // Moves of undated records: a cold one and one in a block, to before the others.
    const std::string early_cold = layout1_key(first_of["cold"]);
    const std::string early_block = layout1_key(s_block);
    ASSERT_EQ(q.reschedule_at(early_cold, from_ms(base - 500)).status,
              RescheduleStatus::kRescheduled);
    ASSERT_EQ(q.reschedule_at(early_block, from_ms(base - 400)).status,
              RescheduleStatus::kRescheduled);
    EXPECT_EQ(admin(q).requeue({.all = true}), 50'000U);

    // Drain: every message once, none before its due time on the Redis clock, each with its due
    // time, attempt and payload.
    std::vector<int> seen(static_cast<std::size_t>(total));  // deliveries per sequence number
    std::int64_t delivered = 0;
    const auto deadline = std::chrono::steady_clock::now() + 10min;
    while (delivered < total - 50'000 && std::chrono::steady_clock::now() < deadline) {
        FetchResult f = l.fetch(1000, 60s);
        for (const Delivery& d : f.deliveries) {
            ASSERT_LE(ms(d.due()), ms(f.now)) << d.id();
            const bool by_caller = d.id().starts_with("order-");
            const std::int64_t s =
                by_caller ? std::stoll(d.id().substr(6)) : std::stoll(d.id(), nullptr, 16);
            ASSERT_TRUE(s >= first_seq && s < first_seq + total) << d.id();
            ++seen[static_cast<std::size_t>(s - first_seq)];
            const std::string kind = kind_of(s);
            EXPECT_EQ(by_caller, kind == "caller") << d.id();
            EXPECT_EQ(d.payload(), "p" + std::to_string(s));
            if (kind == "dead") {
                EXPECT_EQ(d.attempt(), 1);  // a requeue starts afresh
            } else if (kind == "retry") {
                EXPECT_EQ(d.attempt(), 2);
                EXPECT_EQ(d.last_error(), "boom");
                EXPECT_EQ(ms(d.due()), due_of(s));
            } else if (kind == "inflight") {
                EXPECT_EQ(d.attempt(), 2);  // its layout-1 lease lapsed
                EXPECT_EQ(d.last_error(), "visibility timeout expired on attempt 1");
            } else if (d.id() == early_cold) {
                EXPECT_EQ(ms(d.due()), base - 500);
            } else if (d.id() == early_block) {
                EXPECT_EQ(ms(d.due()), base - 400);
            } else {
                EXPECT_EQ(d.attempt(), 1);
                EXPECT_EQ(ms(d.due()), due_of(s)) << kind;
            }
        }
        delivered += static_cast<std::int64_t>(f.deliveries.size());
        const std::vector<Lease> done = lease_of(f.deliveries);
        for (const LeaseResult& r : l.ack(done)) ASSERT_EQ(r.status, LeaseStatus::kAcked);
        if (f.deliveries.empty() && f.next) {
            // Nothing due yet: wait for the Redis clock to reach the next due time.
            wait_for_server_time_after(*f.next - 1ms);
        }
    }
    EXPECT_EQ(delivered, total - 50'000);
    // Once each, but for the leases acked before the drain.
    for (std::int64_t s = first_seq; s < first_seq + total; ++s) {
        const bool acked_before = s >= s_inflight && s < s_inflight + 50'000;
        ASSERT_EQ(seen[static_cast<std::size_t>(s - first_seq)], acked_before ? 0 : 1) << s;
    }
    for (const char* part : {"pending", "inflight", "dead"}) {
        EXPECT_EQ(server().zcard(queue_key("q", part)), 0) << part;
    }
    EXPECT_EQ(server().hlen(queue_key("q", "msg")), 0);
    EXPECT_EQ(server().hlen(queue_key("q", "cold")), 0);
    EXPECT_EQ(server().hlen(queue_key("q", "blocks")), 0);
}

}  // namespace
}  // namespace delayq::test
