#include "push/pusher.hpp"

#include "push/pusher_runtime.hpp"

namespace delayq::push {

Pusher::Pusher(const Client& client, PusherOptions options)
    : runtime_(std::make_unique<PusherRuntime>(client, std::move(options))) {}

Pusher::~Pusher() = default;

void Pusher::start() { runtime_->start(); }
void Pusher::stop() { runtime_->stop(); }
void Pusher::wait() { runtime_->wait(); }
PusherStats Pusher::stats() const { return runtime_->stats(); }

}  // namespace delayq::push
