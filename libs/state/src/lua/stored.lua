-- An object's stored entry against the version being folded, for every fold script. The entry keeps the
-- newest epoch that saw the object: a relist that lists an older version than one already folded (a
-- worker's own write, folded at once) still counts as having seen it. An older version than the stored
-- one only re-stamps the entry's epoch.
-- Returns the epoch to write, and true when the folded version is older than the stored one (then
-- nothing else is to be done).
-- Uses rvNewer (rules/resource-version.lua).
local function olderThanStored(kind, key, field, epoch, rv)
  local old
  if kind == 'pod' then old = redis.call('HGET', key, field) else old = redis.call('GET', key) end
  if not old then return epoch, false end
  local oldEpoch, oldRv = string.match(old, '^([^\t]*)\t([^\t\n]*)')
  if oldEpoch and tonumber(oldEpoch) > tonumber(epoch) then epoch = oldEpoch end
  if oldRv and oldRv ~= '' and rv ~= '' and not rvNewer(rv, oldRv) and oldRv ~= rv then
    if epoch ~= oldEpoch then
      local rest = string.sub(old, #oldEpoch + 1)
      if kind == 'pod' then redis.call('HSET', key, field, epoch .. rest)
      else redis.call('SET', key, epoch .. rest, 'KEEPTTL') end
    end
    return epoch, true
  end
  return epoch, false
end
