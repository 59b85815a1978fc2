// The Redis ACL of a chaos run with `redisAcl`: each app its own user, as an ACL-enabled install runs them.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { aclFile, aclUsername, SCRIPTS_USERNAME, APP_USERS, type AppUser } from '@podset/redis';

export /**
 * An ACL file for the apps' users, `default` keeping every right (for the run's own reads) under `admin`,
 * and the script loader's user: the apps' users run only the scripts it caches (again after each restart).
 */
function chaosAcl(
  dir: string,
  admin: string,
): { file: string; appEnv: (app: AppUser) => Record<string, string>; loaderEnv: Record<string, string> } {
  const passwords = Object.fromEntries(
    APP_USERS.map((app) => [app, randomBytes(18).toString('base64url')]),
  ) as Record<AppUser, string>;
  const scripts = randomBytes(18).toString('base64url');
  const file = path.join(dir, 'users.acl');
  const scope = {
    prefix: process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX,
    queueName: process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME,
  };
  writeFileSync(
    file,
    aclFile(scope, passwords, { scripts }).replace(
      /^user default .*$/m,
      `user default on >${admin} ~* &* +@all`,
    ),
  );
  return {
    file,
    appEnv: (app) => ({ REDIS_USERNAME: aclUsername(app), REDIS_PASSWORD: passwords[app] }),
    loaderEnv: { REDIS_USERNAME: SCRIPTS_USERNAME, REDIS_PASSWORD: scripts },
  };
}
