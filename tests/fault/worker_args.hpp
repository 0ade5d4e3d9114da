#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace delayq::fault {

// The command line of a fault worker process (delayq_fault_worker, delayq_fault_http_worker):
// --key value pairs, and --manual-ack alone.
class WorkerArgs {
  public:
    WorkerArgs(int argc, char** argv) {
        for (int i = 1; i < argc; ++i) {
            std::string key = argv[i];
            if (key.rfind("--", 0) != 0) throw std::invalid_argument("unexpected " + key);
            key = key.substr(2);
            if (key == "manual-ack") {  // the one flag without a value
                values_[key] = "1";
            } else if (i + 1 < argc) {
                values_[key] = argv[++i];
            } else {
                throw std::invalid_argument("--" + key + " needs a value");
            }
        }
    }

    std::string text(const std::string& key, const std::string& fallback = "") const {
        const auto it = values_.find(key);
        if (it != values_.end()) return it->second;
        if (fallback.empty()) throw std::invalid_argument("--" + key + " is required");
        return fallback;
    }

    long long number(const std::string& key, long long fallback) const {
        const auto it = values_.find(key);
        return it == values_.end() ? fallback : std::stoll(it->second);
    }

    bool flag(const std::string& key) const { return values_.count(key) != 0; }

  private:
    std::map<std::string, std::string> values_;
};

}  // namespace delayq::fault
