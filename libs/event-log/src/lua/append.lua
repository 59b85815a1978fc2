-- KEYS[1] the stream. ARGV: MAXLEN, then per record its field count and fields. Returns the entry ids.
local ids, i = {}, 2
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  ids[#ids + 1] = redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
-- Trimmed once for the batch: the cap is approximate anyway (MAXLEN ~).
redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[1])
return ids
