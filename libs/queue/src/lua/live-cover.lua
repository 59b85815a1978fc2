-- Defines coversLive (the rule; live-cover.ts's liveCovers is its twin) and liveRequestCovered(jobPrefix,
-- key, now, windowMs) (live-cover.ts says when a request is covered). Includes LIVE_PRIORITY, the queue's
-- priority of a live request, and the key names of KEYSPACE_LUA (libs/redis keyspace.ts).
-- @include live-priority
-- @include keyspace

-- where: 'waiting', 'delayed' (due: when, ms) or 'next' (stored behind the active job; due: its delay from
-- that job's end). windowMs: the delay the request would ask for (0: due at once).
local function coversLive(where, priority, due, now, windowMs)
  if priority <= 0 or priority > LIVE_PRIORITY then return false end
  if where == 'waiting' then return true end
  if where == 'delayed' then return due <= now + windowMs end
  if where == 'next' then return due <= windowMs end
  return false
end

-- A second answer, true, says a request would find no pending job to merge into (merge.lua's request mode
-- would answer 'absent' or 'active'): the key has no job at all, or only its active one with no next job
-- stored behind it.
local function liveRequestCovered(jobPrefix, key, now, windowMs)
  local jobId = redis.call('GET', jobPrefix .. BULL_DEDUP .. key)
  if not jobId then return false, true end
  local score = redis.call('ZSCORE', jobPrefix .. BULL_PRIORITIZED, jobId)
  if score then return coversLive('waiting', math.floor(tonumber(score) / 0x100000000), 0, now, windowMs) end
  score = redis.call('ZSCORE', jobPrefix .. BULL_DELAYED, jobId)
  if score then
    local priority = tonumber(redis.call('HGET', jobPrefix .. jobId, 'priority')) or 0
    return coversLive('delayed', priority, math.floor(tonumber(score) / 0x1000), now, windowMs)
  end
  if not redis.call('LPOS', jobPrefix .. BULL_ACTIVE, jobId) then return false end
  local opts = redis.call('HGET', jobPrefix .. BULL_DEDUP_NEXT .. key, 'opts')
  if not opts then return false, true end
  local ok, o = pcall(cjson.decode, opts)
  if not ok or type(o) ~= 'table' then return false end
  return coversLive('next', tonumber(o.priority) or 0, tonumber(o.delay) or 0, now, windowMs)
end
