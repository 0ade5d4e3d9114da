// Issue 34: every script and every function of the library, called raw with malformed
// arguments (missing, extra, wrong type, empty, huge, negative, NaN, inf, "-0", "1e3", "0x10",
// 2^63, 1e308, bytes that are not UTF-8) and malformed keys (missing, extra), against a queue
// with messages in every state: each call must be answered with an error, the server must
// still answer PING, and DEBUG DIGEST must be the same before and after (read-only scripts
// too). Well-formed values that name nothing (an unknown id, a lease not held) must be
// answered without an error and change nothing too. The scripts come from the generated table
// of DELAYQ_LUA_SCRIPTS, and the functions from the library's own text: a script without a
// contract in contracts.cpp fails the test.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "contracts.hpp"
#include "delayq/delayq.hpp"
#include "keys.hpp"
#include "population.hpp"
#include "scripts.hpp"
#include "support/redis_server.hpp"

namespace delayq::test::script_args {
namespace {

using detail::ScriptSource;

constexpr std::array kAllScripts = {
#include "all_scripts.inc"
};

enum class Engine { kFunctions, kEvalsha };

enum class Expect { kError, kAnswerWithoutChange };

struct Case {
    std::string label;
    std::vector<std::string> keys;
    std::vector<std::string> args;
    Expect expect = Expect::kError;
};

std::string stem_of(const ScriptSource& s) { return s.name; }

std::vector<std::string> keys_of(const std::string& queue, std::size_t count) {
    const detail::QueueKeys keys = detail::make_keys(queue);
    std::vector<std::string> out(keys.begin(), keys.end());
    if (count == 17) out.push_back(detail::make_secret_key(queue));
    return out;
}

std::string shown(const std::string& value) {
    std::string out;
    for (char c : value.substr(0, 24)) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
            static constexpr std::string_view kHex = "0123456789abcdef";
            out += "\\x";
            out += kHex[u >> 4];
            out += kHex[u & 15];
        } else {
            out += c;
        }
    }
    if (value.size() > 24) out += "...(" + std::to_string(value.size()) + " bytes)";
    return "'" + out + "'";
}

// Every malformed call of one script, and the well-formed ones naming nothing.
std::vector<Case> cases_of(const Contract& contract, const std::string& queue) {
    const std::vector<std::string> keys = keys_of(queue, contract.keys);
    std::set<std::vector<std::string>> valid;
    for (const auto& t : contract.templates) {
        std::vector<std::string> args;
        for (const Param& p : t) args.push_back(p.valid);
        valid.insert(args);
    }
    std::vector<Case> out;
    std::set<std::vector<std::string>> seen;
    const auto add = [&](std::string label, std::vector<std::string> args, Expect expect,
                         std::vector<std::string> with_keys) {
        if (expect == Expect::kError && valid.contains(args)) return;
        if (!seen.insert(args).second && with_keys == keys) return;
        out.push_back({std::move(label), std::move(with_keys), std::move(args), expect});
    };
    for (std::size_t t = 0; t < contract.templates.size(); ++t) {
        const std::vector<Param>& params = contract.templates[t];
        std::vector<std::string> args;
        for (const Param& p : params) args.push_back(p.valid);
        const std::string shape = "shape " + std::to_string(t) + ", ";
        for (std::size_t k = 0; k < params.size(); ++k) {
            const std::string at = shape + "ARGV[" + std::to_string(k + 1) + "] " + params[k].label;
            add(at + " missing",
                std::vector<std::string>(args.begin(), args.begin() + static_cast<long>(k)),
                Expect::kError, keys);
            for (const std::string& v : malformed_values(params[k])) {
                std::vector<std::string> bad = args;
                bad[k] = v;
                add(at + " = " + shown(v), bad, Expect::kError, keys);
            }
            for (const std::string& v : unknown_values(params[k])) {
                std::vector<std::string> unknown = args;
                unknown[k] = v;
                add(at + " = " + shown(v) + " (names nothing)", unknown,
                    Expect::kAnswerWithoutChange, keys);
            }
        }
        using ArgLists = std::vector<std::vector<std::string>>;
        const ArgLists extras =
            contract.open_tail ? ArgLists{}
                               : ArgLists{{"\xff\xfe"}, {"x", "y"}, {std::string(1 << 20, 'a')}};
        for (const std::vector<std::string>& extra : extras) {
            std::vector<std::string> more = args;
            more.insert(more.end(), extra.begin(), extra.end());
            add(shape + "extra arguments " + shown(extra.front()), more, Expect::kError, keys);
        }
        // Keys: none, one missing, one extra (the write-only key where it is not taken, or
        // another), those of the queue without the write-only key where it is taken.
        std::vector<std::string> fewer(keys.begin(), keys.end() - 1);
        std::vector<std::string> extra_key = keys_of(queue, 17);
        if (contract.keys == 17) extra_key.push_back("dq:{" + queue + "}:extra");
        add(shape + "no KEYS", args, Expect::kError, {});
        add(shape + "the last KEYS missing", args, Expect::kError, fewer);
        add(shape + "an extra KEYS", args, Expect::kError, extra_key);
    }
    for (const auto& bad : contract.also_malformed) {
        add("too many (" + std::to_string(bad.size()) + " arguments)", bad, Expect::kError, keys);
    }
    return out;
}

std::vector<std::string> call_of(Engine engine, const ScriptSource& s,
                                 const std::vector<std::string>& keys,
                                 const std::vector<std::string>& args) {
    std::vector<std::string> call;
    if (engine == Engine::kFunctions) {
        call = {s.read_only ? "FCALL_RO" : "FCALL", s.function};
    } else {
        call = {s.read_only ? "EVALSHA_RO" : "EVALSHA", s.sha1};
    }
    call.push_back(std::to_string(keys.size()));
    call.insert(call.end(), keys.begin(), keys.end());
    call.insert(call.end(), args.begin(), args.end());
    return call;
}

// The functions the library registers, read from its own text (cmake/lua_library.cmake).
std::set<std::string> registered_functions() {
    std::set<std::string> out;
    const std::string_view code = detail::scripts::kLibrary.code;
    constexpr std::string_view kMark = "function_name = '";
    for (auto at = code.find(kMark); at != std::string_view::npos; at = code.find(kMark, at)) {
        at += kMark.size();
        out.emplace(code.substr(at, code.find('\'', at) - at));
    }
    return out;
}

// schedule_get's {now, cursor, name, kind, expr, tz, payload, max, exp, start, stop, runs_max,
// overlap, catch, hash, ..., next}: what a claim must name to claim.
void read_schedule(const RedisServer& server, Population& population) {
    const RawReply r =
        server.command(call_of(Engine::kFunctions, detail::scripts::kScheduleGet,
                               keys_of(population.queue, 16), {"one", population.schedule}));
    ASSERT_EQ(r.kind, RawReply::Kind::kArray) << r.str;
    ASSERT_GT(r.elements.size(), 15U);
    population.schedule_hash = r.elements[14].str;
    const RawReply& next = r.elements.back();
    population.schedule_next =
        next.kind == RawReply::Kind::kInteger ? std::to_string(next.integer) : next.str;
}

TEST(ScriptArgsTest, EveryScriptAndEveryFunctionHasAContract) {
    Population p{.queue = "q",
                 .leases = {"00000000000001sa"},
                 .scheduled_id = "a",
                 .dead_id = "b",
                 .schedule = "c"};
    std::set<std::string> functions;
    for (const ScriptSource* s : kAllScripts) {
        functions.insert(s->function);
        const auto contract = contract_of(stem_of(*s), p);
        ASSERT_TRUE(contract.has_value()) << s->name << " has no contract in contracts.cpp";
        EXPECT_FALSE(cases_of(*contract, p.queue).empty()) << s->name;
    }
    EXPECT_EQ(functions, registered_functions());
    EXPECT_EQ(kAllScripts.size(), functions.size());
}

void expect_refusals(Engine engine) {
    RedisServer server;
    Client client(server.url(), {.engine = ScriptEngine::kFunctions});
    Population population = populate(client, "q");
    ASSERT_EQ(client.engine().mode, ScriptEngine::kFunctions);
    ASSERT_NO_FATAL_FAILURE(read_schedule(server, population));
    for (const ScriptSource* s : kAllScripts) {
        const RawReply loaded = server.command({"SCRIPT", "LOAD", s->source});
        ASSERT_EQ(loaded.str, s->sha1) << s->name;
    }
    std::size_t count = 0;
    std::vector<std::string> failures;
    for (const ScriptSource* s : kAllScripts) {
        const auto contract = contract_of(stem_of(*s), population);
        ASSERT_TRUE(contract.has_value()) << s->name;
        for (const Case& c : cases_of(*contract, population.queue)) {
            ++count;
            const std::vector<RawReply> r = server.commands({{"DEBUG", "DIGEST"},
                                                             call_of(engine, *s, c.keys, c.args),
                                                             {"DEBUG", "DIGEST"},
                                                             {"PING"}});
            const std::string what = std::string(s->name) + ": " + c.label;
            if (c.expect == Expect::kError && !r[1].is_error()) {
                failures.push_back(what + ": answered without an error");
            }
            if (c.expect == Expect::kAnswerWithoutChange && r[1].is_error()) {
                failures.push_back(what + ": refused with " + r[1].str);
            }
            if (r[0].str != r[2].str || r[0].str.empty()) {
                failures.push_back(what + ": changed the data (DEBUG DIGEST)");
            }
            if (r[3].str != "PONG") failures.push_back(what + ": no PONG after it");
        }
    }
    // The templates are well-formed: each is answered without an error (delete last).
    std::vector<const ScriptSource*> order(kAllScripts.begin(), kAllScripts.end());
    std::stable_partition(order.begin(), order.end(),
                          [](const ScriptSource* s) { return stem_of(*s) != "delete"; });
    for (const ScriptSource* s : order) {
        const auto contract = contract_of(stem_of(*s), population);
        for (const auto& t : contract->templates) {
            std::vector<std::string> args;
            for (const Param& p : t) args.push_back(p.valid);
            const RawReply r = server.command(
                call_of(engine, *s, keys_of(population.queue, contract->keys), args));
            if (r.is_error())
                failures.push_back(std::string(s->name) + ": template refused: " + r.str);
        }
    }
    std::string shown_failures;
    for (std::size_t i = 0; i < failures.size() && i < 100000; ++i)
        shown_failures += failures[i] + "\n";
    EXPECT_TRUE(failures.empty()) << failures.size() << " of " << count << " cases failed:\n"
                                  << shown_failures;
    EXPECT_GT(count, kAllScripts.size() * 5);
    std::cout << count << " cases over " << kAllScripts.size() << " scripts\n";
}

TEST(ScriptArgsTest, FunctionsRefuseMalformedCallsAndChangeNothing) {
    expect_refusals(Engine::kFunctions);
}

TEST(ScriptArgsTest, ScriptsRefuseMalformedCallsAndChangeNothing) {
    expect_refusals(Engine::kEvalsha);
}

}  // namespace
}  // namespace delayq::test::script_args
