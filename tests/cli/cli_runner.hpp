#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace delayq::test {

struct CliResult {
    int exit_code = -1;  // -1: killed by a signal, or timed out
    std::string out;
    std::string err;
    bool timed_out = false;
};

struct CliOptions {
    std::string input{};                // written to stdin, which is then closed
    std::vector<std::string> env{};     // NAME=value, added to (or replacing in) the environment
    std::vector<std::string> unset{};   // names removed from the environment
    std::chrono::seconds timeout{120};  // then the process is killed and the result says so
    // Run under a pseudo-terminal (util-linux `script`): stdin, stdout and stderr are then one
    // terminal, whose output (stdout and stderr together, "\r\n" line ends, the input echoed)
    // lands in `out`.
    bool terminal = false;
    // stdout to this file instead of `out` (created or truncated; /dev/full fails every write).
    std::string stdout_file{};
    // stdout to a pipe whose read end is closed before the start: every write fails (EPIPE).
    bool stdout_closed = false;
};

// The delayq binary under test, running in the background with its output collected.
class CliProcess {
  public:
    CliProcess(const std::vector<std::string>& args, CliOptions options = {});
    ~CliProcess();  // kills it if it still runs
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;

    pid_t pid() const { return pid_; }
    void signal(int sig) const;
    // Waits (up to the timeout) until pred(stdout, stderr) holds; false if it never did.
    bool await_output(const std::function<bool(const std::string&, const std::string&)>& pred,
                      std::chrono::seconds timeout = std::chrono::seconds(60));
    // Waits for the end (killing it at the timeout) and returns everything.
    CliResult wait();

  private:
    void pump(int in_fd, int out_fd, int err_fd);

    CliOptions options_;
    pid_t pid_ = -1;
    std::thread pump_;
    std::mutex mutex_;
    std::condition_variable cv_;
    CliResult result_;
    bool done_ = false;
};

// Runs delayq to its end.
CliResult run_cli(const std::vector<std::string>& args, CliOptions options = {});

// The path of the delayq binary under test.
std::string cli_path();

}  // namespace delayq::test
