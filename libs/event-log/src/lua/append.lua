-- KEYS[1] the stream. ARGV: MAXLEN, then its entries (see append-records.lua). Returns the entry ids.
-- Uses appendRecords (append-records.lua).
-- @include append-records
return appendRecords(KEYS[1], ARGV, 1)
