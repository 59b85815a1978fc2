-- KEYS[1] a stream's epoch counter; ARGV[1] a floor the new epoch must exceed.
local n = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if n <= floor then
  n = floor + 1
  redis.call('SET', KEYS[1], n)
end
return n
