#include "fault/history.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace delayq::fault {
namespace {

constexpr const char* kSendStatus[] = {"ok", "duplicate", "failed", "unknown"};
constexpr const char* kAckStatus[] = {"ok", "lease_lost", "requested"};

template <class Enum, std::size_t N>
std::optional<Enum> parse_enum(std::string_view text, const char* const (&names)[N]) {
    for (std::size_t i = 0; i < N; ++i) {
        if (text == names[i]) return static_cast<Enum>(i);
    }
    return std::nullopt;
}

std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t tab = line.find('\t', start);
        out.push_back(line.substr(start, tab - start));
        if (tab == std::string::npos) return out;
        start = tab + 1;
    }
}

template <class Int>
bool parse_int(const std::string& text, Int& out) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

std::string join(std::initializer_list<std::string> fields) {
    std::string out;
    for (const auto& f : fields) {
        if (!out.empty()) out += '\t';
        out += f;
    }
    return out;
}

}  // namespace

void History::append(const History& other) {
    sends.insert(sends.end(), other.sends.begin(), other.sends.end());
    deliveries.insert(deliveries.end(), other.deliveries.begin(), other.deliveries.end());
    acks.insert(acks.end(), other.acks.begin(), other.acks.end());
    faults.insert(faults.end(), other.faults.begin(), other.faults.end());
}

std::string to_line(const SendEvent& e) {
    return join({"send", e.process, e.id, std::to_string(e.due_ms),
                 kSendStatus[static_cast<int>(e.status)]});
}

std::string to_line(const DeliveryEvent& e) {
    return join({"deliver", e.process, e.id, std::to_string(e.attempt), std::to_string(e.due_ms),
                 std::to_string(e.delivered_at_ms), std::to_string(e.lease_ms),
                 std::to_string(e.token)});
}

std::string to_line(const AckEvent& e) {
    return join(
        {"ack", e.process, e.id, std::to_string(e.token), kAckStatus[static_cast<int>(e.status)]});
}

std::string to_line(const FaultEvent& e) {
    return join({"fault", e.kind, e.target, std::to_string(e.start_ms), std::to_string(e.end_ms)});
}

bool parse_line(const std::string& line, History& into) {
    const std::vector<std::string> f = split_tabs(line);
    if (f[0] == "send" && f.size() == 5) {
        SendEvent e{f[1], f[2], 0, SendStatus::kOk};
        const auto status = parse_enum<SendStatus>(f[4], kSendStatus);
        if (!parse_int(f[3], e.due_ms) || !status) return false;
        e.status = *status;
        into.sends.push_back(std::move(e));
        return true;
    }
    if (f[0] == "deliver" && f.size() == 8) {
        DeliveryEvent e{f[1], f[2]};
        if (!parse_int(f[3], e.attempt) || !parse_int(f[4], e.due_ms) ||
            !parse_int(f[5], e.delivered_at_ms) || !parse_int(f[6], e.lease_ms) ||
            !parse_int(f[7], e.token)) {
            return false;
        }
        into.deliveries.push_back(std::move(e));
        return true;
    }
    if (f[0] == "ack" && f.size() == 5) {
        AckEvent e{f[1], f[2]};
        const auto status = parse_enum<AckStatus>(f[4], kAckStatus);
        if (!parse_int(f[3], e.token) || !status) return false;
        e.status = *status;
        into.acks.push_back(std::move(e));
        return true;
    }
    if (f[0] == "fault" && f.size() == 5) {
        FaultEvent e{f[1], f[2]};
        if (!parse_int(f[3], e.start_ms) || !parse_int(f[4], e.end_ms)) return false;
        into.faults.push_back(std::move(e));
        return true;
    }
    return false;
}

History read_history(const std::filesystem::path& file) {
    History out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        // A line without its newline was cut short by a kill: parse_line may accept a prefix
        // that happens to look whole, so it is skipped instead.
        if (in.eof()) break;
        parse_line(line, out);
    }
    return out;
}

History read_histories(const std::filesystem::path& dir) {
    History out;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".history") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) out.append(read_history(f));
    return out;
}

HistoryWriter::HistoryWriter(const std::filesystem::path& file) {
    fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open history file " + file.string());
}

HistoryWriter::~HistoryWriter() { ::close(fd_); }

void HistoryWriter::write(const std::string& line) {
    const std::string out = line + '\n';
    std::lock_guard lock(mutex_);
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw std::runtime_error("cannot write the history file");
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace delayq::fault
