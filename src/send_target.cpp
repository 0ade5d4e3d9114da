#include "send_target.hpp"

#include "redis/routed_call.hpp"
#include "scripts.hpp"
#include "send_durability.hpp"

namespace delayq::detail {

SentCall send_call(Connection& conn, const SendTarget& target,
                   std::span<const send_codec::MessageRef> messages) {
    const send_codec::Call call = send_codec::encode(messages, target.defaults);
    SentCall sent;
    // A durable line's WAIT, only after a call that succeeded (behind a refused one it would
    // wait for nothing); a plain line's calls have none.
    AfterCall confirm;
    if (is_durable(target.durability)) {
        confirm = [&](Connection& ran_on) {
            sent.ack = confirm_replicas(ran_on, target.durability);
        };
    }
    const Reply reply = run_routed(target.route, conn, scripts::kSend, target.keys, call.args,
                                   target.patience, confirm);
    sent.results = send_codec::decode(reply, messages, call);
    return sent;
}

std::vector<SendResult> send_now(Connection& conn, const SendTarget& target,
                                 std::span<const send_codec::MessageRef> messages) {
    SentCall sent = send_call(conn, target, messages);
    if (short_of(sent.ack, target.durability)) {
        throw not_replicated(ids_of(sent.results), target.queue, target.durability, *sent.ack);
    }
    return std::move(sent.results);
}

}  // namespace delayq::detail
