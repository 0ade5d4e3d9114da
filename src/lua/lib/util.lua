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

-- string.find as an upvalue: `s:find` looks it up through the string metatable on every call.
-- Taken from a string's methods, not from the global `string`: a function library's load runs
-- without the globals (FUNCTION LOAD), where a string's methods are there.
local str_find = ('').find

-- Parses a non-negative integer argument up to MAX_TIME_MS; nil when it is not one or is
-- missing. Only decimal digits, as the client formats integers: tonumber also took a sign
-- ("-0"), an exponent ("1e3"), hex ("0x10"), blanks, "nan" and "inf", forms no client sends
-- (scripts/args tests). MAX_TIME_MS has 15 digits.
-- Kept cheap, as a send checks four or five per run and a run of own due times one per message
-- (docs/benchmarks.md, argument checks): '0' and '1' (a one-message run's count, most runs'
-- max_attempts and expiry) are one comparison each, Lua interning short strings; the digits
-- convert by arithmetic, which reads them once where tonumber read them twice; and no type(),
-- whose call cost 700 instructions. An argument is a string, or nil when missing: anything
-- else, which no caller has, fails at `#` or find with an error, which refuses the call too.
local function uint(s)
    if s == '0' then return 0 end
    if s == '1' then return 1 end
    if not s or #s > 15 or not str_find(s, '^%d+$') then return nil end
    local n = s + 0
    if n > MAX_TIME_MS then return nil end
    return n
end

-- uint, or -1 for none (a time the client has not got).
local function uint_or_none(s)
    if s == '-1' then return -1 end
    return uint(s)
end

-- A number argument the client formats with std::to_chars (a setting's double, a push rate):
-- decimal, an exponent allowed; nil for hex, blanks, nan and inf, which tonumber takes.
local function decimal(s)
    if type(s) ~= 'string' or #s > 32 or not str_find(s, '^%-?[%d.]+[eE]?[-+]?%d*$') then
        return nil
    end
    local n = tonumber(s)
    if n == nil or n ~= n or n == math.huge or n == -math.huge then return nil end
    return n
end

-- Whether a text is printable ASCII (no control characters, no bytes >= 0x7f), 1 to max bytes;
-- with `braces` false, without { and } (a Redis Cluster hash tag). The shape of an id, a name,
-- a URL, as the client validates them (validate_text). A string or nil, as for uint: a caller id
-- of a send is checked per message.
local function printable(s, max, braces)
    if not s or #s < 1 or #s > max then return false end
    if braces then return not str_find(s, '[^ -~]') end
    return not str_find(s, '[^ -z|~]')
end

-- A message id as the client validates one (validate_id): an id no message can have is a
-- caller's mistake, not a message that is not found.
local function is_id(s)
    return printable(s, MAX_NAME_BYTES, false)
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
