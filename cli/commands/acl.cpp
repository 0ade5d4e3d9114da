// delayq acl: the Redis ACL rules of a role, for an administrator to apply.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/acl.hpp>
#include <memory>
#include <string>
#include <vector>

#include "command_set.hpp"
#include "errors.hpp"
#include "queue_patterns.hpp"

namespace delayq::cli {
namespace {

struct AclArgs {
    std::string user;
    std::string role;
    std::vector<std::string> queues;
    bool serve = false;
    bool functions = false;
};

int print_acl(const AclArgs& a) {
    const auto role = parse_acl_role(a.role);
    if (!role) {
        throw UsageError("--role must be reader, writer, pusher or admin, not \"" + a.role + "\"");
    }
    for (const auto& command : acl_commands(a.user, *role, parse_queue_patterns(a.queues))) {
        std::printf("%s\n", redis_cli_line(command).c_str());
    }
    if (a.serve) std::printf("%s\n", redis_cli_line(acl_shared_secret_command(a.user)).c_str());
    if (a.functions) std::printf("%s\n", redis_cli_line(acl_functions_command(a.user)).c_str());
    return kExitOk;
}

}  // namespace

void add_acl(CommandSet& set) {
    auto a = std::make_shared<AclArgs>();
    CLI::App& cmd = set.add(
        {.path = "acl",
         .summary = "Print the Redis ACL SETUSER lines that give a user one role on some queues",
         .details =
             R"x(Contacts no Redis: the lines go to an administrator, or straight to redis-cli, which
reads one command a line. Each role has every grant of the one before it:
  reader  stats, peek, get, queues, waiting: read-only functions (FCALL_RO) and
          scripts (EVALSHA_RO), and read-only keys, so Redis refuses it every write
  writer  also send, consume, ack, nack, cancel, reschedule, queue settings, pause,
          dead-letter requeue and purge: any function (FCALL) or script (EVALSHA) on
          those queues' keys
  pusher  also reading the push targets' header values and secrets (dqs:{QUEUE}:push,
          read-only), which a pusher signs and sends its requests with
  admin   also queue delete, and push set and remove (writing those credentials)
Every role may run the operations as scripts too (EVALSHA, EVALSHA_RO): the fallback
where the function library is not loaded or not allowed.
--serve adds SET on the one key dq:shared-secret (a selector: no other key), with
which every delayq serve on the Redis seals its leases; not needed when serve is
given --lease-key-file.
--functions adds FUNCTION LOAD, LIST and DELETE, an operator's grant (not
key-scoped: a library is code for every user): what delayq functions load and
prune need, and with which the user's clients load the library themselves.
Redis cannot tell a producer from a consumer: whoever may run scripts on a queue's
keys may run any of them (docs/security.md). The user is switched on; its passwords
are left as they are (ACL SETUSER NAME >PASSWORD adds one). Running the lines again
resets the user's commands, keys and channels to exactly these.

Examples:
  delayq acl --user shop --role writer --queues 'orders*'
  delayq acl --user dash --role reader --queues '*' | redis-cli -u "$ADMIN_URL"
  delayq acl --user api --role writer --queues '*' --serve
  delayq acl --user ops --role admin --queues '*' --functions
  printf 'ACL SETUSER shop >%s\n' "$(cat shop.pass)" | redis-cli ...)x"},
        [a](const Invocation&) { return print_acl(*a); });
    cmd.add_option("--user", a->user, "The Redis ACL user")->required()->type_name("NAME");
    cmd.add_option("--role", a->role, "reader, writer, pusher or admin")
        ->required()
        ->type_name("reader|writer|pusher|admin");
    cmd.add_option("--queues", a->queues,
                   "Queue names, prefixes ending in *, or * (comma-separated), as for tokens")
        ->required()
        ->delimiter(',')
        ->type_name("PATTERN,...");
    cmd.add_flag("--serve", a->serve,
                 "Also SET on dq:shared-secret, the key delayq serve seals leases with");
    cmd.add_flag("--functions", a->functions,
                 "Also FUNCTION LOAD, LIST and DELETE: load and prune the function library");
}

}  // namespace delayq::cli
