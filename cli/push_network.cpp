#include "push_network.hpp"

#include <filesystem>

#include "errors.hpp"

namespace delayq::cli {

void PushNetworkArgs::apply(push::PusherOptions& options) const {
    options.network = PushNetwork{deny_private, allow};
    validate_push_network(options.network);
    // Checked here, since libcurl would only say so on the first HTTPS request.
    if (!ca_file.empty() && !std::filesystem::is_regular_file(ca_file)) {
        throw UsageError("--push-ca-file " + ca_file + ": no such file");
    }
    options.ca_file = ca_file;
}

void add_push_network_options(CLI::App& cmd, PushNetworkArgs& args) {
    cmd.add_flag("--push-deny-private", args.deny_private,
                 "Also refuse to push to loopback and private addresses (RFC 1918, 100.64/10, "
                 "fc00::/7); link-local and cloud metadata addresses are always refused");
    cmd.add_option("--push-allow", args.allow,
                   "An address or CIDR range pushes may reach whatever the refusals say "
                   "(repeatable)");
    cmd.add_option("--push-ca-file", args.ca_file,
                   "PEM certificates to verify HTTPS receivers with (default: the system's)");
}

}  // namespace delayq::cli
