#include "support/cluster_view.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "support/reply_fields.hpp"

namespace delayq::test {
namespace {

std::vector<std::string> split(std::string_view text, char sep) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const auto end = std::min(text.find(sep, begin), text.size());
        if (end > begin) out.emplace_back(text.substr(begin, end - begin));
        begin = end + 1;
    }
    return out;
}

bool has(const std::vector<std::string>& flags, std::string_view flag) {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// <id> <ip:port@cport[,hostname]> <flags> <primary> <ping-sent> <pong-recv> <config-epoch>
// <link-state> <slot>...
ClusterNodeView parse_line(std::string_view line) {
    const std::vector<std::string> fields = split(line, ' ');
    if (fields.size() < 8) throw std::runtime_error("bad CLUSTER NODES line: " + std::string(line));
    ClusterNodeView node;
    node.id = fields[0];
    const std::string address = fields[1].substr(0, fields[1].find('@'));
    node.port = std::stoi(address.substr(address.rfind(':') + 1));
    const std::vector<std::string> flags = split(fields[2], ',');
    node.myself = has(flags, "myself");
    node.primary = has(flags, "master");
    if (!node.primary) node.primary_id = fields[3];
    node.failed = has(flags, "fail");
    node.unsettled = has(flags, "fail?") || has(flags, "handshake") || has(flags, "noaddr");
    node.linked = node.myself || fields[7] == "connected";
    for (std::size_t i = 8; i < fields.size(); ++i) {
        if (fields[i].front() == '[') continue;  // [slot->-id] migrating, [slot-<-id] importing
        const auto dash = fields[i].find('-');
        const int first = std::stoi(fields[i].substr(0, dash));
        const int last = dash == std::string::npos ? first : std::stoi(fields[i].substr(dash + 1));
        node.slots.emplace_back(first, last);
    }
    return node;
}

}  // namespace

std::string ClusterNodeView::layout() const {
    std::ostringstream out;
    out << id << (primary ? " primary" : " replica of " + primary_id);
    for (const auto& [first, last] : slots) out << ' ' << first << '-' << last;
    if (failed) out << " failed";
    return out.str();
}

std::vector<ClusterNodeView> parse_cluster_nodes(std::string_view text) {
    std::vector<ClusterNodeView> out;
    for (const std::string& line : split(text, '\n')) {
        if (line.find_first_not_of(" \r") != std::string::npos) out.push_back(parse_line(line));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
}

std::map<std::string, std::string> parse_shards_health(const RawReply& shards) {
    std::map<std::string, std::string> out;
    for (const RawReply& shard : shards.elements) {
        for (std::size_t i = 0; i + 1 < shard.elements.size(); i += 2) {
            if (shard.elements[i].str != "nodes") continue;
            for (const RawReply& node : shard.elements[i + 1].elements) {
                auto fields = reply_fields(node);
                out[fields["id"]] = fields["health"];
            }
        }
    }
    return out;
}

std::string owner_of_slot(const std::vector<ClusterNodeView>& view, int slot) {
    for (const auto& n : view) {
        for (const auto& [first, last] : n.slots) {
            if (first <= slot && slot <= last) return n.id;
        }
    }
    return "";
}

std::string cluster_unsettled(const std::vector<ClusterNodeReport>& reports) {
    std::map<std::string, bool> running;  // by id
    for (const auto& r : reports) running[r.id] = r.running;
    const ClusterNodeReport* first = nullptr;
    for (const auto& r : reports) {
        if (!r.running) continue;
        const std::string who = "node :" + std::to_string(r.port);
        if (r.cluster_info.find("cluster_state:ok") == std::string::npos) {
            return who + " does not say cluster_state:ok";
        }
        if (r.view.size() != reports.size()) {
            return who + " knows " + std::to_string(r.view.size()) + " of " +
                   std::to_string(reports.size()) + " nodes";
        }
        for (const auto& seen : r.view) {
            const std::string whom = "node :" + std::to_string(seen.port);
            if (!running.contains(seen.id)) return who + " knows a stranger, " + seen.id;
            if (seen.unsettled) return who + " is still making up its mind about " + whom;
            if (!running[seen.id]) {
                if (!seen.failed) return who + " does not yet see stopped " + whom + " failed";
                continue;
            }
            if (seen.failed) return who + " sees running " + whom + " failed";
            if (!seen.linked) return who + " has no link to " + whom + " yet";
            const auto health = r.health.find(seen.id);
            if (health == r.health.end() || health->second != "online") {
                return who + " does not see " + whom + " online";
            }
            if (seen.myself && !seen.primary &&
                r.replication.find("master_link_status:up") == std::string::npos) {
                return who + " is a replica whose link to its primary is not up";
            }
        }
        if (first == nullptr) {
            first = &r;
            continue;
        }
        for (std::size_t i = 0; i < r.view.size(); ++i) {
            if (r.view[i].layout() != first->view[i].layout()) {
                return who + " sees " + r.view[i].layout() +
                       " where node :" + std::to_string(first->port) + " sees " +
                       first->view[i].layout();
            }
        }
    }
    return "";
}

}  // namespace delayq::test
