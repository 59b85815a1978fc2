-- Expectations: KEYS[1] pods hash, KEYS[2] expectations hash; ARGV: now, ttlMs, kind ('c'|'d'), the epoch
-- counters of the pods streams that may cover the key (all namespaces, its namespace), quiet ('1' or '2':
-- the creating pass needs no follow-up once they show as made; see below and entry.lua), names...
-- The counters are arguments, not KEYS: Redis checks declared keys as written, and a worker's Redis user
-- may only read them (they share the pods key's hash tag, so Cluster routes them alike).
-- A name already shown as the worker expects it (created: present or a tombstone; deleted: absent, a
-- tombstone, or deleting) is not recorded: its event came first and will not come again.
-- Recorded as kind, expiry (ms), tab, the pods stream's epoch now: a relist begun later (a higher epoch)
-- that does not list a created pod ends the wait (sweep.lua).
-- A counter that is not a whole number of at most 15 digits was not made by the watcher (INCR): out of
-- bounds. Then the expectation carries NEVER_SWEPT, an epoch no relist reaches, so no sweep ends its wait
-- early (which could create its pod twice): it holds until it expires.
-- Returns {expectations recorded, epoch counters out of bounds}.
-- @include entry
local NEVER_SWEPT = '999999999999999'
local function counter(key)
  local v = redis.call('GET', key)
  if not v then return 0 end
  if #v > 15 or not string.match(v, '^%d+$') then return nil end
  return tonumber(v)
end
local now, ttl, what = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local all, one = counter(ARGV[4]), counter(ARGV[5])
local unbounded = (all and 0 or 1) + (one and 0 or 1)
local epoch = NEVER_SWEPT
if unbounded == 0 then epoch = string.format('%d', math.max(all, one)) end
local n = 0
for i = 7, #ARGV do
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
-- Creates the pass needs no follow-up of: ARGV[6] '1', the pass's first record, notes them so; '2', a
-- later batch of the same pass, keeps the note only if it still stands (a fold that found one of the
-- earlier pods moved on dropped it, and that change is owed a request); any other record drops it (a
-- delete is never quiet; a pass that needs more must be requested).
local quiet = what == 'c' and ARGV[6] or '0'
if quiet == '1' then redis.call('HSET', KEYS[2], QUIET_FIELD, 'q' .. (now + ttl))
elseif quiet ~= '2' then redis.call('HDEL', KEYS[2], QUIET_FIELD) end
if n > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return { n, unbounded }
