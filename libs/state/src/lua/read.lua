-- Read: KEYS[1] pods, KEYS[2] expectations; ARGV[1] now, ARGV[2] PodSet key, ARGV[3] ready marker key.
-- The PodSet and the marker are arguments, not KEYS: Redis checks declared keys as written, and a worker's
-- Redis user may only read them (they share the pods key's hash tag, so Cluster routes them alike).
-- Expired expectations and tombstones are dropped; tombstones are not returned. So are expectations out of
-- bounds (boundedExpiry, entry.lua: no worker wrote them), counted.
-- Returns {ready, podset ('' when none), expectations out of bounds, pod name, pod entry, ..., '', pending
-- names...}.
-- @include entry
local now = tonumber(ARGV[1])
local podset = redis.call('GET', ARGV[2]) or ''
if isTombstone(podset) then podset = '' end
local out = { redis.call('EXISTS', ARGV[3]), podset, 0 }
local pods = redis.call('HGETALL', KEYS[1])
for i = 1, #pods, 2 do
  local v = pods[i + 1]
  local nl = string.find(v, '\n', 1, true)
  if not nl then
    out[#out + 1] = pods[i]
    out[#out + 1] = v
  elseif tonumber(string.sub(v, nl + 1)) <= now then
    redis.call('HDEL', KEYS[1], pods[i])
  end
end
out[#out + 1] = ''
local exp = redis.call('HGETALL', KEYS[2])
for i = 1, #exp, 2 do
  -- The quiet note and the pending creates' count (entry.lua) are no expectations: nothing waits for them
  -- (units a crashed worker left never hold a plan; the API's read before acting is what guards creates).
  if exp[i] ~= QUIET_FIELD and exp[i] ~= PENDING_FIELD then
    local expiry = boundedExpiry(exp[i + 1], now)
    if not expiry then out[3] = out[3] + 1 end
    if not expiry or expiry <= now then redis.call('HDEL', KEYS[2], exp[i])
    else out[#out + 1] = exp[i] end
  end
end
return out
