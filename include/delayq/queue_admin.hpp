#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// A queue as its operators see it: what is in it, and the dead letters. Cheap to copy;
// thread-safe; every call is one or a few script calls, read by the Redis clock.
class QueueAdmin {
  public:
    const std::string& name() const;

    // The message with this id in whatever state it is; nullopt when there is none.
    std::optional<MessageInfo> get(std::string_view id);
    QueueStats stats();
    // Messages of one state in the order they leave it (due time, lease deadline, age), a page
    // at a time.
    MessagePage list(State state, const PageRequest& page = {});

    // Dead letters back to pending, due now, with fresh attempts and no expiry. Returns how many
    // distinct messages were moved.
    std::size_t requeue(const DeadLetterSelector& which);
    // Dead letters deleted. Returns how many distinct messages were deleted.
    std::size_t purge(const DeadLetterSelector& which);

  private:
    friend class Client;
    explicit QueueAdmin(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
