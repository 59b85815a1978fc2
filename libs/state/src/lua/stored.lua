-- An object's stored entry against the version being folded, for every fold script. A watch event older
-- than the stored version (a replayed or late event) is not folded; the entry keeps the newest epoch that
-- saw the object, so an older version than the stored one only re-stamps the entry's epoch.
-- Returns the epoch to write, true when the folded version is older than the stored one (then
-- nothing else is to be done), and whether any entry was stored (none: the object is first seen here).
-- Uses rvNewer (rules/resource-version.lua).
-- @include resource-version
local function olderThanStored(kind, key, field, epoch, rv)
  local old
  if kind == 'pod' then old = redis.call('HGET', key, field) else old = redis.call('GET', key) end
  if not old then return epoch, false, false end
  local oldEpoch, oldRv = string.match(old, '^([^\t]*)\t([^\t\n]*)')
  if oldEpoch and tonumber(oldEpoch) > tonumber(epoch) then epoch = oldEpoch end
  if oldRv and oldRv ~= '' and rv ~= '' and not rvNewer(rv, oldRv) and oldRv ~= rv then
    if epoch ~= oldEpoch then
      local rest = string.sub(old, #oldEpoch + 1)
      if kind == 'pod' then redis.call('HSET', key, field, epoch .. rest)
      else redis.call('SET', key, epoch .. rest, 'KEEPTTL') end
    end
    return epoch, true, true
  end
  return epoch, false, true
end
-- A relist is authoritative, as an informer's Replace is: what the API listed replaces the stored entry
-- whatever their resourceVersions (the cluster may have gone back in time: etcd restored from a backup, an
-- API server restarted empty; its versions are then lower than those stored). The watch that follows the
-- relist starts from the list's version, so any later change is folded after it. Only an entry stamped by
-- a newer relist (a higher epoch: a stale leader's relist landing late) is kept. `ceiling` (optional): the
-- highest epoch any relist of the stream was given (its counter); an entry stamped above it was stamped by
-- no relist (written into Redis by hand) and is replaced too.
-- Returns the epoch to write, and true when the entry is to be kept as it is.
local function listedOverStored(kind, key, field, epoch, ceiling)
  local old
  if kind == 'pod' then old = redis.call('HGET', key, field) else old = redis.call('GET', key) end
  if not old then return epoch, false, false end
  local oldEpoch = tonumber(string.match(old, '^([^\t]*)\t') or '0') or 0
  return epoch, oldEpoch > tonumber(epoch) and (ceiling == nil or oldEpoch <= ceiling)
end
