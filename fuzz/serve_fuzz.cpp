// `delayq serve` end to end short of Redis: the bytes of one request through Beast's parser
// (with the session's limits), the dispatcher (protocol, Host, Origin), the router, the route's
// guard (the token of an auth file, the media type) and, for an admitted request, the route's
// parsers into its typed request (serve_parsers.hpp), where the handler would call the library.
// The first byte picks the server: without an auth file (loopback Hosts only) or with one. The
// client in the routes' context is never called: its URL names a unix socket that does not exist,
// so that nothing could reach a network even if it were.
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <delayq/client.hpp>
#include <delayq/error.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "auth/lease_seal.hpp"
#include "auth/token_table.hpp"
#include "http/dispatcher.hpp"
#include "http/limits.hpp"
#include "http/request_head.hpp"
#include "routes/routes.hpp"
#include "serve_parsers.hpp"

namespace {

namespace server = delayq::server;
namespace http = delayq::server::http;
using namespace std::chrono_literals;

// The tokens of the auth file (dict/serve.dict has them, so that requests can carry them).
std::filesystem::path write_auth_file() {
    std::string dir = (std::filesystem::temp_directory_path() / "delayq-fuzz-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) std::abort();
    const std::filesystem::path file = std::filesystem::path(dir) / "auth";
    std::ofstream out(file);
    out << "admin " << server::token_sha256_hex("fuzz-admin-token") << " admin *\n"
        << "app " << server::token_sha256_hex("fuzz-app-token")
        << " send,consume,read orders,billing-*\n";
    return file;
}

struct Parts {
    std::filesystem::path auth_file = write_auth_file();
    delayq::Client client{"unix:///nonexistent/delayq-fuzz.sock"};
    server::runtime::WorkerPool pool{1, 16, 16};
    server::runtime::QueueHandles queues{client, 16};
    server::runtime::LongPollHub long_polls{client, [](const std::function<void()>&) {}};
    server::ScrapeCache scrapes{client, std::chrono::seconds(5)};
    server::runtime::HistoryRecorder history{client};
    server::runtime::OverviewCache overview{client, history, std::chrono::seconds(1), 10};
    server::RequestMetrics requests;
    server::auth::LeaseKey lease_key{std::nullopt, client};
    server::routes::AuthGate no_auth;
    server::routes::AuthGate auth{auth_file};
    server::routes::RouteContext open_context = context(no_auth);
    server::routes::RouteContext token_context = context(auth);
    http::Dispatcher open{{.loopback_hosts_only = true, .allowed_origins = {}},
                          router(open_context)};
    http::Dispatcher tokens{
        {.loopback_hosts_only = false, .allowed_origins = {"https://dash.example.com"}},
        router(token_context)};
    // The lease routes open leases with this seal (the service's comes from Redis or a file).
    server::auth::LeaseSeal seal{"0123456789abcdef0123456789abcdef"};

    Parts() { open.set_port(8080); }

    server::routes::RouteContext context(server::routes::AuthGate& gate) {
        const http::HttpLimits limits;
        server::routes::BodyLimits bodies;
        bodies.message = 2 * delayq::kDefaultMaxPayloadBytes + bodies.small;
        bodies.batch = limits.max_body_bytes;
        return {client,
                queues,
                gate,
                pool,
                long_polls,
                scrapes,
                overview,
                requests,
                history,
                lease_key,
                false,
                bodies,
                delayq::kDefaultMaxPayloadBytes,
                {}};
    }

    static http::Router router(server::routes::RouteContext& context) {
        http::Router r;
        server::routes::add_all_routes(r, context);
        server::routes::add_ui_routes(r, context);
        return r;
    }
};

// Feeds `bytes` to the parser until it wants no more of this part (the head, or the body);
// false when the bytes are no HTTP. Where the parser takes nothing more of what is left, the
// connection ends there, as when the client closes it.
bool feed(http::RequestParser& parser, std::string_view& bytes,
          bool (http::RequestParser::*done)() const) {
    while (!(parser.*done)()) {
        boost::system::error_code ec;
        const std::size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
        bytes.remove_prefix(used);
        if (ec && ec != boost::beast::http::error::need_more) return false;
        if (used == 0 || bytes.empty()) {
            if (!parser.got_some()) return false;
            ec = {};
            parser.put_eof(ec);
            return !ec && (parser.*done)();
        }
    }
    return true;
}

void serve(const Parts& parts, const http::Dispatcher& dispatcher, std::string_view bytes) {
    const http::HttpLimits limits;
    http::RequestParser parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
    parser.body_limit(limits.max_body_bytes);
    if (!feed(parser, bytes, &http::RequestParser::is_header_done)) return;
    http::HttpRequest request = http::request_from_head(parser, "127.0.0.1:40000");
    (void)http::expects_continue(parser);
    const http::Dispatcher::Admission admission = dispatcher.admit(request);
    if (admission.route == nullptr) return;
    if (!parser.is_done()) {
        const std::size_t limit = admission.route->max_body;
        if (request.content_length && *request.content_length > limit) return;
        parser.body_limit(limit);
        if (!feed(parser, bytes, &http::RequestParser::is_done)) return;
    }
    request.body = std::move(parser.get().body());
    const http::Router::Match match = dispatcher.router().match(request.method, request.path);
    if (match.kind != http::Router::Match::Kind::kFound) __builtin_trap();
    const server::LeaseOpener opener{
        [&parts]() -> const server::auth::LeaseSeal& { return parts.seal; },
        request.param("queue")};
    try {
        delayq::fuzz::parse_route_request(match.pattern, request, opener);
    } catch (const delayq::Error&) {
        // The route's 400 (InvalidArgument) or another answer of the library's errors.
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const Parts parts;
    if (size < 1) return 0;
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    serve(parts, (data[0] & 1) != 0 ? parts.tokens : parts.open, bytes);
    return 0;
}
