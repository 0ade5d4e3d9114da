// Every command, in the order `delayq --help` lists them: adding one is its file in this
// directory and its line below (a group before its commands).
#include <CLI/CLI.hpp>
#include <cstdlib>

#include "commands/commands.hpp"

namespace delayq::cli {

void add_cancel(CommandSet& set);
void add_reschedule(CommandSet& set);
void add_stats(CommandSet& set);
void add_queues(CommandSet& set);
void add_peek(CommandSet& set);
void add_dead(CommandSet& set);
void add_dead_list(CommandSet& set);
void add_dead_requeue(CommandSet& set);
void add_dead_purge(CommandSet& set);
void add_queue(CommandSet& set);
void add_queue_info(CommandSet& set);
void add_queue_set(CommandSet& set);
void add_queue_pause(CommandSet& set);
void add_queue_resume(CommandSet& set);
void add_queue_delete(CommandSet& set);
void add_token(CommandSet& set);
void add_token_new(CommandSet& set);
void add_token_list(CommandSet& set);
void add_token_revoke(CommandSet& set);
void add_local(CommandSet& set);
void add_local_status(CommandSet& set);
void add_local_stop(CommandSet& set);
void add_serve(CommandSet& set);
void add_demo(CommandSet& set);
void add_completion(CommandSet& set);
void add_version(CommandSet& set);

namespace {

// send and consume are still in the older shape, with their own --redis option. The global one,
// given before their name, reaches their Session through the environment it reads; given after
// their name, their own option takes it. Both go once they are written as CommandSet commands.
void add_older(CommandSet& set) {
    Commands older;
    add_send(set.root(), older);
    add_consume(set.root(), older, set.invocation().trailing);
    for (const auto& c : older) {
        set.adopt(*c.app, [run = c.run](const Invocation& invocation) {
            if (!invocation.redis.empty()) {
                ::setenv("DELAYQ_REDIS_URL", invocation.redis.c_str(), 1);
            }
            return run();
        });
    }
}

}  // namespace

void add_all_commands(CommandSet& set) {
    add_older(set);
    add_cancel(set);
    add_reschedule(set);
    add_stats(set);
    add_queues(set);
    add_peek(set);
    add_dead(set);
    add_dead_list(set);
    add_dead_requeue(set);
    add_dead_purge(set);
    add_queue(set);
    add_queue_info(set);
    add_queue_set(set);
    add_queue_pause(set);
    add_queue_resume(set);
    add_queue_delete(set);
    add_token(set);
    add_token_new(set);
    add_token_list(set);
    add_token_revoke(set);
    add_local(set);
    add_local_status(set);
    add_local_stop(set);
    add_serve(set);
    add_demo(set);
    add_completion(set);
    add_version(set);
}

}  // namespace delayq::cli
