-- KEYS[1]: a key's stored next job (dn:<key>); ARGV: its jid, data and opts as read. Deletes it only if
-- nobody replaced or changed it since.
local f = redis.call('HMGET', KEYS[1], 'jid', 'data', 'opts')
if f[1] == ARGV[1] and f[2] == ARGV[2] and f[3] == ARGV[3] then return redis.call('DEL', KEYS[1]) end
return 0
