-- Drop refused pod entries: KEYS[1] pods; ARGV field, stored text, field, stored text, ...
-- Each field is removed only while it still holds the text that was refused (the watcher may have
-- folded a true entry over it since). Returns how many were removed.
local n = 0
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    n = n + redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
return n
