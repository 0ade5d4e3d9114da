-- The layout version of the key layout and record format, in the settings hash (KEYS[11], see
-- lib/keys.lua): what every script checks first.
-- @include lib/constants.lua
-- @include lib/keys.lua

-- The version of the key layout and record format these scripts read and write, then the first
-- release that speaks it. A queue records it with its first send; a client of another version is
-- refused with a clear error instead of misreading (and then rewriting) records it does not
-- know, e.g. during a rolling upgrade. The release is in the text because a client of an older
-- layout prints the text it finds: it tells its operator what to upgrade to. Only the leading
-- number is compared (QueueSettings::layout); the text never changes within a layout.
local LAYOUT = LAYOUT_VERSION .. ' (delayq 0.2.0 or later)'
-- The layout these scripts take over in place (design.md, Layout migration): its keys are this
-- layout's, and its records lack the due time, which lib/record.lua then reads from the pending
-- score. A script that may write marks such a queue with LAYOUT first, so that a client of layout
-- 1 is refused before it meets a record it cannot read; scripts that only read leave it.
local FORMER_LAYOUT = '1'

-- An error reply when `layout` (the queue's recorded version, or nil or false for none yet) is
-- neither LAYOUT nor FORMER_LAYOUT; nil when the queue can be used. With `writes`, a queue of
-- FORMER_LAYOUT becomes LAYOUT.
local function layout_error(layout, writes)
    if not layout or layout == LAYOUT then return nil end
    if layout == FORMER_LAYOUT then
        if writes then redis.call('HSET', K.settings, 'layout', LAYOUT) end
        return nil
    end
    return redis.error_reply('ERR delayq layout: the queue has layout version ' .. layout
        .. ' and this client speaks version ' .. LAYOUT .. '; run one version of delayq on a queue')
end

local function check_layout(writes)
    return layout_error(redis.call('HGET', K.settings, 'layout'), writes)
end
