-- KEYS[1] the stream. ARGV: MAXLEN, the time, then its records in full (see append-records.lua). Returns the
-- entry ids.
-- Uses appendRecords (append-records.lua).
-- @include append-records
return appendRecords(KEYS[1], ARGV, 1)
