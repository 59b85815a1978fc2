// Redis with the shipped ACL file (libs/redis's aclFile, what `npm run redis-acl` prints and k8s/ loads) and
// one user per app, for e2e tests that run each app as its own Redis user. Passwords are fresh per env. The
// one change to the shipped file: `default` stays on with every right under an administrator's password,
// because the harness's own checks (queue counts, the test's reads) must see everything; the shipped file
// turns `default` off.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  aclFile,
  aclUsername,
  APP_USERS,
  SCRIPTS_USERNAME,
  type AclScope,
  type AppUser,
} from '@podset/redis';
import type { RedisOptions } from '@podset/testkit';

/** The passwords of one env's Redis users. */
export interface RedisUsers {
  /** `default`'s: every right, for the harness and the test's own checks. */
  readonly admin: string;
  /** Each app's user (podset-watcher, podset-worker, podset-dashboard). */
  readonly passwords: Readonly<Record<AppUser, string>>;
  /** The script loader's user (podset-scripts); the harness runs the loader as it. */
  readonly scripts: string;
  /** The operations user (podset-ops: SCRIPT KILL, INFO). */
  readonly ops: string;
}

const secret = (who: string) => `${who}-${randomBytes(24).toString('base64url')}`;

export function newRedisUsers(): RedisUsers {
  const passwords = Object.fromEntries(APP_USERS.map((app) => [app, secret(app)])) as Record<AppUser, string>;
  return { admin: secret('admin'), passwords, scripts: secret('scripts'), ops: secret('ops') };
}

/** Writes the ACL file into `dir` and returns how redis-server starts with it (no `--requirepass`). */
export function aclRedisOptions(dir: string, scope: AclScope, users: RedisUsers): RedisOptions {
  const file = path.join(dir, 'users.acl');
  const acl = aclFile(scope, users.passwords, { scripts: users.scripts, ops: users.ops }).replace(
    /^user default .*$/m,
    `user default on >${users.admin} ~* &* +@all`,
  );
  writeFileSync(file, acl, { mode: 0o600 });
  return { defaultUserPassword: users.admin, args: ['--aclfile', file] };
}

/** An app's Redis settings as its own user: the URL carries no credentials (a URL's user would win). */
export function appRedisEnv(port: number, users: RedisUsers, app: AppUser): Record<string, string> {
  return {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    REDIS_USERNAME: aclUsername(app),
    REDIS_PASSWORD: users.passwords[app],
  };
}

/** The script loader's Redis settings as podset-scripts, as it runs beside the Redis of k8s/ and compose. */
export function loaderRedisEnv(port: number, users: RedisUsers): Record<string, string> {
  return {
    REDIS_URL: `redis://127.0.0.1:${port}`,
    REDIS_USERNAME: SCRIPTS_USERNAME,
    REDIS_PASSWORD: users.scripts,
  };
}
