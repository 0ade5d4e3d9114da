// Arbitrary RESP through hiredis's reader (the parser the library reads Redis with) into a Reply,
// then into every reply decoder: a reply of any shape must end in a value or a delayq::Error,
// never in a crash, a hang or another exception. The first byte picks the decoder, the rest is
// the RESP (several replies in a row: each is decoded).
#include <hiredis/hiredis.h>

#include <cstddef>
#include <cstdint>
#include <delayq/error.hpp>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "codec/fetch.hpp"
#include "codec/inspect.hpp"
#include "codec/lease.hpp"
#include "codec/manage.hpp"
#include "codec/push.hpp"
#include "codec/schedule.hpp"
#include "codec/send.hpp"
#include "codec/settings.hpp"
#include "redis/info.hpp"
#include "redis/permission.hpp"
#include "redis/redirect.hpp"
#include "redis/reply.hpp"
#include "redis/sentinel.hpp"
#include "redis/slot_map.hpp"

namespace {

using delayq::detail::Reply;
namespace dd = delayq::detail;

// What send.lua's reply is read against: a call of three messages, one with an id of its own
// and one with a due time (separate runs of the call).
struct SendCall {
    delayq::SendOptions plain{};
    delayq::SendOptions with_id{};
    delayq::SendOptions due{};
    std::vector<dd::send_codec::MessageRef> messages;
    dd::send_codec::Call call;

    SendCall() {
        with_id.id = "order-42";
        due.at = delayq::TimePoint(std::chrono::milliseconds(1'900'000'000'000));
        messages = {{"a", &plain}, {"b", &with_id}, {"c", &due}};
        call = dd::send_codec::encode(messages, {.max_payload_bytes = 1024});
    }
};

void decode(std::uint8_t which, const Reply& reply) {
    static const SendCall send_call;
    const std::string queue = "q";
    switch (which % 32) {
        case 0:
            dd::fetch_codec::decode(reply, queue);
            break;
        case 1:
            dd::lease_codec::decode_ack(reply, reply.elements.size());
            break;
        case 2:
            dd::lease_codec::decode_extend(reply);
            break;
        case 3:
            dd::lease_codec::decode_release(reply);
            break;
        case 4:
            dd::lease_codec::decode_nack(reply);
            break;
        case 5:
            dd::schedule_codec::decode_put(reply);
            break;
        case 6:
            dd::schedule_codec::decode_get(reply);
            break;
        case 7:
            dd::schedule_codec::decode_poll(reply);
            break;
        case 8:
            dd::schedule_codec::decode_claim(reply);
            break;
        case 9:
            dd::schedule_codec::decode_stop(reply);
            break;
        case 10:
            dd::schedule_codec::decode_trigger(reply, "nightly");
            break;
        case 11:
            dd::send_codec::decode(reply, send_call.messages, send_call.call);
            break;
        case 12:
            dd::push_codec::decode_set(reply);
            break;
        case 13:
            dd::push_codec::decode_get(reply);
            break;
        case 14:
            dd::push_codec::decode_read(reply);
            break;
        case 15:
            dd::push_codec::decode_remove(reply);
            break;
        case 16:
            dd::push_codec::decode_lease(reply, queue);
            break;
        case 17:
            dd::manage_codec::decode_cancel(reply);
            break;
        case 18:
            dd::manage_codec::decode_reschedule(reply);
            break;
        case 19:
            dd::manage_codec::decode_dead(reply);
            break;
        case 20:
            dd::settings_codec::decode(reply);
            break;
        case 21:
            dd::settings_codec::decode_delete(reply);
            break;
        case 22:
            dd::inspect_codec::decode_get(reply, "id-1");
            break;
        case 23:
            dd::inspect_codec::decode_list(
                reply, (which & 32) != 0 ? delayq::State::kDead : delayq::State::kReady);
            break;
        case 24:
            dd::inspect_codec::decode_stats(reply);
            break;
        case 25:
            dd::inspect_codec::decode_record_history(reply);
            break;
        case 26:
            dd::inspect_codec::decode_history(reply);
            break;
        case 27:
            dd::inspect_codec::decode_timeline(reply, std::chrono::seconds(60));
            break;
        case 28:
            dd::parse_redirect(reply);
            dd::is_transient_refusal(reply);
            dd::is_read_only(reply);
            dd::is_permission_error(reply);
            break;
        case 29:
            dd::parse_master_address(reply);
            dd::parse_role(reply);
            if (reply.type == Reply::Type::kString) {
                dd::parse_switch_master(reply.str, "mymaster");
                dd::info_field(reply.str, "role");
            }
            break;
        case 30:
            dd::SlotMap::from_shards(reply, (which & 32) != 0, "10.0.0.1");
            break;
        default:
            dd::SlotMap::from_slots(reply, "10.0.0.1");
            break;
    }
}

// hiredis 0.14 allocates an array's element pointers as soon as it reads `*N`, before any
// element came: N in the hundreds of millions is gigabytes, whatever follows. That is hiredis's
// (a Redis server is trusted to send what it announces) and no parser of delayq's, so inputs
// that announce more elements than they have bytes are left out.
bool announces_too_much(std::string_view resp) {
    for (std::size_t i = resp.find('*'); i != std::string_view::npos; i = resp.find('*', i + 1)) {
        std::size_t n = 0;
        for (std::size_t j = i + 1; j < resp.size() && resp[j] >= '0' && resp[j] <= '9'; ++j) {
            n = n * 10 + static_cast<std::size_t>(resp[j] - '0');
            if (n > resp.size()) return true;
        }
    }
    return false;
}

struct ReaderFree {
    void operator()(redisReader* reader) const { redisReaderFree(reader); }
};
struct ReplyFree {
    void operator()(void* reply) const { freeReplyObject(reply); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::uint8_t which = data[0];
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view resp(reinterpret_cast<const char*>(data + 1), size - 1);
    if (announces_too_much(resp)) return 0;
    std::unique_ptr<redisReader, ReaderFree> reader(redisReaderCreate());
    if (redisReaderFeed(reader.get(), resp.data(), resp.size()) != REDIS_OK) {
        return 0;
    }
    for (;;) {
        void* raw = nullptr;
        if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK || raw == nullptr) break;
        const std::unique_ptr<void, ReplyFree> owned(raw);
        const Reply reply = dd::convert_reply(*static_cast<redisReply*>(raw));
        try {
            decode(which, reply);
        } catch (const delayq::Error&) {
            // A reply of another shape: what the decoders are to say.
        }
    }
    return 0;
}
