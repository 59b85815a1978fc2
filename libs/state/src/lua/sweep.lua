-- Sweep: KEYS[1] a pods hash or a PodSet key, KEYS[2] the requested inputs, KEYS[3] the expectations,
-- KEYS[4] the stream's epoch counter; ARGV[1] kind, ARGV[2] the epoch of the relist just done, ARGV[3] '1'
-- when the epochs expectations recorded can be trusted (else no wait is ended here: see
-- ProjectionWriter.sweep). Removes what that relist did not see (folded at an older epoch), and what was
-- last requested of it. Returns how many went.
-- Also what no relist stamped: an entry whose epoch is above every epoch the stream was ever given (its
-- counter, and this relist's) was written into Redis by hand, not folded — an old pod entry written back
-- with a raised epoch would otherwise outlive every relist, a pod the API does not have counted for good.
-- Uses isTombstone and podDeleting (entry.lua).
-- @include entry
local kind, epoch = ARGV[1], tonumber(ARGV[2])
local ceiling = math.max(epoch, tonumber(redis.call('GET', KEYS[4]) or '0') or 0)
local function epochOf(v) return tonumber(string.match(v, '^([^\t]*)\t') or '0') or 0 end
local function older(v) return epochOf(v) < epoch end
local function unseen(v) return older(v) or epochOf(v) > ceiling end
if kind == 'podset' then
  local v = redis.call('GET', KEYS[1])
  if v and unseen(v) then
    redis.call('DEL', KEYS[1])
    redis.call('HDEL', KEYS[2], '@ps')
    return 1
  end
  return 0
end
local all = redis.call('HGETALL', KEYS[1])
local n = 0
for i = 1, #all, 2 do
  if unseen(all[i + 1]) then
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('HDEL', KEYS[2], all[i])
    -- Gone while nobody watched: whatever a worker awaited of it (its create, its delete) is over.
    redis.call('HDEL', KEYS[3], all[i])
    n = n + 1
  end
end
-- A create awaited since before the relist began (recorded at an older epoch) of a pod it did not list and
-- no event showed: the pod came and went while nobody watched (a cut watch, then 410 and this relist), and
-- its events will not come. (One recorded since may still show through the watch from the list.)
-- A delete awaited since before the relist began of a pod it listed alive (not being deleted): a worker
-- records a delete once the API accepted it, so a list taken after that shows it deleting or gone — unless
-- the cluster went back in time (etcd restored from a backup), where the pod is alive again and its delete
-- will never show. (Listed alive, it is planned from again: the next plan deletes it anew if need be.)
local exp = redis.call('HGETALL', KEYS[3])
for i = 1, #exp, 2 do
  local v = exp[i + 1]
  -- Pending creates' units (entry.lua) left by a pass that never released them (its worker gone): the
  -- relist requested the key; a create still to show requests as any unawaited ADDED.
  if exp[i] == PENDING_FIELD then redis.call('HDEL', KEYS[3], exp[i])
  elseif ARGV[3] == '1' and tonumber(string.match(v, '\t(%d+)$') or '0') < epoch then
    local what, cur = string.sub(v, 1, 1), redis.call('HGET', KEYS[1], exp[i])
    local listedAlive = cur and not older(cur) and not isTombstone(cur) and not podDeleting(cur)
    if (what == 'c' and not cur) or (what == 'd' and listedAlive) then redis.call('HDEL', KEYS[3], exp[i]) end
  end
end
return n
