-- The layout version of the key layout and record format, in the settings hash (KEYS[11], see
-- lib/keys.lua): what every script checks first.
-- @include lib/constants.lua
-- @include lib/keys.lua

-- The version of the key layout and record format these scripts read and write. A queue records
-- it with its first send; a client of another version is refused with a clear error instead of
-- misreading (and then rewriting) records it does not know, e.g. during a rolling upgrade.
local LAYOUT = LAYOUT_VERSION .. ''

-- An error reply when `layout` (the queue's recorded version, or nil for none yet) is not
-- LAYOUT; nil when the queue can be used.
local function layout_error(layout)
    if layout and layout ~= LAYOUT then
        return redis.error_reply('ERR delayq layout: the queue has layout version ' .. layout
            .. ' and this client speaks version ' .. LAYOUT
            .. '; run one version of delayq on a queue')
    end
    return nil
end

local function check_layout()
    return layout_error(redis.call('HGET', K.settings, 'layout'))
end
