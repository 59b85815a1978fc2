-- The queue's cover rule (live-cover.ts says when a request is covered; its jobCovers is the TypeScript
-- twin): defines jobCovers (the rule) and coverAt (the rule applied to a key's job where it is; a script
-- beside the queue asks it through live-request.lua's liveRequestSettled).
-- merge.lua's request mode runs jobCovers too, so the queue answers "covered" by the same rule wherever it is
-- asked. Includes LIVE_PRIORITY, the queue's priority of a live request, and the key names of KEYSPACE_LUA
-- (libs/redis keyspace.ts).
-- @include live-priority
-- @include keyspace

-- where: 'waiting', 'delayed' (due: when, ms) or 'next' (stored behind the active job; due: its delay from
-- that job's end). windowMs: the delay the request asks for (0: due at once); asked: its priority.
local function jobCovers(where, priority, due, now, windowMs, asked)
  if priority <= 0 or priority > asked then return false end
  if where == 'waiting' then return true end
  if where == 'delayed' then return due <= now + windowMs end
  if where == 'next' then return due <= windowMs end
  return false
end

-- The rule for the key's job `jobId` (nil: none) and the next job stored behind it while it is active
-- (dnKey). A second answer, true, says a request would find no pending job to merge into (merge.lua's
-- request mode would answer 'absent' or 'active'): no job at all, or only the active one with no next job.
local function coverAt(jobPrefix, jobId, dnKey, now, windowMs, asked)
  if not jobId then return false, true end
  local score = redis.call('ZSCORE', jobPrefix .. BULL_PRIORITIZED, jobId)
  if score then
    return jobCovers('waiting', math.floor(tonumber(score) / 0x100000000), 0, now, windowMs, asked), false
  end
  score = redis.call('ZSCORE', jobPrefix .. BULL_DELAYED, jobId)
  if score then
    local priority = tonumber(redis.call('HGET', jobPrefix .. jobId, 'priority')) or 0
    return jobCovers('delayed', priority, math.floor(tonumber(score) / 0x1000), now, windowMs, asked), false
  end
  if not redis.call('LPOS', jobPrefix .. BULL_ACTIVE, jobId) then return false, false end
  local opts = redis.call('HGET', dnKey, 'opts')
  if not opts then return false, true end
  local ok, o = pcall(cjson.decode, opts)
  if not ok or type(o) ~= 'table' then return false, false end
  return jobCovers('next', tonumber(o.priority) or 0, tonumber(o.delay) or 0, now, windowMs, asked), false
end
