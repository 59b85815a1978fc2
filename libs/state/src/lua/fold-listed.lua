-- A relist page's folds, all of one kind, each as FOLD takes an ADDED event whose request is made anyway
-- (the relist requests every key): the same writes, with fewer calls per object — nothing reads what was
-- last requested (it is overwritten), and the index and the TTL are touched once per PodSet key, not per
-- object.
-- KEYS[1] the index of keys with entries; then per PodSet key (group) three: the pods hash (pods) or the
-- PodSet's key (podsets), its expectations hash, its inputs last requested; last, optional, the stream's
-- epoch counter (an entry stamped above both it and this relist's epoch is replaced: see listedOverStored).
-- ARGV[1] kind ('pod'|'podset'), ARGV[2] the epoch, ARGV[3] g = the number of groups, the g PodSet keys,
-- then per object five: group (0-based), field (pod name; '@ps'), rv, inputs digest, payload.
-- Returns how many objects were written (the others were stamped by a newer relist already).
-- Uses listedOverStored (stored.lua) and podDeleting (entry.lua).
-- @include entry
-- @include stored
local kind, g = ARGV[1], tonumber(ARGV[3])
local written, n = {}, 0
local ceiling
if #KEYS > 1 + g * 3 then
  ceiling = math.max(tonumber(ARGV[2]), tonumber(redis.call('GET', KEYS[#KEYS]) or '0') or 0)
end
for i = 4 + g, #ARGV, 5 do
  local grp = tonumber(ARGV[i])
  local field, rv, inputs, payload = ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local main, expect, requested = KEYS[2 + grp * 3], KEYS[3 + grp * 3], KEYS[4 + grp * 3]
  local epoch, older = listedOverStored(kind, main, field, ARGV[2], ceiling)
  if not older then
    local value = epoch .. '\t' .. rv .. '\t' .. payload
    if not written[grp] then
      written[grp] = true
      redis.call('SADD', KEYS[1], ARGV[4 + grp])
    end
    if kind == 'pod' then
      redis.call('HSET', main, field, value)
      -- A create shows as the pod; a delete as its deletionTimestamp.
      local exp = redis.call('HGET', expect, field)
      -- The relist requests the key: a quiet note (entry.lua) of its creates has no more to spare.
      if exp and (string.sub(exp, 1, 1) == 'c' or podDeleting(value)) then
        redis.call('HDEL', expect, field, QUIET_FIELD)
      end
    else
      redis.call('SET', main, value)
    end
    redis.call('HSET', requested, field, inputs)
    n = n + 1
  end
end
-- A pods hash left to expire (its PodSet was gone) holds listed pods again: keep it. A worker's pending
-- creates (entry.lua) go: a pod of them listed here takes no unit, so its record would not release one;
-- the relist requests the key anyway, and a create still to show then requests as any unawaited ADDED.
if kind == 'pod' then
  for grp in pairs(written) do
    redis.call('PERSIST', KEYS[2 + grp * 3])
    redis.call('HDEL', KEYS[3 + grp * 3], PENDING_FIELD)
  end
end
return n
