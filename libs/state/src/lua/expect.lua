-- Expectations: KEYS[1] pods hash, KEYS[2] expectations hash; ARGV: now, ttlMs, kind ('c'|'d'), the epoch
-- counters of the pods streams that may cover the key (all namespaces, its namespace), quiet ('1' or '2':
-- the creating pass needs no follow-up once they show as made; see below and entry.lua), creates to reserve
-- (pending units, entry.lua: '0' none), creates to release ('' releases none; a count releases that many
-- and one per name recorded here), names...
-- The counters are arguments, not KEYS: Redis checks declared keys as written, and a worker's Redis user
-- may only read them (they share the pods key's hash tag, so Cluster routes them alike).
-- A name already shown as the worker expects it (created: present or a tombstone; deleted: absent, a
-- tombstone, or deleting) is not recorded: its event came first and will not come again.
-- Recorded as kind, expiry (ms), tab, the pods stream's epoch now: a relist begun later (a higher epoch)
-- that does not list a created pod ends the wait (sweep.lua).
-- A counter that is not a whole number of at most 15 digits was not made by the watcher (INCR): out of
-- bounds. Then the expectation carries NEVER_SWEPT, an epoch no relist reaches, so no sweep ends its wait
-- early (which could create its pod twice): it holds until it expires.
-- Returns {names recorded, epoch counters out of bounds, 1 when a release found fewer units left (below)}.
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
for i = 9, #ARGV do
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
-- Creates the pass needs no follow-up of: ARGV[6] '1', the pass's first write (its reservation), notes them so; '2', a
-- later batch of the same pass, keeps the note only if it still stands (a fold that found one of the
-- earlier pods moved on dropped it, and that change is owed a request); any other record drops it (a
-- delete is never quiet; a pass that needs more must be requested).
local quiet = what == 'c' and ARGV[6] or '0'
if quiet == '1' then redis.call('HSET', KEYS[2], QUIET_FIELD, 'q' .. (now + ttl))
elseif quiet ~= '2' then redis.call('HDEL', KEYS[2], QUIET_FIELD) end
-- Pending units (creates only). A pass reserves one per create before its first batch: an ADDED folded
-- before its name is recorded takes one (fold.lua). Each record then releases the units of the names it
-- records (their ADDEDs are yet to come, and will meet them by name) and of creates that were not made
-- (failed, cancelled, left to the next pass); a name already shown is not recorded and took its unit.
-- One call: the release costs no round trip of its own. Never below 0; dropped at 0.
-- Released more than is left: an ADDED not of this pass took a unit (another's pod, met as awaited and so
-- requesting nothing), or the units expired or a relist dropped them. Then the creates are no longer quiet
-- (the note goes, so the last of them requests), and the caller hears it (a pass whose events all came
-- already asks for the next pass itself).
local reserve, release = tonumber(ARGV[7]) or 0, tonumber(ARGV[8])
local over = 0
if what == 'c' and (reserve > 0 or release) then
  local v = redis.call('HGET', KEYS[2], PENDING_FIELD)
  local count = pendingCount(v, now)
  local expiry = tonumber(string.match(v or '', '^n(%d+)\t') or '0')
  -- Units are needed only while the pass sends its creates: they hold PENDING_TTL_MS from the reservation
  -- and from each record that leaves some, so those a dead worker left stop holding requests back soon.
  if reserve > 0 then count, expiry = count + reserve, now + math.min(ttl, PENDING_TTL_MS) end
  if release then
    count = count - release - n
    if count < 0 then
      over, count = 1, 0
      redis.call('HDEL', KEYS[2], QUIET_FIELD)
    elseif count > 0 then
      expiry = now + math.min(ttl, PENDING_TTL_MS)
    end
  end
  setPending(KEYS[2], count, expiry)
end
if n > 0 or reserve > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return { n, unbounded, over }
