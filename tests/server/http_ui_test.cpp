// The dashboard's static files (routes/ui_routes.cpp): served from the binary without a token,
// under a strict Content-Security-Policy, revalidated by ETag; / redirects to them; --no-ui
// serves none. What the pages do is tests/browser/'s (a real browser).
#include <gtest/gtest.h>

#include <string>

#include "server/support/service_fixture.hpp"
#include "ui/ui_files.hpp"

namespace delayq::test {
namespace {

class HttpUiTest : public ServiceTest {};

void expect_page_headers(const HttpResult& r) {
    const std::string csp = r.header("content-security-policy").value_or("");
    EXPECT_NE(csp.find("default-src 'self'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << csp;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
    EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
    EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
}

TEST_F(HttpUiTest, TheFilesAreServedWithoutATokenUnderAStrictPolicy) {
    add_token("reader", "read", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });
    const HttpResult index = http().get("/ui/");
    ASSERT_EQ(index.status, 200u) << index.body;
    EXPECT_EQ(index.header("content-type"), "text/html; charset=utf-8");
    EXPECT_NE(index.body.find("<script type=\"module\" src=\"app.js\">"), std::string::npos);
    EXPECT_EQ(index.header("cache-control"), "no-cache");
    expect_page_headers(index);
    for (const auto& [file, type] : {std::pair{"app.js", "text/javascript; charset=utf-8"},
                                     std::pair{"style.css", "text/css; charset=utf-8"},
                                     std::pair{"favicon.svg", "image/svg+xml"}}) {
        SCOPED_TRACE(file);
        const HttpResult r = http().get(std::string("/ui/") + file);
        ASSERT_EQ(r.status, 200u);
        EXPECT_EQ(r.header("content-type"), type);
        expect_page_headers(r);
    }
    // Every embedded file, byte for byte.
    for (const auto& f : server::ui::ui_files()) {
        EXPECT_EQ(http().get("/ui/" + std::string(f.name)).body, f.bytes) << f.name;
    }
    EXPECT_EQ(http().get("/ui/nothing.js").status, 404u);
    EXPECT_EQ(http().get("/ui/ui_files.hpp").status, 404u);
}

TEST_F(HttpUiTest, AnUnchangedFileIsA304ByItsETag) {
    start();
    const HttpResult first = http().get("/ui/app.js");
    ASSERT_EQ(first.status, 200u);
    const std::string etag = first.header("etag").value_or("");
    ASSERT_FALSE(etag.empty());
    const HttpResult again =
        http().request({.target = "/ui/app.js", .headers = {{"If-None-Match", etag}}});
    EXPECT_EQ(again.status, 304u);
    EXPECT_TRUE(again.body.empty());
    EXPECT_EQ(again.header("etag"), etag);
    const HttpResult other =
        http().request({.target = "/ui/app.js", .headers = {{"If-None-Match", "\"old\""}}});
    EXPECT_EQ(other.status, 200u);
}

TEST_F(HttpUiTest, TheRootRedirectsToTheDashboard) {
    start();
    for (const char* target : {"/", "/ui"}) {
        SCOPED_TRACE(target);
        const HttpResult r = http().get(target);
        EXPECT_EQ(r.status, 302u);
        EXPECT_EQ(r.header("location"), "/ui/");
        expect_page_headers(r);
    }
}

TEST_F(HttpUiTest, NoUiServesNone) {
    start([](server::service::ServiceConfig& c) { c.ui = false; });
    EXPECT_EQ(http().get("/").status, 404u);
    EXPECT_EQ(http().get("/ui/").status, 404u);
    EXPECT_EQ(http().get("/ui/app.js").status, 404u);
    EXPECT_EQ(http().get("/healthz").status, 200u);
}

}  // namespace
}  // namespace delayq::test
