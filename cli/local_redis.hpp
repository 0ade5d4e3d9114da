#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace delayq::cli {

// The redis-server delayq manages for itself when no Redis URL is configured: one per user, with
// its data in a directory of its own, listening only on a unix socket there (no TCP port),
// persistence on and no eviction. Started on first use and reused by later commands.
class LocalRedis {
  public:
    // $DELAYQ_HOME, else $XDG_DATA_HOME/delayq, else ~/.local/share/delayq.
    static std::filesystem::path default_dir();

    explicit LocalRedis(std::filesystem::path dir);

    const std::filesystem::path& dir() const { return dir_; }
    std::filesystem::path socket_path() const { return dir_ / "redis.sock"; }
    std::string url() const { return "unix://" + socket_path().string(); }

    // Starts the server unless it answers already; safe when several commands start at once.
    // Throws RuntimeFailure when it cannot be started.
    void ensure_running() const;

    struct Status {
        bool running = false;    // it answers PING
        pid_t pid = -1;          // from the pidfile, when that process is alive
        bool answering = false;  // running, or alive but still loading its data
    };
    Status status() const;

    // Stops the server gracefully (SIGTERM: it writes its append-only file and exits). Returns
    // the pid it stopped, or -1 when none was running.
    pid_t stop() const;

  private:
    std::filesystem::path dir_;
};

}  // namespace delayq::cli
