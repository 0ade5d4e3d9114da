#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace delayq::test {

// promtool's verdict on a metrics text (Debian's `prometheus` package, installed by
// scripts/deps.sh test): its exit status and what it printed.
inline std::pair<int, std::string> promtool_check_metrics(const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("delayq-promtool-" + std::to_string(::getpid()) + ".txt");
    {
        std::ofstream out(path);
        out << text;
    }
    const std::string cmd = "promtool check metrics < " + path.string() + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    std::string said;
    char buf[512];
    while (p && std::fgets(buf, sizeof buf, p)) said += buf;
    const int status = p ? ::pclose(p) : -1;
    std::filesystem::remove(path);
    return {status, said};
}

}  // namespace delayq::test
