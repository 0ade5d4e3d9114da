#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "delayq/options.hpp"

namespace delayq::detail {

class QueueCore;

// A Client's live queues by name, so that Client::queue(name) called twice (by two parts of a
// program, or per request) gives handles that share one QueueCore, and so one send line: their
// concurrent sends share script calls. Weak: the registry keeps nothing alive, so the line and
// its state end with the last handle. Bounded by the live handles: expired entries are swept
// whenever the map has doubled since the last sweep.
class QueueRegistry {
  public:
    using Make = std::function<std::shared_ptr<QueueCore>()>;

    // The live core of `name` when it was made with the same options; else one made by `make`
    // (kept for later calls unless a live core of other options holds the name).
    std::shared_ptr<QueueCore> get(std::string_view name, const QueueOptions& options,
                                   const Make& make);

  private:
    void sweep();

    std::mutex mutex_;
    std::unordered_map<std::string, std::weak_ptr<QueueCore>> cores_;
    std::size_t sweep_at_ = 64;
};

}  // namespace delayq::detail
