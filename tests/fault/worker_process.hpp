#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace delayq::fault {

// A child process (the fault worker, possibly under a wrapper such as faketime) with its output
// in a log file, which a test can signal, kill and reap. The destructor kills it if it runs.
// `env` entries (NAME=value) replace inherited ones of the same name.
class WorkerProcess {
  public:
    WorkerProcess(std::string name, const std::vector<std::string>& argv,
                  const std::filesystem::path& log, const std::vector<std::string>& env = {});
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    const std::string& name() const { return name_; }
    pid_t pid() const { return pid_; }
    bool running();
    void signal(int sig) const;
    // SIGKILL, then reaps it.
    void kill();
    // Waits for the exit; the exit code, -1 for a signal, nullopt when it still runs at the
    // deadline.
    std::optional<int> wait(std::chrono::milliseconds deadline);
    // SIGTERM, then wait; SIGKILL if it has not exited by the deadline (and returns nullopt).
    std::optional<int> terminate(std::chrono::milliseconds deadline);
    std::string log() const;

  private:
    std::string name_;
    std::filesystem::path log_;
    pid_t pid_ = -1;
    std::optional<int> exit_code_;
};

}  // namespace delayq::fault
