-- fetch_due: what fetch does, for fetch.lua and push_lease.lua (which caps what it leases by
-- the push target's limits): returns lapsed leases to pending (a failed attempt) or to the
-- dead-letter set, dead-letters due messages past their expiry, leases due messages, counts
-- their lateness, and answers fetch's reply (the contract in fetch.lua).
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/blocks.lua
-- @include lib/dead.lua
-- @include lib/wake.lua
-- @include lib/settings.lua
-- @include lib/lateness.lua

-- Expired leases handled per call, to bound the work per call (a string: see str in
-- lib/util.lua).
local SWEEP = '200'

-- settings: read_settings()'s, read first with the layout check. cap: nil, or a function
-- called after the sweep of lapsed leases (so their messages count as pending, not in flight)
-- that answers how many of max_count this call may lease (0: none).
local function fetch_due(max_count, visibility, settings, now, now_us, cap)
    -- The dead events and the deliveries, made by the steps that add some: an idle call makes
    -- no table but its reply (EMPTY in lib/util.lua stands for those it has none for).
    local events, deliveries = nil, nil
    local lease_head = head_score(K.inflight)
    local swept = 0  -- how many lapsed leases this call swept
    if lease_head and lease_head <= now then
        -- Leases that ran out: the consumer crashed, hung or lost its connection.
        local lapsed = redis.call('ZRANGEBYSCORE', K.inflight, '-inf', str(now), 'LIMIT', '0',
                                  SWEEP)
        redis.call('ZREM', K.inflight, unpack(lapsed))
        local retried = 0
        swept, events = #lapsed, {}
        for _, lease in ipairs(lapsed) do
            local id = lease_id(lease)
            local rec = redis.call('HGET', K.msg, id)
            local m = rec and decode(rec)
            -- A lease whose record is gone or has moved on (data loss) is an orphan.
            if not m or m.token == 0 or lease_of(m.token, id) ~= lease then
                redis.call('HINCRBY', K.stats, 'orphans_removed', '1')
            else
                local member = member_of(id, m)
                local why = 'visibility timeout expired on attempt ' .. m.attempts
                if m.expire > 0 and m.expire <= now then
                    bury(id, m, member, now, 'expired', why, events)
                elseif m.attempts >= max_of(m.max, settings) then
                    bury(id, m, member, now, 'attempts exhausted', why, events)
                else
                    m.token = 0
                    m.due = now
                    redis.call('HSET', K.msg, id, encode(m))
                    redis.call('HSET', K.err, id, why)
                    redis.call('ZADD', K.pending, str(now), member)
                    retried = retried + 1
                end
            end
        end
        if retried > 0 then redis.call('HINCRBY', K.stats, 'retried', retried) end
    end

    -- The due messages, in rank order, without their scores: Redis 7.0 formats every score
    -- WITHSCORES returns with "%.17g" and Lua parses it back, a tenth of a fetch of messages with
    -- their own due times; the records read anyway hold the due times (lib/record.lua).
    local h = redis.call('ZRANGE', K.pending, '0', '0', 'WITHSCORES')
    local head = h[2] and h[2] + 0  -- a score Redis wrote (see clock in lib/util.lua)
    local members = nil
    local paused = settings.paused == 1
    if cap then max_count = cap() end
    if head and head <= now and not paused and max_count > 0 then
        members = redis.call('ZRANGEBYSCORE', K.pending, '-inf', str(now), 'LIMIT', '0', max_count)
    end
    local total = members and #members or 0
    local leased = 0  -- deliveries this call made, each a lease in inflight
    if total > 0 then
        deliveries, events = {}, events or {}
        local ids = {}
        for i = 1, total do
            local member = members[i]
            if #member == SEQ_LEN then ids[i] = member else ids[i] = member:sub(SEQ_LEN + 1) end
        end
        local recs, where = find_records(ids)
        -- A record without a due time (a block's, or one layout 1 wrote) has it in its score, read
        -- before the members leave pending. has_due (lib/record.lua), inlined with a local
        -- string.byte: this loop meets every delivered record.
        local byte = string.byte
        local undated = nil  -- index -> its score, for the records without a due time
        for i = 1, total do
            local rec = recs[i]
            if rec and byte(rec, 1) ~= DUE_TAG then
                undated = undated or {}
                undated[i] = true
            end
        end
        if undated then
            local at, named = {}, {}
            for i in pairs(undated) do
                at[#at + 1], named[#named + 1] = i, members[i]
            end
            local got = redis.call('ZMSCORE', K.pending, unpack(named))
            for k, i in ipairs(at) do undated[i] = tonumber(got[k]) end
        end
        -- The due messages are the lowest ranks, so removing by rank spares Redis a lookup by
        -- member and Lua the members' conversion into arguments.
        redis.call('ZREMRANGEBYRANK', K.pending, '0', tostring(total - 1))
        local left_cold = {}  -- ids whose record moves from cold to msg (delivered or dead)
        local left_blocks = {}  -- block name -> {b, k}: the block, its messages delivered or dead
        local tokens = seq_keys(take_seq(total, settings.seq, now_us), total)
        -- A leased record is the pending one followed by its token (lib/record.lua), appended by
        -- concatenation.
        local TOKEN_HEADER = string.char(0xa0 + SEQ_LEN)  -- msgpack's fixstr header of a token
        -- The open run: its attempt, max_attempts, the index of its count (its due follows), how
        -- many it holds, and its shared due time (nil once each delivery carries its own).
        local run_attempts, run_max, run_at, run_n, run_due = nil, nil, 0, 0, nil
        local hset, zadd, w, d = {}, {}, 0, 0
        -- Lateness (lib/lateness.lua), bucketed and counted once per run of deliveries that share
        -- a due time: late_n of them, late_ms late, in bucket late_b.
        local late_counts, late_sum, late_b = {}, 0, #LATENESS_FIELDS
        local late_due, late_ms, late_n = nil, 0, 0
        local deadline = str(now + visibility)
        for i = 1, total do
            local id, member, rec = ids[i], members[i], recs[i]
            local due, attempts, max, expire, token, member_field, payload, _
            local score = undated and undated[i]
            if rec then
                if not score then
                    -- fields() (lib/record.lua), inlined for the two shapes a first delivery meets.
                    local v1, v2, v3, v4, v5, v6 = cmsgpack.unpack(rec)
                    if v4 == nil then
                        due, attempts, max, expire, token, member_field, payload =
                            v1, 0, v2, 0, 0, '', v3
                    elseif v6 == nil and v5 ~= nil then
                        due, attempts, max, expire, token, member_field, payload =
                            v1, 0, v2, v3, 0, v4, v5
                    else
                        attempts, max, expire, token, due, member_field, _, payload = fields(rec)
                    end
                else
                    attempts, max, expire, token, _, member_field, _, payload = fields(rec)
                    due = score
                end
                if member_field == '' then member_field = id end
                if max == 0 then max = settings.max_attempts end
            end
            -- Delivered or dead, a message leaves cold or its block for msg.
            local from = rec and member_field == member and where and where[i]
            if from == true then
                left_cold[#left_cold + 1] = id
            elseif from then
                local left = left_blocks[from.name] or {b = from, k = 0}
                left.k, left_blocks[from.name] = left.k + 1, left
            end
            if not rec or member_field ~= member then
                -- A member without its record cannot be delivered; count it rather than hide it.
                redis.call('HINCRBY', K.stats, 'orphans_removed', '1')
            elseif expire > 0 and expire <= now then
                local m = decode(rec)
                m.due = due
                bury(id, m, member, now, 'expired', nil, events)
            else
                if token ~= 0 then
                    -- Only after data loss does a pending message still carry a lease: drop it.
                    local m = decode(rec)
                    m.token, m.due = 0, due
                    rec = encode(m)
                elseif score then
                    rec = dated(rec, due)
                end
                attempts = attempts + 1
                if attempts ~= run_attempts or max ~= run_max
                    or (run_due and due ~= run_due and run_n > 1) then
                    if run_at > 0 then deliveries[run_at] = run_n end
                    run_attempts, run_max, run_at, run_n, run_due = attempts, max, d + 3, 0, due
                    deliveries[d + 1] = attempts
                    deliveries[d + 2] = max
                    deliveries[d + 4] = due
                    d = d + 4
                elseif run_due and due ~= run_due then
                    -- A run of one whose next delivery has another due time: from here on each
                    -- delivery carries its own, the first one's after its values.
                    deliveries[run_at + 1] = -1
                    deliveries[d + 1] = run_due
                    d, run_due = d + 1, nil
                end
                if due ~= late_due then
                    if late_n > 0 then
                        late_counts[late_b] = (late_counts[late_b] or 0) + late_n
                        late_sum = late_sum + late_ms * late_n
                    end
                    late_due, late_ms, late_n = due, now - due, 0
                    late_b = lateness_bucket(late_ms, late_b)
                end
                late_n = late_n + 1
                local token_key = tokens[i]
                local lease = token_key .. id
                hset[w + 1] = id
                hset[w + 2] = rec .. TOKEN_HEADER .. token_key
                zadd[w + 1] = deadline
                zadd[w + 2] = lease
                w = w + 2
                deliveries[d + 1] = lease
                deliveries[d + 2] = payload
                d, run_n = d + 2, run_n + 1
                if attempts > 1 then
                    -- A redelivery says why the attempt before failed; a first delivery has no
                    -- error to read, so the usual fetch pays nothing for it.
                    deliveries[d + 1] = redis.call('HGET', K.err, id) or ''
                    d = d + 1
                end
                if not run_due then
                    deliveries[d + 1] = due
                    d = d + 1
                end
            end
        end
        if run_at > 0 then deliveries[run_at] = run_n end
        if #left_cold > 0 then redis.call('HDEL', K.cold, unpack(left_cold)) end
        leave_blocks(left_blocks)
        leased = w / 2
        if w > 0 then
            redis.call('HSET', K.msg, unpack(hset))
            redis.call('ZADD', K.inflight, unpack(zadd))
            redis.call('HINCRBY', K.stats, 'delivered', w / 2)
            late_counts[late_b] = (late_counts[late_b] or 0) + late_n
            lateness_write(late_counts, late_sum + late_ms * late_n)
        end
    end

    -- Retention: every call that adds dead letters trims, so the count bound always holds; an idle
    -- call leaves the age bound to the next call that moves something, and costs one read less.
    local dead_size = (swept > 0 or total > 0) and redis.call('ZCARD', K.dead) or 0
    if dead_size > 0 then
        trim_dead(now, settings.dead_max_count, settings.dead_max_age_ms, dead_size)
    end

    -- What this call moved changes the heads; otherwise the ones read above still hold. A head
    -- at or before now means more is due (the call took max_count, or swept SWEEP leases): call
    -- again at once. Otherwise the caller may sleep until the next head, even after a full
    -- batch.
    if swept > 0 or total > 0 then
        head = head_due()
        if swept > 0 then
            lease_head = head_score(K.inflight)
        elseif leased > 0 and (lease_head == nil or now + visibility < lease_head) then
            -- Only this call's leases joined the inflight set, all with one deadline: a read less
            -- for the usual fetch.
            lease_head = now + visibility
        end
    end
    local next_ms = -1
    -- Paused, the pending messages are not this call's to report: the consumer sleeps until a
    -- resume wakes it (or its idle check), not until their due times.
    if head and not paused then next_ms = head end
    if lease_head and (next_ms == -1 or lease_head < next_ms) then next_ms = lease_head end
    return {now_us, next_ms, deliveries or EMPTY, events or EMPTY}
end
