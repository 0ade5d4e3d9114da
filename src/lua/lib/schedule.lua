-- Recurring schedules (KEYS[13] schedules, KEYS[14] schedclaims; docs/design.md, Schedules).
-- The client computes every occurrence instant (cron and time zones are C++'s, from the system's
-- tzdata); these scripts only store instants, claim them and send their messages, so that
-- hosts with different tzdata cannot disagree about what was claimed.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

-- A schedule's record: a msgpack map. The spec as the client gave it: kind ('cron' | 'every'),
-- expr (the cron text, or the interval in ms as digits), tz, payload, max (max_attempts),
-- exp (expire_after ms), start and stop (ms, -1 for none), runs_max (0 for none), overlap
-- ('allow' | 'skip'), catch ('none' | 'one' | 'all'), hash (the client's digest of all of
-- these, which upsert compares). Its state: anchor, created, updated (ms); paused (0 | 1);
-- next, the next occurrence not yet sent (ms, -1 when the schedule ended); ahead and ahead_id,
-- the last occurrence sent and its message, and prev and prev_id the one before (-1 and ''
-- for none); runs, missed, skipped (counts).
local SCHEDULE_SPEC = {'kind', 'expr', 'tz', 'payload', 'max', 'exp', 'start', 'stop',
                       'runs_max', 'overlap', 'catch', 'hash'}

-- The longest cron text, zone, spec hash or id prefix a script takes: far above any valid one.
local SCHEDULE_TEXT_MAX = 4096

-- A schedule's name as the client validates it (validate_schedule_name): printable ASCII
-- without braces or spaces.
local function is_schedule_name(name)
    return printable(name, MAX_SCHEDULE_NAME_BYTES, false) and not name:find(' ')
end

-- An occurrence's id prefix: followed by an instant (at most 15 digits up to MAX_TIME_MS), a
-- message id.
local function is_id_prefix(prefix)
    return is_id(prefix) and #prefix + 15 <= MAX_NAME_BYTES
end

local function schedule_read(name)
    local raw = redis.call('HGET', K.schedules, name)
    if not raw then return nil end
    return cmsgpack.unpack(raw)
end

local function schedule_write(name, s)
    redis.call('HSET', K.schedules, name, cmsgpack.pack(s))
end

-- The spec's values in SCHEDULE_SPEC's order, as the get, list and poll replies carry them.
local function schedule_spec_values(s, out)
    for _, field in ipairs(SCHEDULE_SPEC) do out[#out + 1] = s[field] end
    return out
end

-- Where a message is: 'pending' (scheduled or ready), 'in_flight', 'dead' (with its reason),
-- or 'gone' when there is no such message.
local function message_state(id)
    if id == '' then return 'none', '' end
    local rec = find_record(id)
    if not rec then return 'gone', '' end
    local m = decode(rec)
    if m.token ~= 0 then return 'in_flight', '' end
    if redis.call('ZSCORE', K.pending, member_of(id, m)) then return 'pending', '' end
    return 'dead', m.reason
end

-- The layout check of a script that sends occurrences (a queue of the former layout is marked
-- first), with the settings' sequence counter read in the same command: the counter as
-- send_occurrence takes it, then an error reply when the queue's layout is another.
local function occurrence_layout()
    local meta = redis.call('HMGET', K.settings, 'layout', 'seq')
    return meta[2], layout_error(meta[1], true)
end

-- Sends the message of an occurrence: due at `due`, with a caller id, its record in msg (or
-- cold when due more than COLD_AFTER_MS after now), as send.lua stores one. False when the id
-- exists already (the occurrence was sent before: nothing changes). `seq` is the settings'
-- counter as read with the layout, or the value the previous call returned.
local function send_occurrence(s, id, due, now, now_us, seq)
    if find_record(id) then return false, seq end
    local first = take_seq(1, seq, now_us)
    local member = seq_key(first) .. id
    local expire = 0
    if s.exp > 0 then expire = due + s.exp end
    local hash = K.msg
    if due - now > COLD_AFTER_MS then hash = K.cold end
    local head = head_due()
    redis.call('HSET', hash, id, with_due(due, cmsgpack.pack(s.max, expire, member, s.payload)))
    redis.call('ZADD', K.pending, str(due), member)
    redis.call('HINCRBY', K.stats, 'sent', '1')
    wake_if_earlier(head, due, now)
    return true, str(first)
end

-- Deletes the occurrence sent ahead while it is still scheduled (not yet due, not leased): what a
-- changed spec, a pause and a removal do. An occurrence already due is left to run: it fell
-- due under the spec it was sent with.
local function cancel_ahead(s, now)
    if s.ahead_id == '' or s.ahead <= now then return false end
    local rec, hash = find_record(s.ahead_id)
    if not rec then return false end
    local m = decode(rec)
    if m.token ~= 0 then return false end
    local member = member_of(s.ahead_id, m)
    local score = redis.call('ZSCORE', K.pending, member)
    if not score or tonumber(score) <= now then return false end
    redis.call('ZREM', K.pending, member)
    redis.call('HDEL', hash, s.ahead_id)
    redis.call('HDEL', K.err, s.ahead_id)
    redis.call('HINCRBY', K.stats, 'cancelled', '1')
    return true
end

-- When a scheduler must next claim for the schedule: with overlap allow, once the occurrence
-- sent ahead falls due (it then sends the next one ahead); with skip, at the next occurrence's
-- own instant (whether the previous one still runs can only be told then). Absent when paused
-- or ended. Returns that time, or -1.
local function schedule_claim_at(name, s)
    local at = nil
    if s.paused == 0 and s.next >= 0 then
        at = s.next
        if s.overlap == 'allow' and s.ahead >= 0 and s.ahead < s.next then at = s.ahead end
    end
    if at then
        redis.call('ZADD', K.schedclaims, str(at), name)
        return at
    end
    redis.call('ZREM', K.schedclaims, name)
    return -1
end

-- The next instant a message of the schedule falls due, as get and list report it: the
-- occurrence sent ahead while it is in the future, else the next one; -1 when paused or ended.
local function schedule_next_due(s, now)
    if s.paused == 1 then return -1 end
    if s.ahead > now then return s.ahead end
    return s.next
end
