#include "send_pipeline.hpp"

#include <span>
#include <utility>

#include "delayq/error.hpp"
#include "redis/redirect.hpp"
#include "redis/script.hpp"
#include "scripts.hpp"
#include "send_durability.hpp"
#include "validate.hpp"

namespace delayq::detail {
namespace {

bool breaks_connection(const std::exception_ptr& e) {
    try {
        std::rethrow_exception(e);
    } catch (const ConnectionError&) {
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace

bool SendPipeline::full() const {
    if (calls_.size() >= kDepth) return true;
    if (calls_.empty()) return false;
    // After a call the script may refuse, the next waits for its answer: the refused messages
    // are sent again one by one, and must still go before the later calls. And once replies
    // have been read ahead (see finish), answering them may take more commands: a new call
    // now would put its reply in their way.
    // A durable call's WAIT follows it on the connection once its reply is read: nothing may
    // be sent in between, nor its reply be read before the WAIT's.
    return calls_.back().may_be_refused || calls_.front().reply.has_value() ||
           is_durable(calls_.back().target->durability);
}

void SendPipeline::start(const SendTarget& target, std::vector<SendSlot*> slots) {
    Call call;
    call.target = &target;
    call.slots = std::move(slots);
    call.refs.reserve(call.slots.size());
    for (SendSlot* s : call.slots) {
        call.refs.push_back(s->ref);
        if (send_codec::script_may_refuse(*s->ref.options)) call.may_be_refused = true;
    }
    try {
        if (conn_failed_ && calls_.empty()) {
            conn_.reset();
            conn_failed_ = false;
        }
        if (!conn_) conn_.emplace(pool_.acquire());
        call.call = send_codec::encode(call.refs, target.defaults);
        // With no call in flight, the library may be checked here; behind one, the call goes as
        // the node is known to run them (a check would read the reply in flight).
        if (calls_.empty()) pool_.engine().use_functions(**conn_);
        call.via =
            append_script(pool_.engine(), **conn_, scripts::kSend, target.keys, call.call.args);
        (**conn_).flush();
    } catch (...) {
        call.error = std::current_exception();
        if (breaks_connection(call.error)) conn_failed_ = true;
    }
    calls_.push_back(std::move(call));
}

void SendPipeline::read_reply(Call& call) {
    if (call.reply || call.error) return;
    try {
        call.reply = (**conn_).read();
    } catch (...) {
        call.error = std::current_exception();
        conn_failed_ = true;
        // The later calls were on the same connection: the same failure is their answer.
        for (Call& later : calls_) {
            if (!later.reply && !later.error) later.error = call.error;
        }
    }
}

SendPipeline::Finished SendPipeline::finish() {
    Call call = std::move(calls_.front());
    calls_.pop_front();
    read_reply(call);
    if (call.reply && call.reply->is_error()) {
        // Answering may take more commands on this connection (the library checked again
        // after a missing function, EVAL after NOSCRIPT, or the messages again one by one): read
        // the later replies first, so that none is pending.
        for (Call& later : calls_) read_reply(later);
    }
    Finished out;
    out.failure = answer(call);
    out.slots = std::move(call.slots);
    if (calls_.empty() && conn_failed_) {
        conn_.reset();
        conn_failed_ = false;
    }
    return out;
}

void SendPipeline::answer_sent(const SendTarget& target, std::span<SendSlot* const> slots,
                               SentCall sent) {
    const bool short_of_replicas = short_of(sent.ack, target.durability);
    if (sent.ack && !sent.ack->failure.empty() && (**conn_).broken()) conn_failed_ = true;
    for (std::size_t i = 0; i < slots.size(); ++i) {
        if (short_of_replicas) {
            // Each sender gets its own message's id: that is what it sends again.
            slots[i]->error = std::make_exception_ptr(
                not_replicated({sent.results[i].id}, target.queue, target.durability, *sent.ack));
        } else {
            slots[i]->result = std::move(sent.results[i]);
        }
    }
}

std::exception_ptr SendPipeline::answer(Call& call) {
    std::exception_ptr failure = call.error;
    const SendTarget& target = *call.target;
    if (!failure) {
        try {
            try {
                SentCall sent = [&] {
                    try {
                        Reply r = script_reply(pool_.engine(), **conn_, scripts::kSend, target.keys,
                                               call.call.args, call.via, std::move(*call.reply));
                        SentCall direct{send_codec::decode(r, call.refs, call.call), {}};
                        // Nothing was sent behind a durable call (full()): its WAIT is next.
                        if (is_durable(target.durability)) {
                            direct.ack = confirm_replicas(**conn_, target.durability);
                        }
                        return direct;
                    } catch (const RedirectedError&) {
                        // The cluster moved the queue's slot (nothing was written): the call
                        // goes where the slot is served now.
                        return send_call(**conn_, target, call.refs);
                    } catch (const TransientRefusalError&) {
                        return send_call(**conn_, target, call.refs);
                    }
                }();
                answer_sent(target, call.slots, std::move(sent));
            } catch (const InvalidArgument&) {
                // Only the script's own checks get here (see script_may_refuse): one message
                // fails a whole call, so each goes alone to get its own answer.
                if (call.slots.size() == 1) throw;
                for (SendSlot*& s : call.slots) {
                    try {
                        answer_sent(target, std::span(&s, 1),
                                    send_call(**conn_, target, std::span(&s->ref, 1)));
                    } catch (const InvalidArgument&) {
                        s->error = std::current_exception();
                    }
                }
            }
        } catch (const InvalidArgument&) {
            call.slots.front()->error = std::current_exception();
        } catch (...) {
            failure = std::current_exception();
            if (breaks_connection(failure)) conn_failed_ = true;
        }
    }
    for (SendSlot* s : call.slots) {
        if (s->result || s->error) continue;
        s->error = failure ? failure
                           : std::make_exception_ptr(ServerError("send: no answer for a message"));
    }
    return failure;
}

}  // namespace delayq::detail
