// Every --json object has exactly the fields docs/json.md and docs/cli.md ("JSON output")
// document, with the documented types: the documentation is the contract, and this test holds
// the two together.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <delayq/version.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;

struct Field {
    std::string type;  // as documented: "integer or null", "string, optional", ...
};
using Schema = std::map<std::string, Field>;  // "totals.sent" for a nested field

// The field table under the heading "## <name>" or "### <name> (...)" of a page of docs/.
Schema documented_in(const std::string& page, const std::string& name,
                     const std::string& prefix = "") {
    std::ifstream in(std::string(DELAYQ_SOURCE_DIR) + "/docs/" + page);
    std::string line;
    bool inside = false;
    Schema schema;
    while (std::getline(in, line)) {
        if (line.starts_with("#")) {
            const std::string title = line.substr(line.find(' ') + 1);
            inside = title == name || title.starts_with(name + " (");
            continue;
        }
        if (!inside || !line.starts_with("| `")) continue;
        // A row may name several fields of one type: | `created_ms`, `updated_ms` | integer |
        const auto names_end = line.find(" | ", 2);
        const auto type_start = names_end + 3;
        const auto type_end = line.find(" |", type_start);
        const std::string type = line.substr(type_start, type_end - type_start);
        for (auto open = line.find('`'); open < names_end; open = line.find('`', open + 1)) {
            const auto close = line.find('`', open + 1);
            schema[prefix + line.substr(open + 1, close - open - 1)] = {type};
            open = close;
        }
    }
    EXPECT_FALSE(schema.empty()) << "no table for " << name << " in docs/" << page;
    return schema;
}

// What the command line writes of each object: the shared ones are documented once in
// docs/json.md, with what the command line adds beside them in docs/cli.md.
Schema documented(const std::string& name) {
    if (name == "Message" || name == "Delivery" || name == "Schedule") {
        return documented_in("json.md", name);
    }
    Schema schema;
    if (name == "Stats") {
        schema = documented_in("json.md", "Stats");
        schema.merge(documented_in("json.md", "Totals", "totals."));
        schema["queue"] = {"string"};
        schema["totals"] = {"object"};
    } else if (name == "Queue") {
        schema = documented_in("json.md", "Settings");
        schema["backoff"] = {"object"};
        schema.merge(documented_in("cli.md", "Queue"));
    } else {
        schema = documented_in("cli.md", name);
    }
    return schema;
}

bool has_type(const Json& v, const std::string& type) {
    const bool nullable = type.find("or null") != std::string::npos;
    if (v.is_null()) return nullable;
    if (type.starts_with("integer")) return v.is_number_integer();
    if (type.starts_with("number")) return v.is_number();
    if (type.starts_with("string")) return v.is_string();
    if (type.starts_with("boolean")) return v.is_boolean();
    if (type.starts_with("object")) return v.is_object();
    return false;
}

// Each field of `j` is documented with its type, and each documented field that is not
// optional is there.
void expect_conforms(const Json& j, const std::string& name, const std::string& prefix = "") {
    const Schema schema = documented(name);
    ASSERT_TRUE(j.is_object()) << j.dump();
    for (const auto& [key, value] : j.items()) {
        const std::string path = prefix + key;
        const auto doc = schema.find(path);
        ASSERT_NE(doc, schema.end()) << name << ": field " << path << " is not documented";
        EXPECT_TRUE(has_type(value, doc->second.type))
            << name << ": " << path << " is " << value.dump() << ", documented as "
            << doc->second.type;
        const bool nested = std::any_of(schema.begin(), schema.end(), [&](const auto& f) {
            return f.first.starts_with(path + ".");
        });
        if (value.is_object() && nested) expect_conforms(value, name, path + ".");
    }
    for (const auto& [path, field] : schema) {
        if (field.type.find("optional") != std::string::npos) continue;
        if (!path.starts_with(prefix) || path.find('.', prefix.size()) != std::string::npos) {
            continue;
        }
        EXPECT_TRUE(j.contains(path.substr(prefix.size())))
            << name << ": documented field " << path << " is missing from " << j.dump();
    }
}

Json one_object(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_lines(r.out), 1U) << r.out;
    return Json::parse(r.out);
}

using JsonOutputTest = CliTest;

TEST_F(JsonOutputTest, MessagesOfEveryStateConform) {
    send("q", "scheduled", {"--delay", "1h", "--expire-after", "2h"});
    send("q", std::string("\xff\xfe binary", 9));
    send("q", "held");
    send("q", "doomed", {"--id", "doomed", "--max-attempts", "1", "--delay", "0ms"});
    Client client(redis_.url());
    Leases leases = client.leases("q");
    auto fetched = leases.fetch(3, 1h).deliveries;
    ASSERT_FALSE(fetched.empty());
    for (const auto& d : fetched) {
        if (d.id() == "doomed") {
            ASSERT_EQ(leases.reject(d.lease(), Reject{.error = "bad order"}).status,
                      LeaseStatus::kDeadLettered);
        }
    }
    std::size_t seen = 0;
    bool base64 = false;
    for (const std::string state : {"scheduled", "ready", "in_flight", "dead"}) {
        for (const Json& m : peek("q", state)) {
            expect_conforms(m, "Message");
            base64 = base64 || m.contains("payload_base64");
            EXPECT_NE(m.contains("payload"), m.contains("payload_base64")) << m.dump();
            ++seen;
        }
    }
    const CliResult dead = cli({"dead", "list", "q", "--json"});
    ASSERT_EQ(dead.exit_code, 0) << dead.err;
    for (const Json& m : json_lines(dead.out)) {
        expect_conforms(m, "Message");
        EXPECT_EQ(m["dead_reason"], "rejected");
        EXPECT_EQ(m["last_error"], "bad order");
    }
    EXPECT_TRUE(base64);
    EXPECT_EQ(seen, 4U);
    EXPECT_EQ(count_lines(dead.out), 1U);
}

TEST_F(JsonOutputTest, StatsQueuesAndQueueInfoConform) {
    send("q", "later", {"--delay", "1h"});
    send("q", "now");
    expect_conforms(one_object(cli({"stats", "q", "--json"})), "Stats");
    for (const auto& args : {std::vector<std::string>{"stats", "--json"}, {"queues", "--json"}}) {
        const Json all = one_object(cli(args));
        ASSERT_TRUE(all.is_array());
        ASSERT_EQ(all.size(), 1U);
        expect_conforms(all[0], "Stats");
    }
    const Json info = one_object(cli({"queue", "info", "q", "--json"}));
    expect_conforms(info, "Queue");
    expect_conforms(info["stats"], "Stats");
    EXPECT_EQ(info["engine"]["mode"], "functions");
    EXPECT_EQ(info["engine"]["reason"], "");
}

TEST_F(JsonOutputTest, ConsumeLinesConform) {
    send("q", "text");
    send("q", std::string("\x01\xff", 2));
    send("q", "three");
    // --json says what the default is.
    const CliResult r = cli({"consume", "q", "--max", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2U);
    for (const Json& d : lines) expect_conforms(d, "Delivery");
    const CliResult json = cli({"consume", "q", "--max", "1", "--json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto third = json_lines(json.out);
    ASSERT_EQ(third.size(), 1U);
    expect_conforms(third[0], "Delivery");
    EXPECT_EQ(third[0]["payload"], "three");
}

TEST_F(JsonOutputTest, SchedulesOfGetAndListConform) {
    ASSERT_EQ(cli({"schedule", "add", "q", "hourly", "--every", "1h", "--payload", "x"}).exit_code,
              0);
    expect_conforms(one_object(cli({"schedule", "get", "q", "hourly", "--json"})), "Schedule");
    const Json list = one_object(cli({"schedule", "list", "--json"}));
    ASSERT_EQ(list["schedules"].size(), 1U) << list.dump();
    expect_conforms(list["schedules"][0], "Schedule");
}

TEST_F(JsonOutputTest, LocalStatusAndVersionConform) {
    const CliResult r = cli({"local", "status", "--json"});
    EXPECT_EQ(r.exit_code, 1);  // not running
    const Json stopped = Json::parse(r.out);
    expect_conforms(stopped, "Local");
    EXPECT_EQ(stopped["state"], "not running");
    EXPECT_TRUE(stopped["pid"].is_null());
    EXPECT_EQ(stopped["data_dir"], home_.string());

    const Json version = one_object(cli({"version", "--json"}));
    expect_conforms(version, "Version");
    EXPECT_EQ(version["version"], kVersion);
}

}  // namespace
}  // namespace delayq::test
