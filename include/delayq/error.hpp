#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace delayq {

// Root of every failure delayq throws. Expected outcomes (a duplicate id, a message not found or
// in flight, a lost lease) are return values, never exceptions.
class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Bad input: an invalid queue name, id, payload size, delay or option. Nothing was written.
class InvalidArgument : public Error {
  public:
    using Error::Error;
};

// Redis could not be reached, or the connection broke. The operation may or may not have taken
// effect; a send retried with the same id is safe.
class ConnectionError : public Error {
  public:
    using Error::Error;
};

// A connect or a command took longer than its timeout. Like ConnectionError, the outcome of the
// operation is unknown.
class TimeoutError : public ConnectionError {
  public:
    using ConnectionError::ConnectionError;
};

// Redis answered with an error.
class ServerError : public Error {
  public:
    using Error::Error;
};

// Redis refused a command for want of permission: the ACL user may not run it, or not on these
// keys or channels (`delayq acl` prints what each role needs). The text names the command.
// Nothing was written.
class PermissionError : public ServerError {
  public:
    PermissionError(std::string command, const std::string& what)
        : ServerError(what), command_(std::move(command)) {}
    // The command Redis refused, as sent: "EVALSHA", "SCAN", "SSUBSCRIBE"...
    const std::string& command() const { return command_; }

  private:
    std::string command_;
};

// Redis is at maxmemory and refused a write. A send is refused whole: nothing was written.
class OutOfMemoryError : public ServerError {
  public:
    using ServerError::ServerError;
};

// A durable send (QueueOptions::durability) that fewer replicas than asked confirmed in time, or
// whose WAIT failed. The messages were stored on the primary and may survive its failover or
// not: send them again with these ids (generated ones included), which is idempotent, or treat
// them as unconfirmed. Expected while a replica is down or lagging; not an error of the input.
class DurabilityError : public Error {
  public:
    DurabilityError(std::vector<std::string> ids, int asked, int confirmed, const std::string& what)
        : Error(what), ids_(std::move(ids)), asked_(asked), confirmed_(confirmed) {}
    // The ids of the send's messages, in order: one for send and send_async, the batch's for
    // send_batch.
    const std::vector<std::string>& ids() const { return ids_; }
    // Replicas asked to confirm (Durability::replicas), and how many did in time (0 when the
    // WAIT itself failed).
    int asked() const { return asked_; }
    int confirmed() const { return confirmed_; }

  private:
    std::vector<std::string> ids_;
    int asked_;
    int confirmed_;
};

// The Redis server cannot keep delayq's guarantees: it is older than 7.0, or (with
// ClientOptions::refuse_evicting_server) its maxmemory-policy may evict keys. Also a queue written
// in another layout version (QueueSettings::layout) than this client's: it is refused whole
// rather than misread during a rolling upgrade.
class ConfigurationError : public Error {
  public:
    using Error::Error;
};

}  // namespace delayq
