-- Numbers, the server's clock and argument checks: what every script needs.
-- @include lib/constants.lua

-- An empty table for a reply's empty array, so that a call with nothing to report makes none.
-- Never written: a table the call fills must be its own.
local EMPTY = {}

-- Formats an integer for a command argument: Lua's default "%.14g" would round 15-digit times.
-- Constant command arguments are written as strings ('0', '1'): Lua formats a number argument
-- with sprintf("%.14g"), about 5,200 instructions each (callgrind). "%d" formats through a C
-- long, 2,600, where "%.0f" took glibc's multi-precision float path, 5,300: a send pays it once
-- per message that has its own due time. Every caller passes integers (times, counts,
-- sequence numbers), all below 2^53.
local function str(n)
    return string.format('%d', n)
end

-- Formats any number so that it reads back as the same double: the shortest of 14 to 17
-- significant digits that does. tostring keeps 14, which misreported a setting of more
-- (a jitter of 0.55357342284815381, a 15-digit duration) as another value than the one in force.
local function exact_str(n)
    for digits = 14, 16 do
        local s = string.format('%.' .. digits .. 'g', n)
        if tonumber(s) == n then return s end
    end
    return string.format('%.17g', n)
end

-- Returns the Redis server's time as unix milliseconds and as unix microseconds. The digits
-- Redis replies are converted by arithmetic (`+ 0`), which reads a string once, where tonumber
-- reads it twice (lua_isnumber, then lua_tonumber: two strtod) and is a global looked up through
-- the function library's globals table; `% 1000` instead of math.floor, for the same reason.
-- Only for numbers Redis wrote: arithmetic raises an error on text that is not one.
local function clock()
    local t = redis.call('TIME')
    local s, us = t[1] + 0, t[2] + 0
    return s * 1000 + (us - us % 1000) / 1000, s * 1000000 + us
end

-- Parses a non-negative integer argument up to MAX_TIME_MS; nil when it is not one.
local function uint(s)
    local n = tonumber(s)
    if n == nil or n < 0 or n % 1 ~= 0 or n > MAX_TIME_MS then return nil end
    return n
end

local function bad_argument()
    -- A fixed text: user data never goes into an error reply.
    return redis.error_reply('ERR delayq: bad script argument')
end

-- A delay that passed the client's checks can still land after MAX_TIME_MS once added to the
-- server's now; only the server can tell, and it says so.
local function due_too_late()
    return redis.error_reply('ERR delayq: the due time would fall after the year 9999')
end
