-- Reading a stored entry (entry.ts writes them). podDeleting is the Lua twin of the planner's "terminating"
-- (a deletionTimestamp is set: podLifecycle in libs/reconcile).
-- A deleted object's tombstone is `epoch \t rv \n expiry`: neither a pod's fields nor JSON hold a raw
-- newline. A pod entry is `epoch \t rv \t tag \t phase \t ready \t deletionTimestamp \t ...` (the tag:
-- integrity.ts; base64url, never a tab).
local function isTombstone(entry)
  return string.find(entry, '\n', 1, true) ~= nil
end
local function podDeleting(entry)
  return string.find(entry, '^[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]') ~= nil
end
-- An expectation (expect.lua writes them) is `kind expiry \t epoch`: 'c' or 'd', the ms it holds until, the
-- pods stream's epoch when it was recorded. No worker records one for longer than EXPECTATION_TTL_MS (the
-- twin of projection-reader.ts's), so an expiry further ahead (beyond the clocks' skew), or a value of
-- another shape, was not written
-- by a worker: it is out of bounds, and taken as expired (else it would hold a PodSet's reconciles, its
-- deletion too, for ever).
-- The workers' clocks differ a little (EXPECTATION_CLOCK_SKEW_MS): one recorded by a worker whose clock is
-- ahead must not look out of bounds to another, which would then plan without it and create twice.
local EXPECTATION_TTL_MS = 300000
local EXPECTATION_CLOCK_SKEW_MS = 60000
-- The expiry of a well-formed expectation within bounds; nil for one out of bounds.
local function boundedExpiry(v, now)
  local expiry = tonumber(string.match(v, '^[cd](%d+)\t%d+$') or '')
  if not expiry or expiry > now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS then return nil end
  return expiry
end
-- The ms an expectation holds until: 0 (expired) when out of bounds.
local function expectationExpiry(v, now)
  return boundedExpiry(v, now) or 0
end
-- What an event changed of what a plan reads ('none' | 'status' | 'plan'), from the digest last requested
-- (false: none) and the event's: the twin of entry.ts's inputsChange. A pod's digest is its plan half's 16
-- characters, then its status half's; a digest without a status half is all plan.
local function inputsChange(requested, inputs)
  if requested == inputs then return 'none' end
  if requested and #requested > 16 and #inputs > 16 and string.sub(requested, 1, 16) == string.sub(inputs, 1, 16) then
    return 'status'
  end
  return 'plan'
end
-- A worker's note beside its creates' expectations (expect.lua), `q expiry`: the pass that made them needs no
-- follow-up once they show as created, so the event that meets the last of them requests nothing (fold.lua).
-- No pod name holds '@', so the field is never a pod's.
local QUIET_FIELD = '@q'
-- Whether the key's note is there and unexpired (one further ahead than a worker writes is taken as none).
local function quietNoted(key, now)
  local v = redis.call('HGET', key, QUIET_FIELD)
  if not v then return false end
  local expiry = tonumber(string.match(v, '^q(%d+)$') or '')
  return expiry ~= nil and expiry > now and expiry <= now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS
end
-- Creates a worker is about to send, counted before their names are known (generateName): `n expiry \t
-- count`, reserved by expect.lua before a pass's first batch, released by its records. An ADDED of a name
-- not awaited takes one unit and is met as a named create would be (fold.lua), so one folded before its
-- name is recorded does not ask for a pass of its own. No pod name holds '@'.
local PENDING_FIELD = '@n'
-- Units at most: far above any pass's creates (capped: the planner's maxCreatesPerPass); a value above it
-- was not written by a worker.
local PENDING_MAX = 1000000
-- How long units hold after the reservation or a record that leaves some (expect.lua): a pass's batches come
-- seconds apart; units a worker that died left behind hold back the requests of its key's ADDEDs, and of
-- the last event a named expectation awaits, only this long. The twin of projection-reader.ts's.
local PENDING_TTL_MS = 60000
-- The units a value holds while unexpired and of a worker's shape (expiring no further ahead than a worker
-- writes, at most PENDING_MAX); else 0 (none). The twin of projection-reader.ts's pendingCreates.
local function pendingCount(v, now)
  if not v or #v > 40 then return 0 end
  local expiry, count = string.match(v, '^n(%d+)\t(%d+)$')
  expiry, count = tonumber(expiry or ''), tonumber(count or '')
  if not expiry or not count then return 0 end
  if expiry <= now or expiry > now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS then return 0 end
  if count > PENDING_MAX then return 0 end
  return count
end
-- The key's pending units set to `count` (dropped at 0), holding until `expiry`.
local function setPending(key, count, expiry)
  if count > 0 then redis.call('HSET', key, PENDING_FIELD, string.format('n%d\t%d', expiry, count))
  else redis.call('HDEL', key, PENDING_FIELD) end
end
-- A pod entry as a create leaves it: Pending (or no phase yet), not ready, not being deleted.
local function podAsCreated(entry)
  local phase, ready, deleting = string.match(entry, '^[^\t]*\t[^\t]*\t[^\t]*\t([^\t]*)\t([^\t]*)\t([^\t]*)')
  return (phase == 'Pending' or phase == '') and ready == '0' and deleting == ''
end
