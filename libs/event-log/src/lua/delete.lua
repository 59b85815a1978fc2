-- KEYS[1] the stream. ARGV: the PodSet key, start id, chunk size. XDELs the entries whose `key` field is
-- exactly the key. Returns {examined, deleted, lastId}.
local rcall = redis.call
local stream = KEYS[1]
local key, start, count = ARGV[1], ARGV[2], tonumber(ARGV[3])
local entries = rcall('XRANGE', stream, start, '+', 'COUNT', count)
local del = {}
for _, e in ipairs(entries) do
  local f = e[2]
  for i = 1, #f, 2 do
    if f[i] == 'key' then
      if f[i + 1] == key then del[#del + 1] = e[1] end
      break
    end
  end
end
if #del > 0 then rcall('XDEL', stream, unpack(del)) end
local last = ''
if #entries > 0 then last = entries[#entries][1] end
return {#entries, #del, last}
