-- A stored entry: epoch \t rv \t payload — the payload is `tag \t` (projection.ts made the tag; stored
-- verbatim) and a pod's fields (never a raw tab inside one) or a PodSet's JSON.
-- A deleted object leaves a tombstone, epoch \t rv \n expiry (ms), for TOMBSTONE_TTL_MS: a late older event
-- of it (one still on its way when a newer DELETED was folded) must not bring it back. Neither a pod's
-- fields nor JSON ever hold a raw newline, so the newline marks a tombstone.
-- KEYS[1] the hash (pods) or string (PodSet) key, KEYS[2] the expectations hash (pods; unused for PodSets),
-- KEYS[3] the index of keys with entries (for the sweep), KEYS[4] the inputs last *requested* per object,
-- KEYS[5] the other half of the key's state (a pod: the PodSet's entry; a PodSet: its pods hash): pod
-- tombstones under a PodSet that is gone must not outlive it.
-- ARGV: kind ('pod'|'podset'), type, field (pod name; '@ps' for the PodSet), epoch, rv, inputs digest,
-- payload, the PodSet key, '1' when the fold's request is made anyway (a relist requests every key), now
-- (ms) and the tombstone's ttl (ms).
-- Returns 1 when a reconcile is owed: the inputs differ from those last requested (or the object went); 3
-- when it is owed for a pod's status half alone (inputsChange: its phase or readiness), which the watcher may
-- request after a short delay; 0 when none is.
-- The answer is against what was *requested*, not what was folded, because a fold and its request are
-- two steps: when the request fails, the watch re-delivers the event, and its fold must ask again.
-- Uses olderThanStored and listedOverStored (stored.lua), isTombstone, podDeleting and inputsChange (entry.lua).
-- `touched` (optional; fold-each.lua's, one per call): the PodSet keys this call has already put in the
-- index, and those whose pods hash it has already made persistent, so that a burst of one key's events adds
-- and persists once, as fold-listed.lua does. A DELETED event of the key undoes both (SREM, PEXPIRE), so
-- it forgets the key there: the next event of it in the call touches them again. And the keys whose
-- expectations hash it found empty: a fold only removes expectations, so it stays empty for the call, and
-- their pods' events need not look for one each.
-- Unexpired expectations left in the hash (expired ones are dropped).
-- @include entry
-- @include stored
local function awaiting(key, now)
  local all = redis.call('HGETALL', key)
  local n = 0
  for i = 1, #all, 2 do
    if all[i] == QUIET_FIELD then -- a note, not an expectation
    elseif all[i] == PENDING_FIELD then -- creates not yet named: each one awaited
      local units = pendingCount(all[i + 1], now)
      if units == 0 then redis.call('HDEL', key, all[i]) else n = n + units end
    elseif expectationExpiry(all[i + 1], now) <= now then redis.call('HDEL', key, all[i]) else n = n + 1 end
  end
  return n
end
local function fold(K, A, touched)
  local kind, typ, field, epoch, rv, inputs, payload = A[1], A[2], A[3], A[4], A[5], A[6], A[7]
  touched = touched or { indexed = {}, persisted = {}, noExpectations = {} }
  local requestedAnyway = A[9] == '1'
  local now, tombTtl = tonumber(A[10]), tonumber(A[11])
  local older, stored
  -- A relisted object (its request made anyway) replaces what is stored; a watch event only an older version.
  if requestedAnyway then epoch, older = listedOverStored(kind, K[1], field, epoch)
  else epoch, older, stored = olderThanStored(kind, K[1], field, epoch, rv) end
  if older then return 0 end
  local requested = redis.call('HGET', K[4], field)
  if typ == 'DELETED' then
    touched.indexed[A[8]], touched.persisted[A[8]] = nil, nil
    local tombstone = epoch .. '\t' .. rv .. '\n' .. (now + tombTtl)
    if kind == 'pod' then
      redis.call('HSET', K[1], field, tombstone)
      -- A pod gone is no create as made: the pass after it is owed.
      redis.call('HDEL', K[2], field, QUIET_FIELD)
      -- Nothing reads or sweeps the pods of a PodSet that is gone (its state was forgotten): let them go.
      local ps = redis.call('GET', K[5])
      if not ps or isTombstone(ps) then redis.call('PEXPIRE', K[1], tombTtl) end
    else
      redis.call('SET', K[1], tombstone, 'PX', tombTtl)
      redis.call('SREM', K[3], A[8])
      redis.call('PEXPIRE', K[5], tombTtl)
      -- What a worker awaited was of this PodSet: one created again under its name must not wait for it.
      redis.call('DEL', K[2])
    end
    if requestedAnyway then redis.call('HDEL', K[4], field) return 0 end
    if requested then return 1 end
    return 0
  end
  local value = epoch .. '\t' .. rv .. '\t' .. payload
  -- A deleting pod of a PodSet that is gone (its tombstone stored, or its state forgotten: no entry and the
  -- key out of the index, as the worker's cleanup leaves them) comes when its watch lags the PodSet's: it is
  -- kept, to order its DELETED, but not indexed and its hash left to expire, or it would bring the PodSet's
  -- state back for good. A live pod is kept as ever: it may be a re-created PodSet's, seen before that
  -- PodSet's own event.
  local orphanedDeleting = false
  if kind == 'pod' and podDeleting(value) then
    local ps = redis.call('GET', K[5])
    if ps then orphanedDeleting = isTombstone(ps)
    else orphanedDeleting = redis.call('SISMEMBER', K[3], A[8]) == 0 end
  end
  if not touched.indexed[A[8]] and not orphanedDeleting then
    redis.call('SADD', K[3], A[8])
    touched.indexed[A[8]] = true
  end
  if kind == 'pod' then
    -- A create shows as the pod; a delete as its deletionTimestamp (or its DELETED event, above).
    local exp
    local noExpectations = touched.noExpectations[A[8]]
    if noExpectations == nil then
      noExpectations = redis.call('EXISTS', K[2]) == 0
      touched.noExpectations[A[8]] = noExpectations
    end
    if not noExpectations then exp = redis.call('HGET', K[2], field) end
    -- A pod first seen, not awaited by name, while a worker's creates are pending (entry.lua): one of them
    -- whose name is not recorded yet. It takes a unit and is met as a named create. (Another's pod takes
    -- one too: then one of the worker's own finds none and requests, or the worker's record finds one too
    -- few, drops the quiet note and its pass asks for the next one: expect.lua. A pass still follows.)
    if not exp and not noExpectations and not requestedAnyway and typ == 'ADDED' and not stored then
      local v = redis.call('HGET', K[2], PENDING_FIELD)
      local units = pendingCount(v, now)
      if units > 0 then
        setPending(K[2], units - 1, tonumber(string.match(v, '^n(%d+)\t')))
        exp = 'c'
      elseif v then
        redis.call('HDEL', K[2], PENDING_FIELD)
      end
    end
    redis.call('HSET', K[1], field, value)
    -- (Not when this call kept a live pod of the key: that one holds the hash.) It owes nothing: a pass of
    -- a PodSet that is gone has nothing to do, and its request would leave a record nothing clears.
    if orphanedDeleting then
      if not touched.persisted[A[8]] then redis.call('PEXPIRE', K[1], tombTtl) end
      return 0
    elseif not touched.persisted[A[8]] then
      redis.call('PERSIST', K[1])
      touched.persisted[A[8]] = true
    end
    if exp then
      local what = string.sub(exp, 1, 1)
      if what == 'c' or podDeleting(value) then
        -- The worker's note that its pass needs no follow-up holds only while every create it awaits shows
        -- as made (entry.lua): a delete, or a pod already moved on, drops it, and then the last one requests.
        local quiet = not requestedAnyway and what == 'c' and podAsCreated(value) and quietNoted(K[2], now)
        if quiet then redis.call('HDEL', K[2], field)
        else redis.call('HDEL', K[2], field, QUIET_FIELD) end
        -- The worker plans again only once all its creates and deletes show, so one that shows while others
        -- are awaited requests nothing: the last one's request covers it (recorded as requested with it).
        if not requestedAnyway and awaiting(K[2], now) > 0 then
          redis.call('HSET', K[4], field, inputs)
          return 0
        end
        -- The last of a pass's creates that needs no follow-up: what a pass would find now, the pass that
        -- made them wrote already (or its job is retried), so it requests nothing, as an own status write.
        -- The note stays: a later batch of the same pass keeps it; any other record sets or drops it.
        if quiet then
          redis.call('HSET', K[4], field, inputs)
          return 0
        end
      end
    end
  else
    redis.call('SET', K[1], value)
  end
  if requestedAnyway then redis.call('HSET', K[4], field, inputs) return 0 end
  -- An event that meets a worker's last expectation is a plan change (a pod first seen, or its deletion).
  local change = inputsChange(requested, inputs)
  if change == 'none' then return 0 end
  if change == 'status' then return 3 end
  return 1
end
