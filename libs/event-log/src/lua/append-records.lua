-- appendRecords(stream, args, at, headOf): args[at] is the stream's cap (MAXLEN ~), args[at + 1] the time
-- the call's short records carry, then its records to the end of args (EventLog.appendArgs makes them), each
-- either in full — its field count, then its fields — or short: a mask '+…' and the values of the optional
-- fields it marks ('1' at position j: OPTIONAL[j] follows), its type, kind, key, name and rv taken from
-- headOf(j), j counting the short records from 0 (the caller's own arguments: a fold has them already).
-- XADDs them in order, with the fields in the order the full form has them; returns their entry ids.
-- Trimmed once for the batch (the cap is approximate anyway: MAXLEN ~), by its last XADD: a trim of its own
-- would cost the call one more command.
local OPTIONAL = { 'phase', 'ready', 'owner', 'deleting' }
local function appendRecords(stream, args, at, headOf)
  local ids, i, short, t, cap = {}, at + 2, 0, args[at + 1], args[at]
  local last = #args
  while i <= last do
    local head = args[i]
    if string.byte(head, 1) == 43 then -- '+'
      local typ, kind, key, name, rv = headOf(short)
      short = short + 1
      local f = { 'type', typ, 'kind', kind, 'key', key, 'name', name, 'rv', rv }
      i = i + 1
      for j = 1, #OPTIONAL do
        if string.byte(head, j + 1) == 49 then -- '1'
          f[#f + 1] = OPTIONAL[j]
          f[#f + 1] = args[i]
          i = i + 1
        end
      end
      if i > last then
        ids[#ids + 1] = redis.call('XADD', stream, 'MAXLEN', '~', cap, '*', 't', t, unpack(f))
      else
        ids[#ids + 1] = redis.call('XADD', stream, '*', 't', t, unpack(f))
      end
    else
      local n = tonumber(head)
      local from = i + 1
      i = i + n + 1
      if i > last then
        ids[#ids + 1] = redis.call('XADD', stream, 'MAXLEN', '~', cap, '*', unpack(args, from, from + n - 1))
      else
        ids[#ids + 1] = redis.call('XADD', stream, '*', unpack(args, from, from + n - 1))
      end
    end
  end
  return ids
end
