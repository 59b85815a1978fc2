-- The merge of a reconcile request into its key's pending job (merge-script.ts says what it does and the
-- KEYS and ARGV). Includes MAX_REASONS, MAX_TRACEPARENTS, rvNewer (the resourceVersion rule) and jobCovers
-- (the queue's cover rule, live-cover.lua).
-- @include merge-bounds
-- @include resource-version
-- @include live-cover
local rcall = redis.call
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local mode = ARGV[3]
local deKey, dnKey, delayedKey, prioritizedKey, waitKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local activeKey, markerKey, eventsKey, pcKey, metaKey, heldKey = KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]

local function mergeData(json, inc)
  local ok, d = pcall(cjson.decode, json)
  if not ok or type(d) ~= 'table' then return json, nil end -- malformed: left for the worker to reject
  if inc.source == 'live' then d.source = 'live' end
  if type(inc.rv) == 'string' and rvNewer(inc.rv, d.rv) then d.rv = inc.rv end
  if type(inc.firstRequestedAt) == 'number' and
      (type(d.firstRequestedAt) ~= 'number' or inc.firstRequestedAt < d.firstRequestedAt) then
    d.firstRequestedAt = inc.firstRequestedAt
  end
  if type(inc.dueAt) == 'number' and (type(d.dueAt) ~= 'number' or inc.dueAt < d.dueAt) then
    d.dueAt = inc.dueAt
  end
  local rs = {}
  if type(d.reasons) == 'table' then for _, r in ipairs(d.reasons) do rs[#rs + 1] = r end end
  if type(inc.reasons) == 'table' then
    for _, r in ipairs(inc.reasons) do
      local seen = false
      for _, x in ipairs(rs) do if x == r then seen = true break end end
      if not seen then rs[#rs + 1] = r end
    end
  end
  if #rs > MAX_REASONS then
    local kept = {}
    for i = #rs - MAX_REASONS + 1, #rs do kept[#kept + 1] = rs[i] end
    rs = kept
  end
  if #rs > 0 then d.reasons = rs else d.reasons = nil end
  -- Trace contexts (tracing on only): the earliest kept, bounded; the worker checks their form.
  if type(inc.traceparents) == 'table' then
    local ts = {}
    if type(d.traceparents) == 'table' then
      for _, t in ipairs(d.traceparents) do if #ts < MAX_TRACEPARENTS then ts[#ts + 1] = t end end
    end
    for _, t in ipairs(inc.traceparents) do
      if #ts >= MAX_TRACEPARENTS then break end
      local seen = type(t) ~= 'string'
      for _, x in ipairs(ts) do if x == t then seen = true break end end
      if not seen then ts[#ts + 1] = t end
    end
    if #ts > 0 then d.traceparents = ts end
  end
  return cjson.encode(d), d
end

local function maxEvents()
  return rcall('HGET', metaKey, 'opts.maxLenEvents') or 10000
end

local function pausedOrMaxed()
  local attrs = rcall('HMGET', metaKey, 'paused', 'concurrency')
  if attrs[1] then return true end
  if attrs[2] then return rcall('LLEN', activeKey) >= tonumber(attrs[2]) end
  return false
end

local function delayedScore(due)
  local minScore = due * 0x1000
  local maxScore = (due + 1) * 0x1000 - 1
  local r = rcall('ZREVRANGEBYSCORE', delayedKey, maxScore, minScore, 'WITHSCORES', 'LIMIT', 0, 1)
  if #r > 0 then
    local cur = tonumber(r[2])
    if cur >= maxScore then return maxScore end
    return cur + 1
  end
  return minScore
end

local function priorityScore(priority)
  local c = rcall('INCR', pcKey)
  return priority * 0x100000000 + c % 0x100000000
end

local function updateDelayMarker()
  local r = rcall('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
  if #r > 0 then rcall('ZADD', markerKey, math.floor(tonumber(r[2]) / 0x1000), '1') end
end

-- Returns outcome, state, covered. outcome: 'merged' | 'active' (no stored next job) | 'finished' | 'absent'.
-- covered (a request's merge only): the cover rule held for the job where it was found, before the merge.
local function mergeInto(jobId, inc, due, prio, afterFinish)
  local jobKey = prefix .. jobId
  if rcall('EXISTS', jobKey) == 0 then return 'absent', '' end
  local dscore = rcall('ZSCORE', delayedKey, jobId)
  if dscore then
    local data = rcall('HGET', jobKey, 'data')
    local newData, d = mergeData(data, inc)
    if afterFinish then
      if d == nil or type(d.dueAt) ~= 'number' then return 'merged', 'delayed' end
      due = d.dueAt
    else
      rcall('HSET', jobKey, 'data', newData)
    end
    local cur = tonumber(rcall('HGET', jobKey, 'priority')) or 0
    local curDue = math.floor(tonumber(dscore) / 0x1000)
    local covered = jobCovers('delayed', cur, curDue, now, due - now, prio)
    if prio > 0 and cur > 0 and prio < cur then
      rcall('HSET', jobKey, 'priority', prio)
      cur = prio
    end
    if due < curDue then
      rcall('ZREM', delayedKey, jobId)
      if due <= now then
        if cur > 0 then
          rcall('ZADD', prioritizedKey, priorityScore(cur), jobId)
        else
          rcall('LPUSH', waitKey, jobId)
        end
        if not pausedOrMaxed() then rcall('ZADD', markerKey, 0, '0') end
        rcall('XADD', eventsKey, 'MAXLEN', '~', maxEvents(), '*', 'event', 'waiting', 'jobId', jobId,
          'prev', 'delayed')
        rcall('HSET', jobKey, 'delay', 0)
        updateDelayMarker()
        return 'merged', 'waiting', covered
      end
      rcall('ZADD', delayedKey, delayedScore(due), jobId)
      rcall('HSET', jobKey, 'delay', due - now)
      rcall('XADD', eventsKey, 'MAXLEN', '~', maxEvents(), '*', 'event', 'delayed', 'jobId', jobId,
        'delay', due)
      updateDelayMarker()
    end
    return 'merged', 'delayed', covered
  end
  if afterFinish then
    if rcall('ZSCORE', prioritizedKey, jobId) or rcall('LPOS', waitKey, jobId) then return 'merged', 'waiting' end
    if rcall('LPOS', activeKey, jobId) then return 'active', 'active' end
    return 'finished', ''
  end
  local pscore = rcall('ZSCORE', prioritizedKey, jobId)
  if pscore then
    rcall('HSET', jobKey, 'data', (mergeData(rcall('HGET', jobKey, 'data'), inc)))
    local covered = jobCovers('waiting', math.floor(tonumber(pscore) / 0x100000000), 0, now, due - now, prio)
    local cur = tonumber(rcall('HGET', jobKey, 'priority')) or 0
    if prio > 0 and cur > 0 and prio < cur then
      rcall('ZADD', prioritizedKey, priorityScore(prio), jobId)
      rcall('HSET', jobKey, 'priority', prio)
    end
    return 'merged', 'waiting', covered
  end
  if rcall('LPOS', waitKey, jobId) then
    rcall('HSET', jobKey, 'data', (mergeData(rcall('HGET', jobKey, 'data'), inc)))
    return 'merged', 'waiting'
  end
  if rcall('LPOS', activeKey, jobId) then
    if rcall('EXISTS', dnKey) == 1 then
      local f = rcall('HMGET', dnKey, 'data', 'opts')
      local newData, d = mergeData(f[1], inc)
      local ok, o = pcall(cjson.decode, f[2])
      local covered = false
      if ok and type(o) == 'table' then
        covered = jobCovers('next', tonumber(o.priority) or 0, tonumber(o.delay) or 0, now, due - now, prio)
        local nextDue = due
        if d ~= nil and type(d.dueAt) == 'number' and d.dueAt < nextDue then nextDue = d.dueAt end
        local delay = nextDue - now
        if delay > 0 then o['delay'] = delay else o['delay'] = 0 end
        local cp = tonumber(o['priority']) or 0
        if prio > 0 and cp > 0 and prio < cp then o['priority'] = prio end
        rcall('HSET', dnKey, 'data', newData, 'opts', cjson.encode(o))
      end
      return 'merged', 'active-next', covered
    end
    return 'active', 'active'
  end
  return 'finished', ''
end

-- The writes a request carries (KEYS[12..], ARGV[10] = how many, then per write its field, 'set' or 'del',
-- value): made only where the request is known to have landed, so a failed request leaves no record.
local function applyWrites()
  for i = 1, tonumber(ARGV[10] or '0') do
    local at = 11 + (i - 1) * 3
    if ARGV[at + 1] == 'set' then rcall('HSET', KEYS[11 + i], ARGV[at], ARGV[at + 2])
    else rcall('HDEL', KEYS[11 + i], ARGV[at]) end
  end
end

local inc = {}
local due = now
local prio = 0
if mode ~= 'after-finish' then
  inc = cjson.decode(ARGV[6])
  due = tonumber(ARGV[4])
  prio = tonumber(ARGV[5])
end

local current = rcall('GET', deKey)

if mode == 'after-finish' then
  -- The job that finished is still the key's job (it is being retried after a backoff): leave it.
  if current == ARGV[7] then return {'merged', current, 'retrying'} end
  local outcome, state = 'absent', ''
  if current then outcome, state = mergeInto(current, inc, due, prio, true) end
  return {outcome, current or '', state}
end

if mode == 'request' then
  -- The common case, alone: a pending job takes the request, and the writes it carries (KEYS[12..], ARGV[10]
  -- = how many, then per write its field, 'set' or 'del', value) are made with it. Anything else is
  -- answered for the caller's transaction around BullMQ's add (before-add, add, after-add).
  if not current then return {'absent', '', ''} end
  local outcome, state, covered = mergeInto(current, inc, due, prio, false)
  if outcome ~= 'merged' then return {outcome, current, state} end
  applyWrites()
  -- The cover rule held for the job as it was: the merge moved nothing (the job took only the request's
  -- data), and the answer says so.
  if covered then outcome = 'covered' end
  return {outcome, current, state}
end

if mode == 'before-add' then
  -- BullMQ's add of this request comes next in the same transaction: nothing runs in between.
  if not current then return {'absent', '', ''} end
  local outcome, state = mergeInto(current, inc, due, prio, false)
  if outcome == 'merged' and state == 'active-next' then
    -- The add would replace the stored next job (now carrying this request too) with this request alone:
    -- hold it aside; after-add puts it back.
    rcall('RENAME', dnKey, heldKey)
  elseif outcome == 'finished' then
    -- A deduplication key left pointing at a finished job would swallow the add: drop it.
    rcall('DEL', deKey)
  end
  return {outcome, current, state}
end

-- after-add (ARGV[9]: the id the add was given). The add created the key's job from this request, stored it
-- as the next job behind the active one, or was dropped into the pending job before-add merged it into.
-- The request's writes are made here only when it landed: a failed add (Redis does not undo the rest of a
-- transaction) leaves no record that it was requested.
if rcall('EXISTS', heldKey) == 1 then
  rcall('RENAME', heldKey, dnKey)
  applyWrites()
  return {'merged', current or '', 'active-next'}
end
if current == ARGV[9] then
  if rcall('ZSCORE', prioritizedKey, current) or rcall('ZSCORE', delayedKey, current)
    or rcall('LPOS', waitKey, current) then
    applyWrites()
    return {'created', current, 'created'}
  end
  -- The add failed half-way (it stored the job, then an error): a job in no list would never run. Drop it.
  rcall('DEL', deKey, prefix .. current)
  return {'absent', '', 'not-added'}
end
if current and rcall('HGET', dnKey, 'jid') == ARGV[9] then
  applyWrites()
  return {'merged', current, 'deduplicated'}
end
-- Else before-add merged the request into the key's pending job, unless that job is active (then only the
-- add could have stored it, and did not) or there is none (the add failed to create it).
if not current or rcall('LPOS', activeKey, current) then return {'absent', current or '', 'not-added'} end
applyWrites()
return {'merged', current, 'pending'}
