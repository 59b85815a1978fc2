-- A burst of watch events in one call. KEYS[1] the index of keys with entries; KEYS[2], when given, the
-- event log's stream, whose entries follow the events in ARGV (appended here: the batch's log and folds in
-- one call). ARGV: n,
-- the owed-key hook's first argument, the projection's base, now (ms), the tombstone's ttl (ms), the hook's
-- second argument, then per event in eights: kind, type, field, epoch, rv, inputs digest, payload, the PodSet
-- key. Each event's keys are the PodSet key's under the base (the same Redis Cluster slot: the base is
-- hash-tagged), built from the names KEYSPACE_LUA defines (libs/redis keyspace.ts spells them for TypeScript
-- and Lua alike): sending them with every event would be most of the bytes.
-- Returns per event, in order: 0 owes nothing, 1 owes a reconcile request, 3 owes one for a pod's status
-- alone (see fold.lua), or, for one owed (either) that the owed-key hook settled, the hook's word for how
-- (a string): recorded as requested here, atomically with the fold, so nothing more is requested. An owed
-- answer (1 or 3) not settled has 4 added when the hook hinted so for its key (passed through to the
-- caller, unread here).
-- Uses fold (fold.lua), onOwedKey(arg1, arg2, key, statusOnly, now) -> settled (false, or how: a string),
-- hint (owed-key: given by the writer's caller, asked once per key and kind of owed answer in a call;
-- without one, nothing is settled nor hinted) and appendRecords (append-records: given by the event log).
-- @include keyspace
-- @include fold
-- @include owed-key
-- @include append-records
local n, hookArg1, base, now, ttl = tonumber(ARGV[1]), ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local hookArg2 = ARGV[6]
local out, settled, hinted = {}, {}, {}
local touched = { indexed = {}, persisted = {}, noExpectations = {} }
if KEYS[2] then appendRecords(KEYS[2], ARGV, 7 + n * 8) end
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
  if owed == 1 or owed == 3 then
    -- Nothing else runs during the script: one look per key and kind of owed answer is enough for the burst.
    local look = key .. '\0' .. owed
    if settled[look] == nil then
      local isSettled, hint = onOwedKey(hookArg1, hookArg2, key, owed == 3, tonumber(now))
      if type(isSettled) == 'string' then settled[look] = isSettled else settled[look] = false end
      if hint == true then hinted[key] = true end
    end
    if settled[look] then
      if A[2] == 'DELETED' then redis.call('HDEL', K[4], A[3]) else redis.call('HSET', K[4], A[3], A[6]) end
      owed = settled[look]
    elseif hinted[key] then
      owed = owed + 4
    end
  end
  out[i + 1] = owed
end
return out
