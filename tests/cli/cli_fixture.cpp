#include "cli/cli_fixture.hpp"

#include <cstdio>
#include <cstdlib>
#include <thread>

namespace delayq::test {

CliTest::CliTest() {
    std::string templ = (std::filesystem::temp_directory_path() / "dq-cli-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    scratch_ = templ;
    home_ = scratch_ / "home";
}

CliTest::~CliTest() {
    // A managed server a test started must not outlive it.
    if (std::filesystem::exists(home_ / "redis.pid")) {
        run_cli({"local", "stop"}, options());
    }
    std::error_code ec;
    std::filesystem::remove_all(scratch_, ec);
}

CliOptions CliTest::options(CliOptions extra) const {
    CliOptions o = std::move(extra);
    bool url_given = false;
    for (const auto& e : o.env) url_given = url_given || e.starts_with("DELAYQ_REDIS_URL=");
    for (const auto& u : o.unset) url_given = url_given || u == "DELAYQ_REDIS_URL";
    if (!url_given) o.env.push_back("DELAYQ_REDIS_URL=" + redis_.url());
    o.env.push_back("DELAYQ_HOME=" + home_.string());
    return o;
}

CliResult CliTest::cli(const std::vector<std::string>& args, CliOptions extra) const {
    return run_cli(args, options(std::move(extra)));
}

std::unique_ptr<CliProcess> CliTest::start(const std::vector<std::string>& args,
                                           CliOptions extra) const {
    return std::make_unique<CliProcess>(args, options(std::move(extra)));
}

std::string CliTest::send(const std::string& queue, const std::string& payload,
                          std::vector<std::string> more) const {
    std::vector<std::string> args{"send", queue, payload};
    args.insert(args.end(), more.begin(), more.end());
    const CliResult r = cli(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = r.out;
    while (!id.empty() && id.back() == '\n') id.pop_back();
    return id;
}

std::vector<Json> CliTest::peek(const std::string& queue, const std::string& state) const {
    const CliResult r = cli({"peek", queue, "--state", state, "--limit", "1000", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json_lines(r.out);
}

Json CliTest::stats(const std::string& queue) const {
    const CliResult r = cli({"stats", queue, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
}

std::string CliTest::fingerprint() const {
    return std::to_string(redis_.dbsize()) + "/" + redis_.command({"DEBUG", "DIGEST"}).str;
}

void redis_cli(const RedisServer& redis, const std::string& lines) {
    const std::string command = "redis-cli -p " + std::to_string(redis.port()) + " >/dev/null";
    FILE* pipe = ::popen(command.c_str(), "w");
    ASSERT_NE(pipe, nullptr);
    std::fputs(lines.c_str(), pipe);
    ASSERT_EQ(::pclose(pipe), 0);
}

std::vector<Json> json_lines(const std::string& text) {
    std::vector<Json> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        if (nl > pos) out.push_back(Json::parse(text.substr(pos, nl - pos)));
        pos = nl + 1;
    }
    return out;
}

std::size_t count_lines(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += c == '\n' ? 1 : 0;
    return n;
}

bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
}

}  // namespace delayq::test
