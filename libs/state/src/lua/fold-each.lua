-- A burst of watch events in one call. KEYS[1] the index of keys with entries; KEYS[2], when given, the
-- event log's stream, whose records follow the events in ARGV (appended here: the batch's log and folds in
-- one call; a record of one of the events is sent short, built here from the event's arguments). ARGV: n,
-- the reconcile queue's job prefix ('' when none is given), the projection's base, now (ms), the tombstone's
-- ttl (ms), the status window (ms: how long after now the request of a pod's status change alone would be
-- due), then per event in eights: kind, type, field, epoch, rv, inputs digest, payload, the PodSet key. Each
-- event's keys are the PodSet key's under the base (the same Redis Cluster slot: the base is hash-tagged),
-- built from the names KEYSPACE_LUA defines (libs/redis keyspace.ts spells them for TypeScript and Lua
-- alike): sending them with every event would be most of the bytes.
-- Returns per event, in order: 0 owes nothing, 1 owes a reconcile request, 3 owes one for a pod's status
-- alone (see fold.lua), 2 owed one (either) that the key's job in the queue covers (liveRequestCovered,
-- asked with the window for a status-only one, else with none): recorded as requested here, atomically with the fold, so the worker that takes that
-- job reads this event's state and nothing more is requested. An owed answer (1 or 3) not covered has 4 added
-- when the key has no pending job to merge into (no job at all, or only its active one with no next job
-- stored behind it): its request need not look for one (a hint only: the request's transaction finds the
-- queue as it is then).
-- Uses fold (fold.lua), liveRequestCovered (live-cover: given by the queue; without one, nothing is
-- covered; its second answer, true when there is no pending job to merge into, gives the hint) and
-- appendRecords (append-records: given by the event log).
-- @include keyspace
-- @include fold
-- @include live-cover
-- @include append-records
local n, jobPrefix, base, now, ttl = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local statusWindow = tonumber(ARGV[6])
local out, covered, absent = {}, {}, {}
local touched = { indexed = {}, persisted = {}, noExpectations = {} }
-- The event log's short records take their type, kind, key, name and rv from the j-th event's arguments (a
-- PodSet's name: its key's after the namespace). ProjectionWriter's logHead is its TypeScript twin.
local function recordHead(j)
  local o = 6 + j * 8
  local key, name = ARGV[o + 8], ARGV[o + 3]
  if ARGV[o + 1] ~= 'pod' then
    local slash = string.find(key, '/', 1, true)
    if slash then name = string.sub(key, slash + 1) else name = key end
    return ARGV[o + 2], 'PodSet', key, name, ARGV[o + 5]
  end
  return ARGV[o + 2], 'Pod', key, name, ARGV[o + 5]
end
if KEYS[2] then appendRecords(KEYS[2], ARGV, 7 + n * 8, recordHead) end
for i = 0, n - 1 do
  local o = 6 + i * 8
  local kind, key = ARGV[o + 1], ARGV[o + 8]
  local ps, pods, exp, req = base .. PROJ_PODSET .. key, base .. PROJ_PODS .. key, base .. PROJ_EXPECT .. key,
    base .. PROJ_REQUESTED .. key
  local K
  if kind == 'pod' then K = { pods, exp, KEYS[1], req, ps } else K = { ps, exp, KEYS[1], req, pods } end
  local A = { kind, ARGV[o + 2], ARGV[o + 3], ARGV[o + 4], ARGV[o + 5], ARGV[o + 6], ARGV[o + 7], key, '0', now,
    ttl }
  local owed = fold(K, A, touched)
  if (owed == 1 or owed == 3) and jobPrefix ~= '' then
    local key = A[8]
    -- Nothing else runs during the script: one look per key and kind of change is enough for the burst.
    local look = key .. '\0' .. owed
    if covered[look] == nil then
      local window = 0
      if owed == 3 then window = statusWindow end
      local isCovered, nothingPending = liveRequestCovered(jobPrefix, key, tonumber(now), window)
      covered[look] = isCovered
      -- Its look at the key's job already tells whether a request has anything to merge into.
      if nothingPending then absent[key] = true end
    end
    if covered[look] then
      if A[2] == 'DELETED' then redis.call('HDEL', K[4], A[3]) else redis.call('HSET', K[4], A[3], A[6]) end
      owed = 2
    else
      if absent[key] == nil then absent[key] = redis.call('EXISTS', jobPrefix .. BULL_DEDUP .. key) == 0 end
      if absent[key] then owed = owed + 4 end
    end
  end
  out[i + 1] = owed
end
return out
