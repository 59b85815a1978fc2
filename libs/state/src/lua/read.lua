-- Read: KEYS[1] PodSet, KEYS[2] pods, KEYS[3] expectations, KEYS[4] ready marker; ARGV[1] now.
-- Expired expectations and tombstones are dropped; tombstones are not returned.
-- Returns {ready, podset ('' when none), pod name, pod entry, ..., '', pending names...}.
local now = tonumber(ARGV[1])
local podset = redis.call('GET', KEYS[1]) or ''
if isTombstone(podset) then podset = '' end
local out = { redis.call('EXISTS', KEYS[4]), podset }
local pods = redis.call('HGETALL', KEYS[2])
for i = 1, #pods, 2 do
  local v = pods[i + 1]
  local nl = string.find(v, '\n', 1, true)
  if not nl then
    out[#out + 1] = pods[i]
    out[#out + 1] = v
  elseif tonumber(string.sub(v, nl + 1)) <= now then
    redis.call('HDEL', KEYS[2], pods[i])
  end
end
out[#out + 1] = ''
local exp = redis.call('HGETALL', KEYS[3])
for i = 1, #exp, 2 do
  if expectationExpiry(exp[i + 1]) <= now then redis.call('HDEL', KEYS[3], exp[i])
  else out[#out + 1] = exp[i] end
end
return out
