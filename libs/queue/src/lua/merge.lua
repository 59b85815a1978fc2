-- The merge of a reconcile request into its key's pending job (merge-script.ts says what it does and the
-- KEYS and ARGV). mergeInto (merge-job.lua) finds the key's job where it is and merges into it there.
-- @include merge-job
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local mode = ARGV[3]
local deKey, dnKey, heldKey = KEYS[1], KEYS[2], KEYS[11]
local q = {
  prefix = prefix, de = deKey, dn = dnKey, delayed = KEYS[3], prioritized = KEYS[4], wait = KEYS[5],
  active = KEYS[6], marker = KEYS[7], events = KEYS[8], pc = KEYS[9], meta = KEYS[10],
}

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
  if current then outcome, state = mergeInto(q, current, inc, due, prio, now, true) end
  return {outcome, current or '', state}
end

if mode == 'request' then
  -- The common case, alone: a pending job takes the request, and the writes it carries (KEYS[12..], ARGV[10]
  -- = how many, then per write its field, 'set' or 'del', value) are made with it. Anything else is
  -- answered for the caller's transaction around BullMQ's add (before-add, add, after-add).
  if not current then return {'absent', '', ''} end
  local outcome, state, covered = mergeInto(q, current, inc, due, prio, now, false)
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
  local outcome, state = mergeInto(q, current, inc, due, prio, now, false)
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
  if rcall('ZSCORE', q.prioritized, current) or rcall('ZSCORE', q.delayed, current)
    or rcall('LPOS', q.wait, current) then
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
if not current or rcall('LPOS', q.active, current) then return {'absent', current or '', 'not-added'} end
applyWrites()
return {'merged', current, 'pending'}
