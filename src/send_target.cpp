#include "send_target.hpp"

#include "redis/routed_call.hpp"
#include "scripts.hpp"

namespace delayq::detail {

std::vector<SendResult> send_now(Connection& conn, const SendTarget& target,
                                 std::span<const send_codec::MessageRef> messages) {
    const send_codec::Call call = send_codec::encode(messages, target.defaults);
    return send_codec::decode(
        run_routed(target.route, conn, scripts::kSend, target.keys, call.args, target.patience),
        messages, call);
}

}  // namespace delayq::detail
