-- appendRecords(stream, args, at): args[at] is the stream's cap (MAXLEN ~), then to the end of args one
-- entry per three arguments (EventLog.appendArgs makes them): its time, its PodSet key and its records (a
-- JSON array, each record without its time and key). One XADD per entry, not per record: a record's own XADD
-- and its twenty arguments were most of what the log cost a fold. Returns the entry ids, in order.
-- Trimmed once for the batch (the cap is approximate anyway: MAXLEN ~), by its last XADD: a trim of its own
-- would cost the call one more command.
local function appendRecords(stream, args, at)
  local ids, cap, last = {}, args[at], #args
  for i = at + 1, last, 3 do
    if i + 3 > last then
      ids[#ids + 1] = redis.call('XADD', stream, 'MAXLEN', '~', cap, '*', 't', args[i], 'key', args[i + 1],
        'records', args[i + 2])
    else
      ids[#ids + 1] = redis.call('XADD', stream, '*', 't', args[i], 'key', args[i + 1], 'records', args[i + 2])
    end
  end
  return ids
end
