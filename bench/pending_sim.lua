-- A model of the pending structure under the precision mode's load, to choose issue 28's design
-- before rewriting the scripts (bench/pending_sim.sh runs it; docs/benchmarks.md, Suggestions).
-- Each tick (1 ms of the model's time) sends per_tick messages, each due uniformly 0..10 s
-- later, with a record each; then moves what the mode keeps apart into pending as it comes
-- within 2g ms; then delivers (ZRANGEBYSCORE WITHSCORES, ZREMRANGEBYRANK, HDEL) all that is due.
-- KEYS: pending, later, records. ARGV: mode, g (ms), t0 (ms), ticks, per_tick, seed, prefill
--   mode 'exact':  every message in pending by its due time (today's layout);
--   mode 'bucket': due >= H in a second zset scored by its g-ms bucket, moved by bucket with
--                  an HMGET of the records for the exact due times;
--   mode 'ring':   due >= H appended to one of 16 lists by its g-ms slot as "due..member",
--                  moved by LPOP: no dict insert and no skip-list walk at the send.
--   prefill '1': only sends (the queue's backlog), no moves or deliveries.
-- Keys other than KEYS (the ring lists, H and seq) are named here: a model, not the product.
local mode, g, t0 = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local ticks, per = tonumber(ARGV[4]), tonumber(ARGV[5])
math.randomseed(tonumber(ARGV[6]))
local prefill = ARGV[7] == '1'
local P, L, R = KEYS[1], KEYS[2], KEYS[3]
local LEAD = 2 * g
local H = tonumber(redis.call('GET', 'sim:H') or (t0 + LEAD))  -- all due before H is in pending
local seq = tonumber(redis.call('GET', 'sim:seq') or 0)
local t = t0
for _ = 1, ticks do
    local zp, zl, hs, rings = {}, {}, {}, {}
    for _ = 1, per do
        seq = seq + 1
        local m = string.format('%014x', seq)
        local due = t + math.random(0, 9999)
        local due_s = string.format('%d', due)
        hs[#hs + 1], hs[#hs + 2] = m, due_s
        if mode == 'exact' or due < H then
            zp[#zp + 1], zp[#zp + 2] = due_s, m
        elseif mode == 'ring' then
            local slot = (due - due % g) / g % 16
            local r = rings[slot] or {}
            rings[slot] = r
            r[#r + 1] = due_s .. m
        else
            zl[#zl + 1], zl[#zl + 2] = string.format('%d', due - due % g), m
        end
    end
    for slot, r in pairs(rings) do redis.call('RPUSH', 'sim:ring' .. slot, unpack(r)) end
    redis.call('HSET', R, unpack(hs))
    if #zp > 0 then redis.call('ZADD', P, unpack(zp)) end
    if #zl > 0 then redis.call('ZADD', L, unpack(zl)) end
    if not prefill then
        while mode ~= 'exact' and H <= t + LEAD do
            local n = 0
            if mode == 'ring' then
                local es = redis.call('LPOP', 'sim:ring' .. ((H - g) / g % 16), 1000)
                n = es and #es or 0
                if n > 0 then
                    local z = {}
                    for k = 1, n do z[2 * k - 1], z[2 * k] = es[k]:sub(1, 7), es[k]:sub(8) end
                    redis.call('ZADD', P, unpack(z))
                end
            else
                local ms = redis.call('ZRANGEBYSCORE', L, '-inf', '(' .. string.format('%d', H),
                                      'LIMIT', 0, 1000)
                n = #ms
                if n > 0 then
                    local dues = redis.call('HMGET', R, unpack(ms))
                    local z = {}
                    for k = 1, n do z[2 * k - 1], z[2 * k] = dues[k], ms[k] end
                    redis.call('ZADD', P, unpack(z))
                    redis.call('ZREMRANGEBYRANK', L, 0, n - 1)
                end
            end
            if n < 1000 then H = H + g end
        end
        local due = redis.call('ZRANGEBYSCORE', P, '-inf', string.format('%d', t), 'WITHSCORES',
                               'LIMIT', 0, 1000)
        if #due > 0 then
            redis.call('ZREMRANGEBYRANK', P, 0, #due / 2 - 1)
            local ids = {}
            for k = 1, #due, 2 do ids[#ids + 1] = due[k] end
            redis.call('HDEL', R, unpack(ids))
        end
        t = t + 1
    end
end
redis.call('SET', 'sim:H', string.format('%d', H))
redis.call('SET', 'sim:seq', seq)
return t
