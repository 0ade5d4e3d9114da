// delayq push set: sets a queue's push target.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command_set.hpp"
#include "errors.hpp"
#include "json/push.hpp"
#include "json_output.hpp"
#include "secret_file.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct PushSetArgs {
    std::string queue;
    std::string url;
    std::string method = "POST";
    std::string content_type = "application/octet-stream";
    std::vector<std::string> headers;
    std::string request_timeout = "10s";
    std::size_t max_in_flight = kDefaultPushMaxInFlight;
    std::string rate = "0";
    std::vector<std::string> secret_files;
    bool json = false;
};

// "Name: value", as curl's -H takes it; the value's leading spaces are not part of it.
PushHeader header_arg(const std::string& text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0) {
        throw UsageError("--header takes 'Name: value', not a text without a name and a colon");
    }
    std::string value = text.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return {text.substr(0, colon), value};
}

// "N", "N/s", "N/m" or "N/h": requests per second, minute or hour, as per second.
double rate_arg(const std::string& text) {
    const std::size_t slash = text.find('/');
    const std::string number = text.substr(0, slash);
    const std::string unit = slash == std::string::npos ? "s" : text.substr(slash + 1);
    double per = 1;
    if (unit == "m" || unit == "min") {
        per = 60;
    } else if (unit == "h") {
        per = 3600;
    } else if (unit != "s") {
        throw UsageError("--rate takes N, N/s, N/m or N/h, not \"" + text + "\"");
    }
    std::size_t used = 0;
    double value = -1;
    try {
        value = std::stod(number, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != number.size() || !(value >= 0)) {
        throw UsageError("--rate takes a number of requests, not \"" + text + "\"");
    }
    return value / per;
}

int set_target(const PushSetArgs& a, const Invocation& invocation) {
    // Every check before the first byte to Redis: bad input writes nothing.
    Session session(invocation);
    PushTargets push = session.push_targets(a.queue);
    PushTarget target;
    target.url = a.url;
    const auto method = parse_push_method(a.method);
    if (!method) throw UsageError("--method takes POST, PUT or PATCH, not \"" + a.method + "\"");
    target.method = *method;
    target.content_type = a.content_type;
    for (const std::string& h : a.headers) target.headers.push_back(header_arg(h));
    target.request_timeout = duration_arg(a.request_timeout);
    target.max_in_flight = a.max_in_flight;
    target.rate = rate_arg(a.rate);
    for (const std::string& file : a.secret_files) {
        target.secrets.push_back(read_secret_file(file, "--secret-file"));
    }
    validate_push_target(target);
    session.connect();
    const PushSetStatus status = push.set(target);
    if (a.json) {
        std::printf("%s\n", to_line(json::push_set_json(status)).c_str());
        return kExitOk;
    }
    const char* what = status == PushSetStatus::kCreated   ? "set"
                       : status == PushSetStatus::kUpdated ? "changed"
                                                           : "unchanged";
    std::printf("push target of queue %s %s: %s %s\n", a.queue.c_str(), what,
                std::string(to_string(target.method)).c_str(), target.url.c_str());
    return kExitOk;
}

}  // namespace

void add_push_set(CommandSet& set) {
    auto a = std::make_shared<PushSetArgs>();
    CLI::App& cmd =
        set.add({.path = "push set",
                 .summary = "Set a queue's push target: the URL its due messages are sent to",
                 .details =
                     R"(Replaces the whole target; the same target again changes nothing. The URL is
http:// or https://, without user:password (set an Authorization header instead) and without
a link-local or cloud metadata address. Each request carries the message's payload as its
body, the Standard Webhooks headers (webhook-id, webhook-timestamp and, with secrets,
webhook-signature) and Delayq-Queue, Delayq-Message-Id, Delayq-Attempt and Delayq-Due. A
secret file holds one secret, whsec_ and the base64 of 24 to 64 random bytes; give several
to rotate (each signs every request). --max-in-flight and --rate hold across every pusher
of the queue. Needs the admin role (delayq acl): it writes the credentials.

Examples:
  delayq push set orders --url https://shop.example.com/hooks/expire --secret-file wh.key
  delayq push set mail --url https://mail.internal/send --header 'Authorization: Bearer x'
  delayq push set slow --url http://10.0.0.7:8080/in --max-in-flight 4 --rate 10/s)"},
                [a](const Invocation& i) { return set_target(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    cmd.add_option("--url", a->url, "http:// or https:// URL the requests go to")
        ->required()
        ->type_name("URL");
    cmd.add_option("--method", a->method, "POST (default), PUT or PATCH")->type_name("METHOD");
    cmd.add_option("--content-type", a->content_type,
                   "The requests' Content-Type (default application/octet-stream)")
        ->type_name("TYPE");
    cmd.add_option("--header", a->headers, "A header of every request, 'Name: value' (repeat)")
        ->type_name("'NAME: VALUE'");
    cmd.add_option("--request-timeout", a->request_timeout,
                   "One request's time limit, 1s to 10m (default 10s)")
        ->type_name("DURATION");
    cmd.add_option("--max-in-flight", a->max_in_flight,
                   "Requests at once across every pusher (default 100)")
        ->type_name("N");
    cmd.add_option("--rate", a->rate,
                   "Requests started per second across every pusher, N/s, "
                   "N/m or N/h (default 0: no limit)")
        ->type_name("RATE");
    cmd.add_option("--secret-file", a->secret_files,
                   "A file holding a Standard Webhooks secret whsec_... (repeat to rotate)")
        ->type_name("FILE");
    cmd.add_flag("--json", a->json, "The outcome as one JSON object: {\"status\"}");
}

}  // namespace delayq::cli
