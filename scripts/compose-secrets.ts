// The secrets of a compose run against a real cluster (docker-compose.kind.yml), made for this machine:
// the Redis users' passwords, the projection's integrity key and the dashboard's token, each random, in an
// env file readable by its owner only. The kind override requires every one of them (no development
// default reaches a real cluster), and compose reads them with a second --env-file:
//   npm run compose:secrets                       write .podset-secrets.env (kept if it exists)
//   npm run compose:secrets -- --file PATH        elsewhere
//   docker compose --env-file .env --env-file .podset-secrets.env \
//     -f docker-compose.yml -f docker-compose.kind.yml up --build -d
// Prints where it wrote, never a secret. To rotate: delete the file, run this again, `up` again.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

export const SECRETS_FILE = path.resolve(import.meta.dirname, '..', '.podset-secrets.env');

/** Every secret variable the kind override requires, and how each is made. */
export const SECRET_VARS: Record<string, () => string> = {
  REDIS_WATCHER_PASSWORD: () => randomBytes(24).toString('hex'),
  REDIS_WORKER_PASSWORD: () => randomBytes(24).toString('hex'),
  REDIS_DASHBOARD_PASSWORD: () => randomBytes(24).toString('hex'),
  REDIS_HEALTH_PASSWORD: () => randomBytes(24).toString('hex'),
  REDIS_SCRIPTS_PASSWORD: () => randomBytes(24).toString('hex'),
  REDIS_OPS_PASSWORD: () => randomBytes(24).toString('hex'),
  PROJECTION_HMAC_KEY: () => randomBytes(32).toString('base64'),
  DASHBOARD_TOKEN: () => randomBytes(16).toString('hex'),
};

/** `NAME=value` lines of an env file (comments and blank lines skipped). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) out[m[1] as string] = m[2] as string;
  }
  return out;
}

/**
 * Writes `file` with every secret (mode 0600), keeping those it already holds; 'created', 'completed'
 * (some were missing) or 'kept'.
 */
export function writeSecrets(file: string): 'created' | 'completed' | 'kept' {
  const existing = existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : undefined;
  const values = { ...existing };
  let made = 0;
  for (const [name, make] of Object.entries(SECRET_VARS)) {
    if (values[name] !== undefined && values[name] !== '') continue;
    values[name] = make();
    made++;
  }
  if (made === 0) return 'kept';
  const lines = [
    '# Secrets for docker compose with docker-compose.kind.yml, made by `npm run compose:secrets`.',
    '# Never commit this file; delete it and run the script again to rotate them.',
    ...Object.entries(values).map(([k, v]) => `${k}=${v}`),
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  chmodSync(file, 0o600);
  return existing === undefined ? 'created' : 'completed';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { file: { type: 'string', default: SECRETS_FILE } } });
  const file = path.resolve(values.file);
  const result = writeSecrets(file);
  process.stdout.write(
    result === 'kept'
      ? `compose-secrets: ${file} has every secret; kept as it is\n`
      : `compose-secrets: ${result === 'created' ? 'wrote' : 'completed'} ${file} (mode 0600)\n`,
  );
}
