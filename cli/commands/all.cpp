// Every command, in the order `delayq --help` lists them: adding one is its file in this
// directory and its line below (a group before its commands).
#include "command_set.hpp"

namespace delayq::cli {

void add_send(CommandSet& set);
void add_consume(CommandSet& set);
void add_cancel(CommandSet& set);
void add_reschedule(CommandSet& set);
void add_stats(CommandSet& set);
void add_queues(CommandSet& set);
void add_peek(CommandSet& set);
void add_get(CommandSet& set);
void add_dead(CommandSet& set);
void add_dead_list(CommandSet& set);
void add_dead_requeue(CommandSet& set);
void add_dead_purge(CommandSet& set);
void add_queue(CommandSet& set);
void add_queue_info(CommandSet& set);
void add_queue_timeline(CommandSet& set);
void add_queue_set(CommandSet& set);
void add_queue_pause(CommandSet& set);
void add_queue_resume(CommandSet& set);
void add_queue_delete(CommandSet& set);
void add_schedule(CommandSet& set);
void add_schedule_add(CommandSet& set);
void add_schedule_set(CommandSet& set);
void add_schedule_get(CommandSet& set);
void add_schedule_list(CommandSet& set);
void add_schedule_next(CommandSet& set);
void add_schedule_pause(CommandSet& set);
void add_schedule_resume(CommandSet& set);
void add_schedule_trigger(CommandSet& set);
void add_schedule_remove(CommandSet& set);
void add_schedule_run(CommandSet& set);
void add_push(CommandSet& set);
void add_push_set(CommandSet& set);
void add_push_get(CommandSet& set);
void add_push_run(CommandSet& set);
void add_push_test(CommandSet& set);
void add_push_remove(CommandSet& set);
void add_token(CommandSet& set);
void add_token_new(CommandSet& set);
void add_token_list(CommandSet& set);
void add_token_revoke(CommandSet& set);
void add_local(CommandSet& set);
void add_local_status(CommandSet& set);
void add_local_stop(CommandSet& set);
void add_functions(CommandSet& set);
void add_functions_load(CommandSet& set);
void add_functions_status(CommandSet& set);
void add_functions_prune(CommandSet& set);
void add_serve(CommandSet& set);
void add_acl(CommandSet& set);
void add_demo(CommandSet& set);
void add_completion(CommandSet& set);
void add_version(CommandSet& set);

void add_all_commands(CommandSet& set) {
    add_send(set);
    add_consume(set);
    add_cancel(set);
    add_reschedule(set);
    add_stats(set);
    add_queues(set);
    add_peek(set);
    add_get(set);
    add_dead(set);
    add_dead_list(set);
    add_dead_requeue(set);
    add_dead_purge(set);
    add_queue(set);
    add_queue_info(set);
    add_queue_timeline(set);
    add_queue_set(set);
    add_queue_pause(set);
    add_queue_resume(set);
    add_queue_delete(set);
    add_schedule(set);
    add_schedule_add(set);
    add_schedule_set(set);
    add_schedule_get(set);
    add_schedule_list(set);
    add_schedule_next(set);
    add_schedule_pause(set);
    add_schedule_resume(set);
    add_schedule_trigger(set);
    add_schedule_remove(set);
    add_schedule_run(set);
    add_push(set);
    add_push_set(set);
    add_push_get(set);
    add_push_run(set);
    add_push_test(set);
    add_push_remove(set);
    add_token(set);
    add_token_new(set);
    add_token_list(set);
    add_token_revoke(set);
    add_local(set);
    add_local_status(set);
    add_local_stop(set);
    add_functions(set);
    add_functions_load(set);
    add_functions_status(set);
    add_functions_prune(set);
    add_serve(set);
    add_acl(set);
    add_demo(set);
    add_completion(set);
    add_version(set);
}

}  // namespace delayq::cli
