#include "delayq/scheduler.hpp"

#include "delayq/client.hpp"
#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "schedule/scheduler_runtime.hpp"

namespace delayq {

Scheduler::Scheduler(const Client& client, SchedulerOptions options) {
    for (const std::string& queue : options.queues) validate_queue_name(queue);
    if (options.poll <= Duration(0) || options.discover <= Duration(0)) {
        throw InvalidArgument("scheduler poll and discover must be more than 0");
    }
    if (options.max_queues < 1) throw InvalidArgument("scheduler max_queues must be at least 1");
    runtime_ = std::make_unique<detail::SchedulerRuntime>(client.core_, std::move(options));
}

Scheduler::~Scheduler() = default;

void Scheduler::start() { runtime_->start_once(); }

void Scheduler::stop() { runtime_->request_stop(); }

void Scheduler::wait() { runtime_->join(); }

SchedulerStats Scheduler::stats() const { return runtime_->stats(); }

}  // namespace delayq
