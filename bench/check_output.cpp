// The bench smoke test: runs delayq-bench with the given arguments and checks that it exits 0,
// that every line on its stdout is a JSON object with "mode" and "variant", that every mode and
// variant is there, and that each line has its mode's fields (with sane values).
// usage: delayq-bench-check /path/to/delayq-bench --quick

#include <stdio.h>
#include <sys/wait.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "json_path.hpp"
#include "support/shell_quote.hpp"

namespace {

using Json = nlohmann::json;
using delayq::bench::json_path;

// mode -> fields every line of it must have ("a.b" looks inside objects).
const std::map<std::string, std::vector<std::string>> kFields = {
    {"env", {"nproc", "cpu_model", "redis_version"}},
    {"enqueue",
     {"n", "msgs_per_s", "redis_cpu_us_per_msg", "redis_cmds_per_msg", "redis_mem_bytes_per_msg",
      "targets_met"}},
    {"e2e",
     {"n", "msgs_per_s", "first_due_to_first_delivery_ms", "redis_cpu_us_per_msg",
      "redis_cmds_per_msg", "prefetch", "max_batch", "complete", "targets_met"}},
    {"latency",
     {"lateness_ms.p50", "lateness_ms.p90", "lateness_ms.p99", "lateness_ms.max",
      "local_lateness_ms.p50", "local_lateness_ms.p99", "local_lateness_ms.max", "early_count",
      "complete", "targets_met"}},
    {"memory", {"n", "bytes_per_msg", "targets_met"}},
    {"backlog", {"backlog", "msgs_per_s", "redis_cpu_us_per_msg"}},
    {"idle", {"consumers", "cmds_per_s", "cmds_per_s_per_consumer", "targets_met"}},
    {"profile", {"n", "msgs_per_s", "redis_cpu_us_per_msg", "redis_cmds_per_msg"}},
    {"precision_max", {"n", "msgs_per_s", "complete"}},
    {"precision",
     {"rate_per_s",
      "send_msgs_per_s",
      "lateness_ms.p50",
      "lateness_ms.p99",
      "lateness_ms.max",
      "local_lateness_ms.p50",
      "local_lateness_ms.p99",
      "local_lateness_ms.max",
      "all_lateness_ms.max",
      "early_count",
      "local_early_count",
      "sent",
      "delivered",
      "acked",
      "queue_sent",
      "queue_delivered",
      "queue_acked",
      "queue_left",
      "counts_agree",
      "complete",
      "targets_met"}},
};

// Every (mode, variant) a full run prints.
const std::set<std::pair<std::string, std::string>> kExpected = {
    {"env", "machine"},
    {"enqueue", "single"},
    {"enqueue", "single_shared"},
    {"enqueue", "single_async"},
    {"enqueue", "batch"},
    {"enqueue", "batch_near"},
    {"e2e", "c1"},
    {"e2e", "c64"},
    {"latency", "quiet"},
    {"latency", "busy"},
    {"memory", "pending_16b"},
    {"backlog", "enqueue_batch"},
    {"backlog", "enqueue_single"},
    {"backlog", "e2e_c64"},
    {"idle", "empty"},
    {"profile", "send_1"},
    {"profile", "fetch_1000"},
    {"profile", "fetch_1000_distinct_due"},
    {"profile", "ack_1"},
    {"profile", "ack_1000"},
    {"precision_max", "e2e"},
    {"precision", "r10"},
    {"precision", "r50"},
    {"precision", "r80"},
};

// (mode, variant) lines that also carry their floor's Redis CPU (bench/floor.cpp). Not the ratio
// to it: with --quick's few messages, Redis's CPU clock may not have ticked during the floor.
const std::set<std::pair<std::string, std::string>> kWithFloor = {
    {"enqueue", "batch"},
    {"enqueue", "batch_near"},
    {"e2e", "c1"},
    {"e2e", "c64"},
};

// A precision line's bookkeeping: every message sent was delivered once and acked once, by the
// handler's count, the consumer's and the queue's totals, and nothing is left in the queue; no
// delivery came early on either clock.
void check_precision(const Json& j, const std::string& what,
                     const std::function<void(bool, const std::string&)>& check) {
    auto count = [&](const char* field) {
        const Json* v = json_path(j, field);
        return v != nullptr && v->is_number_unsigned() ? v->get<std::uint64_t>() : ~0ULL;
    };
    const std::uint64_t sent = count("sent");
    check(sent > 0 && sent != ~0ULL, what + " sent > 0");
    for (const char* field :
         {"delivered", "acked", "queue_sent", "queue_delivered", "queue_acked"}) {
        check(count(field) == sent, what + " " + field + " == sent");
    }
    check(count("queue_left") == 0, what + " queue_left == 0");
    check(count("redelivered") == 0, what + " redelivered == 0");
    check(count("local_early_count") == 0, what + " local_early_count == 0");
    const Json* agree = json_path(j, "counts_agree");
    check(agree != nullptr && agree->is_boolean() && agree->get<bool>(), what + " counts_agree");
}

// Joins pieces into one string.
std::string cat(std::initializer_list<std::string_view> parts) {
    std::string out;
    for (auto p : parts) out.append(p);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: delayq-bench-check /path/to/delayq-bench [args...]\n";
        return 2;
    }
    std::string command;
    for (int i = 1; i < argc; ++i) command += delayq::test::shell_quote(argv[i]) + " ";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        std::cerr << "cannot run " << command << "\n";
        return 2;
    }
    std::string out;
    char buf[4096];
    std::size_t got = 0;
    while ((got = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, got);
    const int status = ::pclose(pipe);

    int passed = 0, failed = 0;
    auto check = [&](bool ok, const std::string& what) {
        if (ok) {
            ++passed;
        } else {
            ++failed;
            std::cerr << "FAILED: " << what << "\n";
        }
    };
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "delayq-bench exits with status 0");

    std::set<std::pair<std::string, std::string>> seen;
    std::size_t start = 0, line_no = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string line = out.substr(start, end - start);
        start = end + 1;
        ++line_no;
        if (line.empty()) continue;
        const std::string where = "line " + std::to_string(line_no);
        Json j = Json::parse(line, nullptr, false);
        check(!j.is_discarded() && j.is_object(), cat({where, " is a JSON object: ", line}));
        if (j.is_discarded() || !j.is_object()) continue;
        const bool named = j.contains("mode") && j["mode"].is_string() && j.contains("variant") &&
                           j["variant"].is_string();
        check(named, where + " has string fields mode and variant");
        if (!named) continue;
        const std::string mode = j["mode"], variant = j["variant"];
        seen.insert({mode, variant});
        const std::string what = cat({where, " (", mode, "/", variant, ")"});
        if (auto f = kFields.find(mode); f != kFields.end()) {
            for (const auto& field : f->second) {
                const Json* v = json_path(j, field);
                bool ok = v != nullptr;
                if (ok && v->is_number()) ok = std::isfinite(v->get<double>());
                check(ok, cat({what, " has field ", field}));
            }
        }
        if (mode == "precision") check_precision(j, what, check);
        if (kWithFloor.contains({mode, variant})) {
            const Json* v = json_path(j, "floor_redis_cpu_us_per_msg");
            check(v != nullptr && v->is_number() && v->get<double>() >= 0,
                  what + " has field floor_redis_cpu_us_per_msg");
        }
        if (const Json* rate = json_path(j, "msgs_per_s"); rate != nullptr && rate->is_number()) {
            check(rate->get<double>() > 0, what + " msgs_per_s > 0");
        }
        if (const Json* c = json_path(j, "complete"); c != nullptr) {
            check(c->is_boolean() && c->get<bool>(), what + " complete");
        }
        if (const Json* e = json_path(j, "early_count"); e != nullptr) {
            check(e->is_number() && e->get<double>() == 0, what + " early_count == 0");
        }
    }
    for (const auto& [mode, variant] : kExpected) {
        check(seen.contains({mode, variant}), cat({"output has ", mode, "/", variant}));
    }
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed == 0 ? 0 : 1;
}
