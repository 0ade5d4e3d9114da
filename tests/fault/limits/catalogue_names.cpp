// Catalogue rows: queue names and message ids.
#include <gtest/gtest.h>

#include "fault/limits/catalogue_support.hpp"

namespace delayq::test::catalogue {

// Queue names: 1..200 bytes of printable ASCII without braces or spaces.
void queue_name_rows(Rows& rows) {
    struct Name {
        std::string label;
        std::string name;
        std::string message;  // empty: valid
        bool on_cli = true;   // argv cannot carry a NUL
    };
    const std::string braces = "must not contain braces";
    const std::string ascii = "must contain only printable ASCII characters";
    const std::vector<Name> names = {
        {"braces", "{q}", braces},
        {"an opening brace", "a{b", braces},
        {"a closing brace", "a}b", braces},
        {"colons", "orders:eu:v2", ""},
        {"a space", "with space", "must not contain spaces"},
        {"a newline", "new\nline", ascii},
        {"a tab", "tab\there", ascii},
        {"a NUL", std::string("nul\0byte", 8), ascii, false},
        {"ESC and DEL", "esc\x1b\x7f", ascii},
        {"UTF-8", "caf\xc3\xa9", ascii},
        {"empty", "", "must not be empty"},
        {"200 bytes", std::string(200, 'q'), ""},
        {"201 bytes", std::string(201, 'q'), "is 201 bytes, over the limit of 200"},
        {"100000 bytes", std::string(100'000, 'q'), "is 100000 bytes, over the limit of 200"},
        {"punctuation", "~!@#$%^&*()[]|;'\"<>,?/.-_=+", ""},
    };
    for (const auto& n : names) {
        CatalogueCase c;
        c.topic = "queue name";
        c.what = n.label;
        c.verdict = n.message.empty() ? Verdict::kValid : Verdict::kInvalid;
        c.message = "queue name " + n.message;
        const std::string name = n.name;
        c.library = [name](CatalogueEnv& e) {
            Queue q = e.client.queue(name);
            round_trip(e.client, q, "x");
            EXPECT_EQ(e.server.zcard(queue_key(name, "pending")), 0);
        };
        if (n.on_cli) {
            c.cli = {"send", name, "x"};
            c.cli_message = c.message;
            c.cli_check = [name](CatalogueEnv& e, const CliResult& r) {
                const auto info = e.client.admin(name).get(first_line(r.out));
                ASSERT_TRUE(info.has_value()) << r.out;
                EXPECT_EQ(info->payload, "x");
            };
        }
        rows.push_back(std::move(c));
        // `delayq stats ""` lists every queue, like `delayq stats`: not a name to check.
        if (n.on_cli && !n.message.empty() && !name.empty()) {
            rows.push_back({"queue name",
                            n.label + " (stats)",
                            Verdict::kInvalid,
                            "",
                            {},
                            {},
                            {"stats", name},
                            "",
                            "queue name " + n.message});
        }
    }
}

// Message ids: 1..200 bytes of printable ASCII without braces; spaces and colons allowed. Every
// call that takes an id refuses a bad one.
void id_rows(Rows& rows) {
    struct Id {
        std::string label;
        std::string id;
        std::string message;  // empty: valid
        bool on_cli = true;
        bool send_only = false;  // refused as the id of a new message, fine to look up
    };
    const std::string braces = "must not contain braces";
    const std::string ascii = "must contain only printable ASCII characters";
    const std::vector<Id> ids = {
        {"braces", "{x}", braces},
        {"an opening brace", "a{b", braces},
        {"colons", "user:42:order", ""},
        {"spaces", " with  spaces ", ""},
        {"a newline", "line\nbreak", ascii},
        {"a carriage return", "cr\r", ascii},
        {"a NUL", std::string("nul\0id", 6), ascii, false},
        {"a control character", "bell\x07", ascii},
        {"a byte >= 0x80", "id\xff", ascii},
        {"empty (where an id is needed)", "", "must not be empty"},
        {"200 bytes", std::string(200, 'i'), ""},
        {"201 bytes", std::string(201, 'i'), "is 201 bytes, over the limit of 200"},
        {"shaped like a generated id (14 lowercase hex digits)", "0000000000000a",
         "must not be 14 lowercase hex digits: that form is reserved for generated ids", true,
         true},
        {"14 hex digits with capitals", "0000000000000A", ""},
    };
    for (const auto& i : ids) {
        const std::string id = i.id;
        const std::string message = "message id " + i.message;
        if (i.message.empty()) {
            rows.push_back({"id",
                            i.label,
                            Verdict::kValid,
                            "",
                            {},
                            [id](CatalogueEnv& e) {
                                round_trip(e.client, e.q, "x", {.id = id});
                                const SendResult s = e.q.send("y", {.delay = 1h, .id = id});
                                EXPECT_EQ(e.q.reschedule(id, 2h).status,
                                          RescheduleStatus::kRescheduled);
                                EXPECT_TRUE(e.q.send("z", {.id = id}).duplicate);
                                EXPECT_EQ(e.q.cancel(s.id), CancelResult::kCancelled);
                            },
                            {"send", "@Q", "x", "--id", id},
                            "",
                            "",
                            [id](CatalogueEnv& e, const CliResult& r) {
                                EXPECT_EQ(r.out, id + "\n");
                                EXPECT_EQ(e.admin.get(id)->payload, "x");
                            }});
            continue;
        }
        using Op = std::function<void(CatalogueEnv&, const std::string&)>;
        const std::vector<std::pair<std::string, Op>> ops = {
            {"send", [](CatalogueEnv& e, const std::string& x) { e.q.send("x", {.id = x}); }},
            {"send_batch",
             [](CatalogueEnv& e, const std::string& x) {
                 const std::vector<Message> batch{{"ok", {}}, {"x", {.id = x}}};
                 e.q.send_batch(batch);
             }},
            {"cancel", [](CatalogueEnv& e, const std::string& x) { e.q.cancel(x); }},
            {"reschedule", [](CatalogueEnv& e, const std::string& x) { e.q.reschedule(x, 1s); }},
            {"get", [](CatalogueEnv& e, const std::string& x) { e.admin.get(x); }},
            {"requeue",
             [](CatalogueEnv& e, const std::string& x) {
                 e.admin.requeue({.ids = {"fine", x}});
             }},
            {"purge", [](CatalogueEnv& e, const std::string& x) { e.admin.purge({.ids = {x}}); }},
        };
        for (const auto& [op_name, op] : ops) {
            if (i.send_only && !op_name.starts_with("send")) continue;
            rows.push_back({"id", i.label + " (" + op_name + ")", Verdict::kInvalid, message,
                            send_scheduled, [id, op](CatalogueEnv& e) { op(e, id); }});
        }
        if (!i.on_cli) {
            // argv cannot carry a NUL, JSON lines can.
            rows.push_back({"id",
                            i.label + " (JSON lines)",
                            Verdict::kInvalid,
                            "",
                            {},
                            {},
                            {"send", "@Q", "--file", "-"},
                            "{\"payload\": \"x\", \"id\": \"nul\\u0000id\"}\n",
                            "line 1: " + message});
            continue;
        }
        if (!id.empty()) {
            rows.push_back({"id",
                            i.label + " (CLI send)",
                            Verdict::kInvalid,
                            "",
                            send_scheduled,
                            {},
                            {"send", "@Q", "x", "--id", id},
                            "",
                            message});
        }
        if (i.send_only) continue;
        rows.push_back({"id",
                        i.label + " (CLI cancel)",
                        Verdict::kInvalid,
                        "",
                        send_scheduled,
                        {},
                        {"cancel", "@Q", id},
                        "",
                        message});
        rows.push_back({"id",
                        i.label + " (CLI dead purge)",
                        Verdict::kInvalid,
                        "",
                        send_scheduled,
                        {},
                        {"dead", "purge", "@Q", id},
                        "",
                        message});
    }
}

}  // namespace delayq::test::catalogue
