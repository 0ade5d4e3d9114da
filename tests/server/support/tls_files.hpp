#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

// Certificates for the HTTPS tests, made at run time with the `openssl` command, and HTTPS
// requests made with `curl` (both in scripts/deps.sh test).
namespace delayq::test {

// The exit status of `command` (run by the shell) and what it printed, stderr included.
inline std::pair<int, std::string> run_shell(const std::string& command) {
    FILE* p = ::popen((command + " 2>&1").c_str(), "r");
    std::string said;
    char buf[512];
    while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) said += buf;
    const int status = p != nullptr ? ::pclose(p) : -1;
    return {status, said};
}

struct CertFiles {
    std::string cert;
    std::string key;
};

// A fresh self-signed certificate for 127.0.0.1 and localhost, as cert.pem and key.pem in `dir`
// (replacing what is there), valid long enough not to be warned of as expiring soon. Empty paths
// when openssl failed.
inline CertFiles make_self_signed(const std::filesystem::path& dir, const std::string& stem = "") {
    const CertFiles files{(dir / (stem + "cert.pem")).string(),
                          (dir / (stem + "key.pem")).string()};
    const auto [status, said] = run_shell(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 "
        "-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
        files.key + " -out " + files.cert);
    if (status != 0) return {};
    return files;
}

struct CurlResult {
    int exit_code = -1;  // curl's: 0 when an answer came
    unsigned status = 0;
    std::string body;
};

// One HTTPS request with curl, trusting `ca` only. `body` empty: no body.
inline CurlResult curl_https(std::uint16_t port, const std::string& ca, const std::string& method,
                             const std::string& target, const std::string& body = {}) {
    std::string cmd = "curl -sS --max-time 60 --cacert " + ca + " -X " + method +
                      " -w '\\n%{http_code}' https://127.0.0.1:" + std::to_string(port) + target;
    if (!body.empty()) {
        cmd += " -H 'Content-Type: application/json' --data-binary '" + body + "'";
    }
    const auto [status, said] = run_shell(cmd);
    CurlResult out;
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    const std::size_t nl = said.rfind('\n');
    if (out.exit_code == 0 && nl != std::string::npos) {
        out.status = static_cast<unsigned>(std::stoul(said.substr(nl + 1)));
        out.body = said.substr(0, nl);
    } else {
        out.body = said;
    }
    return out;
}

}  // namespace delayq::test
