-- Defines liveRequestCovered(jobPrefix, key) (live-cover.ts says when a request is covered). Expects
-- LIVE_PRIORITY, the queue's priority of a live request, and the key names of KEYSPACE_LUA (libs/redis
-- keyspace.ts) defined before it.
local function liveRequestCovered(jobPrefix, key)
  local jobId = redis.call('GET', jobPrefix .. BULL_DEDUP .. key)
  if not jobId then return false end
  local score = redis.call('ZSCORE', jobPrefix .. BULL_PRIORITIZED, jobId)
  if score then return math.floor(tonumber(score) / 0x100000000) <= LIVE_PRIORITY end
  if not redis.call('LPOS', jobPrefix .. BULL_ACTIVE, jobId) then return false end
  local opts = redis.call('HGET', jobPrefix .. BULL_DEDUP_NEXT .. key, 'opts')
  if not opts then return false end
  local ok, o = pcall(cjson.decode, opts)
  if not ok or type(o) ~= 'table' then return false end
  local priority = tonumber(o.priority) or 0
  return (tonumber(o.delay) or 0) <= 0 and priority > 0 and priority <= LIVE_PRIORITY
end
