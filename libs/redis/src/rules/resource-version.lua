-- rvNewer(c, cur): whether resourceVersion c should replace cur (nil: none yet). Decimal ones compare
-- numerically, as strings (no precision loss); when either is opaque the later one seen wins.
-- The TypeScript twin is rvNewer in resource-version.ts.
local function isDigits(s) return type(s) == 'string' and string.match(s, '^[0-9]+$') ~= nil end
local function rvNewer(c, cur)
  if type(cur) ~= 'string' then return true end
  if isDigits(c) and isDigits(cur) then
    local a = (string.gsub(c, '^0+(.)', '%1'))
    local b = (string.gsub(cur, '^0+(.)', '%1'))
    if #a ~= #b then return #a > #b end
    return a > b
  end
  return true
end
