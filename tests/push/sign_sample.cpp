// Writes push requests signed by the pushers' WebhookSigner as JSON lines, for verify.mjs to
// check with the Standard Webhooks reference library: the signatures are judged by code that is
// not delayq's, on the bodies a queue may hold (text, any bytes, nothing, the large).
// usage: delayq_sign_sample FILE
#include <chrono>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "json/payload.hpp"
#include "push/signature.hpp"

namespace {

using delayq::json::base64_encode;
using delayq::json::Json;

// 32 random bytes, as an owner would make a key; the test needs no cryptographic randomness,
// only keys that differ from run to run and from each other.
std::string new_secret(std::random_device& random) {
    std::string key(32, '\0');
    for (char& byte : key) byte = static_cast<char>(random() & 0xff);
    return "whsec_" + base64_encode(key);
}

struct Sample {
    std::string queue;
    std::string id;
    std::string body;
};

std::vector<Sample> samples() {
    std::string large;
    // Multi-byte UTF-8 throughout, so that a signer or verifier that counted characters instead
    // of bytes would fail here.
    while (large.size() < std::size_t{100} * 1024)
        large += "line é ✓ of a large body, 0123456789\n";
    return {
        {"orders", "1", R"({"order": 42, "note": "héllo"})"},
        // '.' in both names: webhook_id must keep it out of the signed id.
        {"orders.eu", "0192.7f.a", "plain text"},
        // NUL is valid UTF-8: the library itself checks it.
        {"bin", "nul", std::string("a\0b\0", 4)},
        // Not UTF-8 (0xff, a lone continuation byte): verify.mjs checks the bytes' HMAC.
        {"bin", "ff", std::string("\x00\xff\xfe\x80 tail\x01", 9)},
        {"empty", "e", ""},
        {"large", "100k", large},
    };
}

Json line(const std::vector<std::string>& secrets, const std::string& id, std::int64_t now,
          const std::string& signed_body, const std::string& sent_body) {
    const delayq::push::WebhookSigner signer(secrets);
    Json out;
    out["secrets"] = secrets;
    out["headers"] = {{"webhook-id", id},
                      {"webhook-timestamp", std::to_string(now)},
                      {"webhook-signature", signer.sign(id, now, signed_body)}};
    out["body_base64"] = base64_encode(sent_body);
    return out;
}

void write(std::ostream& out) {
    std::random_device random;
    const std::vector<std::string> one{new_secret(random)};
    const std::vector<std::string> two{new_secret(random), new_secret(random)};
    const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    for (const auto& sample : samples()) {
        const std::string id = delayq::push::webhook_id(sample.queue, sample.id);
        out << line(one, id, now, sample.body, sample.body).dump() << '\n';
        out << line(two, id, now, sample.body, sample.body).dump() << '\n';
    }
    // What must not verify, so that a check that passes everything fails the test: a body
    // changed after signing, through the library and through the bytes' HMAC.
    for (const auto& sample : samples()) {
        if (sample.id != "1" && sample.id != "ff") continue;
        std::string tampered = sample.body;
        tampered.back() ^= 0x01;
        Json bad = line(two, delayq::push::webhook_id(sample.queue, sample.id), now, sample.body,
                        tampered);
        bad["expect"] = "fail";
        out << bad.dump() << '\n';
    }
    // Signed with a key the receiver does not list in second place: each listed secret must
    // verify alone, not just any one of them.
    Json mismatched = line({two[0], new_secret(random)}, "msg_mismatched", now, "body", "body");
    mismatched["secrets"] = two;
    mismatched["expect"] = "fail";
    out << mismatched.dump() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: delayq_sign_sample FILE\n";
        return 2;
    }
    try {
        std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
        write(out);
        out.close();
        if (!out) throw std::runtime_error(std::string("cannot write ") + argv[1]);
    } catch (const std::exception& error) {
        std::cerr << "delayq_sign_sample: " << error.what() << '\n';
        return 1;
    }
    return 0;
}
