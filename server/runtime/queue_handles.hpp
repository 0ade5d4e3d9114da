#pragma once

#include <cstddef>
#include <delayq/client.hpp>
#include <delayq/queue.hpp>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace delayq::server::runtime {

// One Queue handle per queue name for the whole service, kept between requests. Handles of one
// queue share its send line while any lives (Client::queue), but a handle made per request
// would be the last one often: its line would be made anew for each request, and dropping it
// on an I/O thread would wait there for its queued sends. The lines of all handles are sent by
// the Client's one sending thread. Bounded: past `capacity` names the least recently used
// handle is dropped (a request still using it keeps its own copy).
class QueueHandles {
  public:
    QueueHandles(Client client, std::size_t capacity);

    // The handle for `name` with `durability` (requests that ask for replicas get a handle, and
    // so a send line, of their own per setting); InvalidArgument for a bad name or durability,
    // as Client::queue() says.
    Queue get(std::string_view name, const Durability& durability = {});
    // Drops every handle, waiting until each has sent what it queued and answered its callers
    // (the service stops with it before the HTTP server goes, whose connections those answers
    // reach).
    void clear();

  private:
    struct Entry {
        Queue queue;
        std::list<std::string>::iterator place;  // in order_
    };

    Client client_;
    std::size_t capacity_;
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
    std::list<std::string> order_;  // most recently used first
};

}  // namespace delayq::server::runtime
