#pragma once

#include <filesystem>
#include <string>

namespace delayq::test {

// Certificates for TLS tests, made with the openssl tool in a temporary directory (removed by
// the destructor): a CA; a server certificate for 127.0.0.1 and localhost; a client certificate;
// and the bad cases: a server certificate that expired in 2020, one not valid before 2090, one
// for another host name, and a second CA that signed nothing the server has. Each file is PEM; keys
// are unencrypted.
class TestCertificates {
  public:
    TestCertificates();
    ~TestCertificates();
    TestCertificates(const TestCertificates&) = delete;
    TestCertificates& operator=(const TestCertificates&) = delete;

    std::string ca() const { return file("ca.crt"); }
    std::string other_ca() const { return file("other-ca.crt"); }
    std::string server_cert() const { return file("server.crt"); }
    std::string server_key() const { return file("server.key"); }
    std::string client_cert() const { return file("client.crt"); }
    std::string client_key() const { return file("client.key"); }
    // For 127.0.0.1 and localhost, valid only during 1 January 2020.
    std::string expired_cert() const { return file("expired.crt"); }
    std::string expired_key() const { return file("expired.key"); }
    // For 127.0.0.1 and localhost, valid only during 1 January 2090.
    std::string not_yet_valid_cert() const { return file("not-yet-valid.crt"); }
    std::string not_yet_valid_key() const { return file("not-yet-valid.key"); }
    // For other.example only.
    std::string wrong_host_cert() const { return file("wrong-host.crt"); }
    std::string wrong_host_key() const { return file("wrong-host.key"); }

    const std::filesystem::path& dir() const { return dir_; }

  private:
    std::string file(const char* name) const { return (dir_ / name).string(); }
    // Runs `openssl ARGS` in dir_; throws std::runtime_error with its output when it fails.
    void openssl(const std::string& args) const;
    void make_ca(const std::string& name) const;
    // A key and a certificate signed by ca.crt, with the extensions of section `ext` of
    // ext.cnf; `dates` are `openssl ca` date options.
    void make_signed(const std::string& name, const std::string& ext,
                     const std::string& dates) const;

    std::filesystem::path dir_;
};

}  // namespace delayq::test
