// The redis-server the bench starts, and the raw hiredis probe for Redis-side figures.

#include <hiredis/hiredis.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>
#include <thread>

#include "harness.hpp"
#include "keys.hpp"
#include "redis/info.hpp"

namespace delayq::bench {
namespace {

using namespace std::chrono_literals;

struct ReplyDeleter {
    void operator()(redisReply* r) const { freeReplyObject(r); }
};

// A connected context, or null.
redisContext* connect_endpoint(const Endpoint& e, std::chrono::milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    redisContext* c = e.unix_path.empty() ? redisConnectWithTimeout(e.host.c_str(), e.port, tv)
                                          : redisConnectUnixWithTimeout(e.unix_path.c_str(), tv);
    if (c == nullptr) return nullptr;
    if (c->err != 0) {
        redisFree(c);
        return nullptr;
    }
    redisSetTimeout(c, timeval{120, 0});  // INFO and UNLINK waits can be slow under load
    return c;
}

template <typename T>
T to_number(std::string_view text) {
    T value{};
    std::from_chars(text.data(), text.data() + text.size(), value);
    return value;
}

double to_double(std::string_view text) {
    return text.empty() ? 0.0 : std::stod(std::string(text));
}

}  // namespace

// ---- Probe --------------------------------------------------------------------------------

void Probe::ContextDeleter::operator()(redisContext* ctx) const { redisFree(ctx); }

Probe::Probe(const Endpoint& endpoint) {
    ctx_.reset(connect_endpoint(endpoint, 5000ms));
    if (ctx_ == nullptr) throw std::runtime_error("cannot connect to Redis for measurements");
    if (!endpoint.password.empty()) {
        RawReply r = endpoint.user.empty() ? command({"AUTH", endpoint.password})
                                           : command({"AUTH", endpoint.user, endpoint.password});
        if (r.kind == RawReply::Kind::kError) throw std::runtime_error("AUTH: " + r.str);
    }
    if (endpoint.db != 0) command({"SELECT", std::to_string(endpoint.db)});
}

Probe::~Probe() = default;

RawReply Probe::command(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    ++sent_;
    std::unique_ptr<redisReply, ReplyDeleter> r(static_cast<redisReply*>(
        redisCommandArgv(ctx_.get(), static_cast<int>(argv.size()), argv.data(), lens.data())));
    if (!r) throw std::runtime_error("Redis probe: " + std::string(ctx_->errstr));
    return test::to_raw_reply(*r);
}

std::string Probe::info(const std::string& sections) {
    std::vector<std::string> args = {"INFO"};
    std::size_t pos = 0;
    while (pos < sections.size()) {
        auto end = sections.find(' ', pos);
        if (end == std::string::npos) end = sections.size();
        if (end > pos) args.push_back(sections.substr(pos, end - pos));
        pos = end + 1;
    }
    return command(args).str;
}

RedisSnapshot Probe::snapshot() {
    const std::string text = info("cpu stats memory commandstats");
    RedisSnapshot s;
    s.cpu_s = to_double(detail::info_field(text, "used_cpu_sys")) +
              to_double(detail::info_field(text, "used_cpu_user"));
    s.commands = to_number<std::int64_t>(detail::info_field(text, "total_commands_processed"));
    s.used_memory = to_number<std::int64_t>(detail::info_field(text, "used_memory"));
    std::size_t pos = 0;
    while ((pos = text.find("cmdstat_", pos)) != std::string::npos) {
        std::size_t colon = text.find(':', pos);
        std::size_t end = text.find('\r', colon);
        std::string name = text.substr(pos + 8, colon - pos - 8);
        std::string_view fields(text.data() + colon + 1, end - colon - 1);
        CmdStat st;
        if (auto c = fields.find("calls="); c != std::string_view::npos) {
            st.calls = to_number<std::int64_t>(fields.substr(c + 6));
        }
        if (auto u = fields.find("usec="); u != std::string_view::npos) {
            st.usec = to_number<std::int64_t>(fields.substr(u + 5));
        }
        s.cmdstats[name] = st;
        pos = end;
    }
    return s;
}

std::int64_t Probe::time_us() {
    RawReply r = command({"TIME"});
    if (r.elements.size() != 2) throw std::runtime_error("TIME: unexpected reply");
    return to_number<std::int64_t>(r.elements[0].str) * 1'000'000 +
           to_number<std::int64_t>(r.elements[1].str);
}

std::int64_t Probe::used_memory() {
    return to_number<std::int64_t>(detail::info_field(info("memory"), "used_memory"));
}

std::int64_t Probe::connected_clients() {
    return to_number<std::int64_t>(detail::info_field(info("clients"), "connected_clients"));
}

void Probe::wait_clients_at_most(std::int64_t n) {
    const auto deadline = SteadyClock::now() + 2s;
    while (connected_clients() > n && SteadyClock::now() < deadline) {
        std::this_thread::sleep_for(1ms);
    }
}

std::string Probe::redis_version() { return detail::info_field(info("server"), "redis_version"); }

void Probe::drop_queue(const std::string& queue) {
    // Every name make_keys builds (the wake channel among them is no key, and UNLINK skips it),
    // and the push target's credentials.
    std::vector<std::string> args = {"UNLINK"};
    for (std::string& key : detail::make_keys(queue)) args.push_back(std::move(key));
    args.push_back(detail::make_secret_key(queue));
    command(args);
    wait_lazyfree();
}

void Probe::wait_lazyfree() {
    for (;;) {
        auto pending =
            to_number<std::int64_t>(detail::info_field(info("memory"), "lazyfree_pending_objects"));
        if (pending == 0) return;
        std::this_thread::sleep_for(20ms);
    }
}

std::uint64_t Probe::finish_rehash(const std::string& queue) {
    // The old table's bucket count while rehashing, else 0. HTSTATS-KEY walks the whole table
    // (a second or more at 10M entries), so it is asked only once per key and round.
    auto old_table_size = [&](const std::string& key) -> std::uint64_t {
        RawReply r = command({"DEBUG", "HTSTATS-KEY", key});
        if (r.is_error() || r.str.find("rehashing target") == std::string::npos) return 0;
        const std::string_view field = "table size: ";
        const std::size_t at = r.str.find(field);
        if (at == std::string::npos) return 0;
        return to_number<std::uint64_t>(std::string_view(r.str).substr(at + field.size()));
    };
    constexpr std::uint64_t kPipeline = 10'000;
    std::uint64_t lookups = 0;
    for (const std::string& key :
         {"dq:{" + queue + "}:msg", "dq:{" + queue + "}:cold", "dq:{" + queue + "}:pending"}) {
        const char* format = key.ends_with(":pending") ? "ZSCORE %b x" : "HEXISTS %b x";
        // Each lookup moves at least one bucket of the old table: its size in lookups is
        // enough, unless other commands shrank or grew the table meanwhile; then again.
        for (std::uint64_t left = old_table_size(key); left > 0; left = old_table_size(key)) {
            while (left > 0) {
                const std::uint64_t n = std::min(left, kPipeline);
                for (std::uint64_t i = 0; i < n; ++i) {
                    redisAppendCommand(ctx_.get(), format, key.data(), key.size());
                }
                for (std::uint64_t i = 0; i < n; ++i) {
                    void* raw = nullptr;
                    if (redisGetReply(ctx_.get(), &raw) != REDIS_OK) {
                        throw std::runtime_error("Redis probe: " + std::string(ctx_->errstr));
                    }
                    freeReplyObject(raw);
                }
                sent_ += n;
                lookups += n;
                left -= n;
            }
        }
    }
    return lookups;
}

ClockOffset measure_clock_offset(Probe& probe) {
    ClockOffset best{0, std::numeric_limits<std::int64_t>::max()};
    for (int i = 0; i < 30; ++i) {
        std::int64_t t0 = local_now_us();
        std::int64_t redis = probe.time_us();
        std::int64_t t1 = local_now_us();
        std::int64_t half = (t1 - t0 + 1) / 2;
        if (half < best.uncertainty_us) best = ClockOffset{redis - (t0 + t1) / 2, half};
    }
    return best;
}

}  // namespace delayq::bench
