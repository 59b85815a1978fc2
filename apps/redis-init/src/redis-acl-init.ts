// Entry point of the Redis pod's init container (and compose's redis-acl service): writes the ACL file
// (redis-acl-file.ts) to REDIS_ACL_FILE, readable by its owner only (the uid Redis runs as). Prints where
// it wrote it, never a password; a missing or invalid variable: its message and exit code 2.
import { writeFileSync } from 'node:fs';
import { ConfigError } from '@podset/config';
import { redisAclFileText } from './redis-acl-file.ts';

try {
  const text = redisAclFileText(process.env);
  const file = process.env['REDIS_ACL_FILE'] ?? '';
  writeFileSync(file, text, { mode: 0o600 });
  process.stdout.write(`redis-acl: wrote the ACL file ${file} (${text.split('\n').length - 1} users)\n`);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`redis-acl: ${err.message}\n`);
  process.exit(2);
}
