-- Many folds in one call (a relist page): ARGV[1] = n; then KEYS in fives and the rest of ARGV in elevens,
-- per object as FOLD takes them. Returns each fold's answer, in order.
local n, out = tonumber(ARGV[1]), {}
for i = 0, n - 1 do
  local K, A = {}, {}
  for j = 1, 5 do K[j] = KEYS[i * 5 + j] end
  for j = 1, 11 do A[j] = ARGV[1 + i * 11 + j] end
  out[i + 1] = fold(K, A)
end
return out
