-- appendRecords(stream, args, at): args[at] is the stream's cap (MAXLEN ~), then per record its field count
-- and fields, to the end of args. XADDs them in order; returns their entry ids.
local function appendRecords(stream, args, at)
  local ids, i = {}, at + 1
  while i <= #args do
    local n = tonumber(args[i])
    ids[#ids + 1] = redis.call('XADD', stream, '*', unpack(args, i + 1, i + n))
    i = i + n + 1
  end
  -- Trimmed once for the batch: the cap is approximate anyway (MAXLEN ~).
  redis.call('XTRIM', stream, 'MAXLEN', '~', args[at])
  return ids
end
