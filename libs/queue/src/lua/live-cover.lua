-- Defines liveRequestCovered(jobPrefix, key) (live-cover.ts says when a request is covered). Expects
-- LIVE_PRIORITY, the queue's priority of a live request, defined before it.
local function liveRequestCovered(jobPrefix, key)
  local jobId = redis.call('GET', jobPrefix .. 'de:' .. key)
  if not jobId then return false end
  local score = redis.call('ZSCORE', jobPrefix .. 'prioritized', jobId)
  if score then return math.floor(tonumber(score) / 0x100000000) <= LIVE_PRIORITY end
  if not redis.call('LPOS', jobPrefix .. 'active', jobId) then return false end
  local opts = redis.call('HGET', jobPrefix .. 'dn:' .. key, 'opts')
  if not opts then return false end
  local ok, o = pcall(cjson.decode, opts)
  if not ok or type(o) ~= 'table' then return false end
  local priority = tonumber(o.priority) or 0
  return (tonumber(o.delay) or 0) <= 0 and priority > 0 and priority <= LIVE_PRIORITY
end
