#include "auth_file_input.hpp"

#include <auth/token_file.hpp>
#include <string>

#include "errors.hpp"

namespace delayq::cli {

server::TokenTable read_auth_file(const std::filesystem::path& file) {
    try {
        return server::load_token_file(file);
    } catch (const server::AuthFileError& e) {
        throw UsageError(std::string("--auth-file: ") + e.what());
    }
}

}  // namespace delayq::cli
