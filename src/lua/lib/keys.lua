-- The queue's keys. Every script gets the same KEYS, all of one queue and all with the queue's
-- hash tag (the order of kKeySuffixes in src/keys.hpp):
--   KEYS[1] msg      hash   id -> record (cmsgpack, see lib/record.lua)
--   KEYS[2] pending  zset   member -> due time (unix ms, Redis clock); due <= now means ready
--   KEYS[3] inflight zset   lease -> lease deadline (unix ms); a lease is the delivery's token as
--                           a sequence key followed by the id, so it exists exactly while that
--                           delivery holds the message: ack is one ZREM, with no record to read
--   KEYS[4] dead     zset   member -> time it was dead-lettered (unix ms)
--   KEYS[5] err      hash   id -> last error text (only for messages that failed at least once)
--   KEYS[6] stats    hash   counter name -> total
--   KEYS[7] wake     shard channel that wakes sleeping consumers (SPUBLISH)
--   KEYS[8] cold     hash   id -> record of a message sent due more than COLD_AFTER_MS (send.lua)
--                           ahead, until its first delivery moves it to msg (see
--                           lib/find.lua)
--   KEYS[9] blocks   hash   block -> the records of a run of at least BLOCK_MIN messages with
--                           generated ids sent due more than COLD_AFTER_MS ahead, in place of a
--                           cold record each (see lib/blocks.lua); block .. '#' -> how many of
--                           them are still pending. A block is named by its first message's id.
--   KEYS[10] blockidx zset  block -> its first sequence number, to find the block of an id
--   KEYS[11] settings hash  the queue's settings (SETTINGS in lib/settings.lua; absent fields
--                           take their defaults); 'layout', the version of this key layout
--                           and record format (LAYOUT), which every script checks first; and
--                           'seq', the counter for sequence keys and delivery tokens (read with
--                           the layout, so that a send pays no command for the check)
--   KEYS[12] lateness hash  the delivery lateness histogram: bucket -> deliveries, 'sum_ms'
--                           (lib/lateness.lua); written by fetch only
--   KEYS[13] schedules hash name -> a recurring schedule: its spec and state, msgpack
--                           (lib/schedule.lua)
--   KEYS[14] schedclaims zset name -> when a scheduler must next claim for it (unix ms): the
--                           instant of the occurrence sent ahead (overlap allow) or of the next
--                           occurrence (overlap skip); paused and ended schedules are absent
--   KEYS[15] push    hash   the queue's push target as every role may read it (lib/push.lua):
--                           URL, method, limits, header names, how many secrets; the last
--                           answer a pusher recorded; the rate limit's tokens
--   KEYS[16] history zset   point -> its instant (unix ms, a multiple of the period): the
--                           queue's counts, totals and lateness buckets every period, for an
--                           hour (lib/history.lua); written by whichever server samples first
-- Only the scripts that read or write the push target's credentials get a seventeenth key, under
-- another prefix so that no role's pattern of the queue's keys reaches it:
--   KEYS[17] dqs:{q}:push string the header values and secrets (cmsgpack), write-only
-- A zset member is the message's SEQ_LEN-character sequence key followed by the caller's id, or
-- just the sequence key when the id was generated (then the id is the sequence key). The
-- sequence key sorts in send order, so messages due in the same millisecond leave in send order.
-- K names them for the helpers. bind_keys fills it in, first thing in every operation: in the
-- function library the helpers are defined once, before any call's KEYS exist. One call runs at
-- a time, and each binds all of them (the seventeenth nil when not given), so nothing of a call
-- before remains. A script starts with `if not bind_keys(KEYS, n) then return bad_argument() end`.
local K = {}
-- False when the call did not give exactly `count` keys (16, or 17 with the write-only key): a
-- missing key would be nil in K, an extra one a sign of another contract.
local function bind_keys(keys, count)
    if #keys ~= count then return false end
    K.msg, K.pending, K.inflight, K.dead = keys[1], keys[2], keys[3], keys[4]
    K.err, K.stats, K.wake, K.cold, K.blocks = keys[5], keys[6], keys[7], keys[8], keys[9]
    K.blockidx, K.settings, K.lateness = keys[10], keys[11], keys[12]
    K.schedules, K.schedclaims, K.push, K.history = keys[13], keys[14], keys[15], keys[16]
    K.pushsecret = keys[17]
    return true
end
