#include <algorithm>
#include <string>
#include <string_view>

#include "routes/routes.hpp"
#include "ui/ui_files.hpp"

namespace delayq::server::routes {
namespace {

// No inline script or style, no other origin, no framing: a payload that got into the page as
// markup still could not run (docs/security.md). The pages build their DOM with textContent,
// so this is the second line, not the first.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

constexpr std::string_view kIndex = "index.html";

std::string_view content_type(std::string_view name) {
    const auto ends = [name](std::string_view suffix) { return name.ends_with(suffix); };
    if (ends(".html")) return "text/html; charset=utf-8";
    if (ends(".js")) return "text/javascript; charset=utf-8";
    if (ends(".css")) return "text/css; charset=utf-8";
    if (ends(".svg")) return "image/svg+xml";
    if (ends(".png")) return "image/png";
    return "application/octet-stream";
}

// The headers every answer of the dashboard carries, files and redirects alike.
void add_page_headers(http::HttpResponse& r) {
    r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
}

http::HttpResponse redirect_to_ui() {
    http::HttpResponse r;
    r.status = 302;
    r.content_type = "text/plain; charset=utf-8";
    r.body = "/ui/\n";
    r.headers.emplace_back("Location", "/ui/");
    add_page_headers(r);
    return r;
}

// no-cache: the browser asks each time, and an unchanged file costs a 304 without its bytes;
// a new binary's files are never served stale.
http::HttpResponse file_answer(const http::HttpRequest& request, std::string_view name) {
    const auto files = ui::ui_files();
    const auto it = std::find_if(files.begin(), files.end(),
                                 [name](const ui::UiFile& f) { return f.name == name; });
    if (it == files.end()) {
        return http::problem_response({404, "not_found", "no such file in the dashboard"});
    }
    http::HttpResponse r;
    r.content_type = std::string(content_type(it->name));
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.headers.emplace_back("ETag", std::string(it->etag));
    add_page_headers(r);
    if (request.header("if-none-match") == it->etag) {
        r.status = 304;
        return r;
    }
    r.body = std::string(it->bytes);
    return r;
}

}  // namespace

void add_ui_routes(http::Router& router, RouteContext& context) {
    // Open and on the I/O thread: static files from the binary, which show nothing by
    // themselves. Every figure the pages show comes from the API, with the user's token.
    const auto redirect = [](const http::HttpRequest&, const http::Reply& reply) {
        reply(redirect_to_ui());
    };
    add_route(router, context, http::Verb::get, "/", Access::open(), redirect);
    add_route(router, context, http::Verb::get, "/ui", Access::open(), redirect);
    add_route(router, context, http::Verb::get, "/ui/", Access::open(),
              [](const http::HttpRequest& request, const http::Reply& reply) {
                  reply(file_answer(request, kIndex));
              });
    add_route(router, context, http::Verb::get, "/ui/{file}", Access::open(),
              [](const http::HttpRequest& request, const http::Reply& reply) {
                  reply(file_answer(request, request.param("file")));
              });
}

}  // namespace delayq::server::routes
