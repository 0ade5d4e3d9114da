#include "support/test_certificates.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "support/read_file.hpp"
#include "support/shell_quote.hpp"

namespace delayq::test {
namespace {

// `openssl ca` wants a database; the extension sections say what each certificate is for.
constexpr const char* kCaConfig = R"([ca]
default_ca = test_ca
[test_ca]
database = index.txt
new_certs_dir = .
serial = serial
certificate = ca.crt
private_key = ca.key
default_md = sha256
policy = any_name
unique_subject = no
[any_name]
commonName = supplied
[server]
subjectAltName = IP:127.0.0.1,DNS:localhost
extendedKeyUsage = serverAuth
[wrong_host]
subjectAltName = DNS:other.example
extendedKeyUsage = serverAuth
[client]
extendedKeyUsage = clientAuth
)";

}  // namespace

TestCertificates::TestCertificates() {
    std::string templ = (std::filesystem::temp_directory_path() / "delayq-certs-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    try {
        std::ofstream(dir_ / "ca.cnf") << kCaConfig;
        std::ofstream(dir_ / "index.txt") << "";
        std::ofstream(dir_ / "serial") << "1000\n";
        make_ca("ca");
        make_ca("other-ca");
        const std::string valid = "-days 2";
        make_signed("server", "server", valid);
        make_signed("client", "client", valid);
        make_signed("wrong-host", "wrong_host", valid);
        make_signed("expired", "server", "-startdate 20200101000000Z -enddate 20200102000000Z");
        make_signed("not-yet-valid", "server",
                    "-startdate 20900101000000Z -enddate 20900102000000Z");
    } catch (...) {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
        throw;
    }
}

TestCertificates::~TestCertificates() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

void TestCertificates::openssl(const std::string& args) const {
    const std::string command =
        "cd " + shell_quote(dir_.string()) + " && openssl " + args + " >openssl.log 2>&1";
    if (std::system(command.c_str()) != 0) {
        throw std::runtime_error("openssl " + args + " failed: " + read_file(dir_ / "openssl.log"));
    }
}

void TestCertificates::make_ca(const std::string& name) const {
    openssl("req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj " +
            shell_quote("/CN=delayq test " + name) + " -keyout " + name + ".key -out " + name +
            ".crt -addext basicConstraints=critical,CA:TRUE -addext keyUsage=keyCertSign,cRLSign");
}

void TestCertificates::make_signed(const std::string& name, const std::string& ext,
                                   const std::string& dates) const {
    openssl("req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj " +
            shell_quote("/CN=delayq test " + name) + " -keyout " + name + ".key -out " + name +
            ".csr");
    openssl("ca -batch -notext -config ca.cnf -extfile ca.cnf -extensions " + ext + " " + dates +
            " -in " + name + ".csr -out " + name + ".crt");
}

}  // namespace delayq::test
