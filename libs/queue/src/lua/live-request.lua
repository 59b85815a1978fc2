-- A live request of a key, made by a script beside the queue (the watcher's fold of a burst of watch events)
-- in its own call: liveRequestSettled(jobPrefix, key, now, windowMs, merge) answers how the request is
-- settled there, and whether it would find no pending job to merge into (coverAt's second answer). Settled
-- 'covered': the key's job covers it (the queue's cover rule); 'merged' (with `merge` only): it was merged
-- into the key's pending job (delayed, waiting, or stored behind the active one), as merge.lua's request mode
-- would merge it, moving that job earlier or raising its priority as the request asks; false: not settled,
-- the caller requests it. A request merged here carries no reasons, resourceVersion nor trace contexts (a
-- live request made by the watcher carries none but the last, which the caller keeps by not asking for the
-- merge).
-- @include merge-job
local function liveRequestSettled(jobPrefix, key, now, windowMs, merge)
  local jobId = redis.call('GET', jobPrefix .. BULL_DEDUP .. key)
  local dnKey = jobPrefix .. BULL_DEDUP_NEXT .. key
  local covered, nothingPending = coverAt(jobPrefix, jobId, dnKey, now, windowMs, LIVE_PRIORITY)
  if covered then return 'covered', false end
  if nothingPending or not merge then return false, nothingPending end
  local due = now + windowMs
  local inc = { source = 'live', firstRequestedAt = now, dueAt = due }
  local outcome = mergeInto(queueKeysOf(jobPrefix, key), jobId, inc, due, LIVE_PRIORITY, now, false)
  if outcome == 'merged' then return 'merged', false end
  return false, false
end
