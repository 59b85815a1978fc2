-- A burst of watch events in one call: ARGV[1] = n, ARGV[2] = the reconcile queue's job prefix ('' when
-- none is given), then the rest of ARGV in elevens and KEYS in fives, per event as FOLD takes them.
-- Returns per event, in order: 0 owes nothing, 1 owes a reconcile request, 2 owed one that the key's job
-- already waiting in the queue covers (liveRequestCovered): recorded as requested here, atomically with
-- the fold, so the worker that takes that job reads this event's state and nothing more is requested.
-- Uses fold (fold.lua) and liveRequestCovered (given by the queue; without one, nothing is covered).
local n, jobPrefix, out, covered = tonumber(ARGV[1]), ARGV[2], {}, {}
for i = 0, n - 1 do
  local K, A = {}, {}
  for j = 1, 5 do K[j] = KEYS[i * 5 + j] end
  for j = 1, 11 do A[j] = ARGV[2 + i * 11 + j] end
  local owed = fold(K, A)
  if owed == 1 and jobPrefix ~= '' then
    local key = A[8]
    -- Nothing else runs during the script: one look per key is enough for the whole burst.
    if covered[key] == nil then covered[key] = liveRequestCovered(jobPrefix, key) end
    if covered[key] then
      if A[2] == 'DELETED' then redis.call('HDEL', K[4], A[3]) else redis.call('HSET', K[4], A[3], A[6]) end
      owed = 2
    end
  end
  out[i + 1] = owed
end
return out
