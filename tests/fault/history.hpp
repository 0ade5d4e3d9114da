#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace delayq::fault {

// What a producer learned about one send attempt.
enum class SendStatus {
    kOk,         // stored: the send was acknowledged
    kDuplicate,  // acknowledged too: the id was already stored (a retry whose first try landed)
    kFailed,     // refused by Redis: nothing was written
    kUnknown,    // timeout or broken connection: it may or may not have been stored
};

enum class AckStatus {
    kOk,         // Redis removed the message
    kLeaseLost,  // Redis refused: the delivery no longer held the message
    kRequested,  // the handler returned Ack; the Consumer acks later and does not report how
};

struct SendEvent {
    std::string process;
    std::string id;
    std::int64_t due_ms = 0;  // by the Redis clock; 0 when not acknowledged
    SendStatus status = SendStatus::kOk;
};

struct DeliveryEvent {
    std::string process;
    std::string id;
    int attempt = 0;
    std::int64_t due_ms = 0;           // by the Redis clock, from the Delivery
    std::int64_t delivered_at_ms = 0;  // Redis time of the lease, from the Delivery
    std::int64_t lease_ms = 0;         // visibility timeout the lease started with
    std::uint64_t token = 0;
};

struct AckEvent {
    std::string process;
    std::string id;
    std::uint64_t token = 0;
    AckStatus status = AckStatus::kOk;
};

// An injected fault. Times are Redis time in ms; end_ms == start_ms for an instant fault.
struct FaultEvent {
    std::string kind;    // consumer_kill, consumer_stop, redis_kill, client_kill, ...
    std::string target;  // the process it hit; empty when it hit every process
    std::int64_t start_ms = 0;
    std::int64_t end_ms = 0;
};

struct History {
    std::vector<SendEvent> sends;
    std::vector<DeliveryEvent> deliveries;
    std::vector<AckEvent> acks;
    std::vector<FaultEvent> faults;

    void append(const History& other);
};

// One line per event, tab-separated: the format of history files.
std::string to_line(const SendEvent& e);
std::string to_line(const DeliveryEvent& e);
std::string to_line(const AckEvent& e);
std::string to_line(const FaultEvent& e);

// Parses one line into `into`; false (and nothing added) for a malformed line, such as the
// unfinished last line of a killed process.
bool parse_line(const std::string& line, History& into);

History read_history(const std::filesystem::path& file);
// Every *.history file in dir, merged.
History read_histories(const std::filesystem::path& dir);

// Appends events to a file, one write(2) per line on an O_APPEND descriptor: what was written
// survives a kill -9 of the writer, and concurrent writers never interleave within a line.
// Thread-safe.
class HistoryWriter {
  public:
    explicit HistoryWriter(const std::filesystem::path& file);
    ~HistoryWriter();
    HistoryWriter(const HistoryWriter&) = delete;
    HistoryWriter& operator=(const HistoryWriter&) = delete;

    void write(const std::string& line);

  private:
    std::mutex mutex_;
    int fd_ = -1;
};

}  // namespace delayq::fault
