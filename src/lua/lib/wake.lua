-- The heads of the queue's sets and the wake signal for sleeping consumers.
-- @include lib/keys.lua
-- @include lib/util.lua

-- The lowest score of a zset (the next due time, or the next lease deadline), or nil.
local function head_score(zset)
    local h = redis.call('ZRANGE', zset, '0', '0', 'WITHSCORES')
    if h[2] then return h[2] + 0 end  -- a score Redis wrote (see clock in lib/util.lua)
    return nil
end

local function head_due()
    return head_score(K.pending)
end

-- Wakes sleeping consumers when a message became due earlier than everything they wait for.
-- When the head is already due, consumers are busy fetching and need no signal.
local function wake_if_earlier(head, due, now)
    if head == nil or (head > now and due < head) then
        redis.call('SPUBLISH', K.wake, str(due))
    end
end
