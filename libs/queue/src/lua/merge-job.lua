-- The merge of a reconcile request into a key's job (merge.lua's, and the watcher's fold's when it merges a
-- live request in its own call): mergeData (a request's fields into a job's data), and mergeInto(q, jobId,
-- inc, due, prio, now, afterFinish), which finds the job where it is and merges into it there. q names the
-- queue's keys (queueKeysOf builds them from a job prefix and a deduplication id, the names merge.lua is
-- given as KEYS). Includes MAX_REASONS, MAX_TRACEPARENTS, rvNewer (the resourceVersion rule) and jobCovers
-- (the queue's cover rule, live-cover.lua).
-- @include merge-bounds
-- @include resource-version
-- @include live-cover
local rcall = redis.call

-- The queue's keys for the job prefix `jobPrefix` and the deduplication id `dedupId`.
local function queueKeysOf(jobPrefix, dedupId)
  return {
    prefix = jobPrefix, de = jobPrefix .. BULL_DEDUP .. dedupId, dn = jobPrefix .. BULL_DEDUP_NEXT .. dedupId,
    delayed = jobPrefix .. BULL_DELAYED, prioritized = jobPrefix .. BULL_PRIORITIZED, wait = jobPrefix .. BULL_WAIT,
    active = jobPrefix .. BULL_ACTIVE, marker = jobPrefix .. BULL_MARKER, events = jobPrefix .. BULL_EVENTS,
    pc = jobPrefix .. BULL_PC, meta = jobPrefix .. BULL_META,
  }
end

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

local function maxEvents(q)
  return rcall('HGET', q.meta, 'opts.maxLenEvents') or 10000
end

local function pausedOrMaxed(q)
  local attrs = rcall('HMGET', q.meta, 'paused', 'concurrency')
  if attrs[1] then return true end
  if attrs[2] then return rcall('LLEN', q.active) >= tonumber(attrs[2]) end
  return false
end

local function delayedScore(q, due)
  local minScore = due * 0x1000
  local maxScore = (due + 1) * 0x1000 - 1
  local r = rcall('ZREVRANGEBYSCORE', q.delayed, maxScore, minScore, 'WITHSCORES', 'LIMIT', 0, 1)
  if #r > 0 then
    local cur = tonumber(r[2])
    if cur >= maxScore then return maxScore end
    return cur + 1
  end
  return minScore
end

local function priorityScore(q, priority)
  local c = rcall('INCR', q.pc)
  return priority * 0x100000000 + c % 0x100000000
end

local function updateDelayMarker(q)
  local r = rcall('ZRANGE', q.delayed, 0, 0, 'WITHSCORES')
  if #r > 0 then rcall('ZADD', q.marker, math.floor(tonumber(r[2]) / 0x1000), '1') end
end

-- Returns outcome, state, covered. outcome: 'merged' | 'active' (no stored next job) | 'finished' | 'absent'.
-- covered (a request's merge only): the cover rule held for the job where it was found, before the merge.
local function mergeInto(q, jobId, inc, due, prio, now, afterFinish)
  local jobKey = q.prefix .. jobId
  if rcall('EXISTS', jobKey) == 0 then return 'absent', '' end
  local dscore = rcall('ZSCORE', q.delayed, jobId)
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
      rcall('ZREM', q.delayed, jobId)
      if due <= now then
        if cur > 0 then
          rcall('ZADD', q.prioritized, priorityScore(q, cur), jobId)
        else
          rcall('LPUSH', q.wait, jobId)
        end
        if not pausedOrMaxed(q) then rcall('ZADD', q.marker, 0, '0') end
        rcall('XADD', q.events, 'MAXLEN', '~', maxEvents(q), '*', 'event', 'waiting', 'jobId', jobId,
          'prev', 'delayed')
        rcall('HSET', jobKey, 'delay', 0)
        updateDelayMarker(q)
        return 'merged', 'waiting', covered
      end
      rcall('ZADD', q.delayed, delayedScore(q, due), jobId)
      rcall('HSET', jobKey, 'delay', due - now)
      rcall('XADD', q.events, 'MAXLEN', '~', maxEvents(q), '*', 'event', 'delayed', 'jobId', jobId,
        'delay', due)
      updateDelayMarker(q)
    end
    return 'merged', 'delayed', covered
  end
  if afterFinish then
    if rcall('ZSCORE', q.prioritized, jobId) or rcall('LPOS', q.wait, jobId) then return 'merged', 'waiting' end
    if rcall('LPOS', q.active, jobId) then return 'active', 'active' end
    return 'finished', ''
  end
  local pscore = rcall('ZSCORE', q.prioritized, jobId)
  if pscore then
    rcall('HSET', jobKey, 'data', (mergeData(rcall('HGET', jobKey, 'data'), inc)))
    local covered = jobCovers('waiting', math.floor(tonumber(pscore) / 0x100000000), 0, now, due - now, prio)
    local cur = tonumber(rcall('HGET', jobKey, 'priority')) or 0
    if prio > 0 and cur > 0 and prio < cur then
      rcall('ZADD', q.prioritized, priorityScore(q, prio), jobId)
      rcall('HSET', jobKey, 'priority', prio)
    end
    return 'merged', 'waiting', covered
  end
  if rcall('LPOS', q.wait, jobId) then
    rcall('HSET', jobKey, 'data', (mergeData(rcall('HGET', jobKey, 'data'), inc)))
    return 'merged', 'waiting'
  end
  if rcall('LPOS', q.active, jobId) then
    if rcall('EXISTS', q.dn) == 1 then
      local f = rcall('HMGET', q.dn, 'data', 'opts')
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
        rcall('HSET', q.dn, 'data', newData, 'opts', cjson.encode(o))
      end
      return 'merged', 'active-next', covered
    end
    return 'active', 'active'
  end
  return 'finished', ''
end
