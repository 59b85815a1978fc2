-- Expectations: KEYS[1] pods hash, KEYS[2] expectations hash; ARGV: now, ttlMs, kind ('c'|'d'), the epoch
-- counters of the pods streams that may cover the key (all namespaces, its namespace), names...
-- The counters are arguments, not KEYS: Redis checks declared keys as written, and a worker's Redis user
-- may only read them (they share the pods key's hash tag, so Cluster routes them alike).
-- A name already shown as the worker expects it (created: present or a tombstone; deleted: absent, a
-- tombstone, or deleting) is not recorded: its event came first and will not come again.
-- Recorded as kind, expiry (ms), tab, the pods stream's epoch now: a relist begun later (a higher epoch)
-- that does not list a created pod ends the wait (sweep.lua).
local now, ttl, what = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local epoch = math.max(tonumber(redis.call('GET', ARGV[4]) or '0'), tonumber(redis.call('GET', ARGV[5]) or '0'))
local n = 0
for i = 6, #ARGV do
  local name = ARGV[i]
  local cur = redis.call('HGET', KEYS[1], name)
  local seen
  -- A create shows as any entry of the name, a tombstone too: the pod came (and went) before this call.
  if what == 'c' then seen = cur ~= false
  else seen = cur == false or isTombstone(cur) or podDeleting(cur) end
  if not seen then
    redis.call('HSET', KEYS[2], name, what .. (now + ttl) .. '\t' .. epoch)
    n = n + 1
  end
end
if n > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return n
