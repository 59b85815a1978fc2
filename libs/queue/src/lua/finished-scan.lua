-- KEYS[1] the completed or failed zset. ARGV: job key prefix, job name, min score, how many members at
-- that score were already seen, chunk size. Returns {done, lastScore, seenAtLastScore, examined, ids}.
local rcall = redis.call
local setKey = KEYS[1]
local prefix, name, min = ARGV[1], ARGV[2], ARGV[3]
local skip, limit = tonumber(ARGV[4]), tonumber(ARGV[5])
local batch = rcall('ZRANGEBYSCORE', setKey, min, '+inf', 'WITHSCORES', 'LIMIT', skip, limit)
local ids = {}
local lastScore, seen = min, skip
local n = #batch / 2
for i = 1, #batch, 2 do
  local id, score = batch[i], batch[i + 1]
  if rcall('HGET', prefix .. id, 'name') == name then ids[#ids + 1] = id end
  if score == lastScore then seen = seen + 1 else lastScore = score; seen = 1 end
end
local done = 0
if n < limit then done = 1 end
return {done, lastScore, seen, n, ids}
