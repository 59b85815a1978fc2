-- Reading a stored entry (entry.ts writes them). podDeleting is the Lua twin of the planner's "terminating"
-- (a deletionTimestamp is set: podLifecycle in libs/reconcile).
-- A deleted object's tombstone is `epoch \t rv \n expiry`: neither a pod's fields nor JSON hold a raw
-- newline. A pod entry is `epoch \t rv \t tag \t phase \t ready \t deletionTimestamp \t ...` (the tag:
-- integrity.ts; base64url, never a tab).
local function isTombstone(entry)
  return string.find(entry, '\n', 1, true) ~= nil
end
local function podDeleting(entry)
  return string.find(entry, '^[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]') ~= nil
end
-- An expectation (expect.lua writes them) is `kind expiry \t epoch`: 'c' or 'd', the ms it holds until, the
-- pods stream's epoch when it was recorded.
local function expectationExpiry(v)
  return tonumber(string.match(v, '^.(%d+)')) or 0
end
