-- Limits the C++ code shares (src/validate.hpp, src/keys.cpp).
-- Messages, leases or dead letters per script call.
local MAX_BATCH = 1000
-- Characters of a sequence key.
local SEQ_LEN = 14
-- 9999-12-31T23:59:59.999Z in unix ms: later times are refused.
local MAX_TIME_MS = 253402300799999
