#include "routes/auth_gate.hpp"

#include "auth/token_file.hpp"

namespace delayq::server::routes {

AuthGate::AuthGate(std::filesystem::path file)
    : file_(std::move(file)), table_(std::make_shared<TokenTable>(load_token_file(*file_))) {}

void AuthGate::reload() {
    if (!file_) return;
    auto fresh = std::make_shared<const TokenTable>(load_token_file(*file_));
    std::lock_guard lock(mutex_);
    table_ = std::move(fresh);
}

std::shared_ptr<const TokenTable> AuthGate::table() const {
    std::lock_guard lock(mutex_);
    return table_;
}

std::function<bool(std::string_view)> AuthGate::shows(std::string_view token) const {
    const std::shared_ptr<const TokenTable> table = this->table();
    if (!table) return [](std::string_view) { return true; };
    // The table is kept with the entry it holds, so that a reload cannot free it meanwhile.
    const TokenEntry* entry = table->find(token);
    return
        [table, entry](std::string_view queue) { return entry != nullptr && entry->covers(queue); };
}

AuthGate::Verdict AuthGate::check(std::string_view token, const Access& access,
                                  std::string_view queue) const {
    if (!file_ || access.kind == Access::Kind::kOpen) return {};
    const std::shared_ptr<const TokenTable> table = this->table();
    const TokenEntry* entry = token.empty() ? nullptr : table->find(token);
    if (entry == nullptr) {
        return {Problem{401, "unauthorized",
                        token.empty() ? "this needs Authorization: Bearer TOKEN"
                                      : "the token is not one this server accepts"},
                {}};
    }
    if (access.kind == Access::Kind::kToken) return {std::nullopt, entry->name};
    if (!entry->has_scope(access.scope)) {
        return {
            Problem{403, "forbidden",
                    "the token lacks the scope \"" + std::string(scope_name(access.scope)) + "\""},
            entry->name};
    }
    if (access.kind == Access::Kind::kQueue && !entry->covers(queue)) {
        return {Problem{403, "forbidden",
                        "the token does not cover the queue \"" + std::string(queue) + "\""},
                entry->name};
    }
    return {std::nullopt, entry->name};
}

}  // namespace delayq::server::routes
