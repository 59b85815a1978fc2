// The in-cluster Redis's ACL file, made at each start of the Redis pod (its init container redis-acl;
// compose's one-shot service of the same name) from the one definition of the apps' users (@podset/redis's
// acl.ts), the queue's settings and each user's password: Redis loads it with `--aclfile`, where the
// `default` user is off. Made afresh at every start, so a rotated password or a new QUEUE_PREFIX takes
// effect with the restart of Redis, and the rules are never written anywhere else.
import { bool, parseEnv, str, type Config } from '@podset/config';
import { queueEnv } from '@podset/queue';
import { aclFile, type AppUser } from '@podset/redis';

/** What Redis's ACL file syntax takes as one `>password` word: no space, quote or backslash. */
const PASSWORD = /^[^\s"'\\]{16,}$/;

function password(user: string): ReturnType<typeof str> {
  return str({
    description: `The password of the Redis user podset-${user} (at least 16 characters, no space, quote or backslash)`,
    required: true,
    pattern: PASSWORD,
  });
}

export const redisAclEnv = {
  ...queueEnv,
  DASHBOARD_READ_ONLY: bool({
    description: "The dashboard's DASHBOARD_READ_ONLY: false gives its user the job writes (retry, remove)",
    default: true,
  }),
  REDIS_ACL_FILE: str({ description: 'Where to write the ACL file', required: true }),
  REDIS_WATCHER_PASSWORD: password('watcher'),
  REDIS_WORKER_PASSWORD: password('worker'),
  REDIS_DASHBOARD_PASSWORD: password('dashboard'),
  REDIS_HEALTH_PASSWORD: password('health'),
  REDIS_SCRIPTS_PASSWORD: password('scripts'),
  REDIS_OPS_PASSWORD: password('ops'),
} as const;

export type RedisAclConfig = Config<typeof redisAclEnv>;

/** The ACL file's text for `env` (throws a ConfigError naming each missing or invalid variable). */
export function redisAclFileText(env: Record<string, string | undefined>): string {
  const cfg = parseEnv(redisAclEnv, env);
  const passwords: Record<AppUser, string> = {
    watcher: cfg.REDIS_WATCHER_PASSWORD,
    worker: cfg.REDIS_WORKER_PASSWORD,
    dashboard: cfg.REDIS_DASHBOARD_PASSWORD,
  };
  return aclFile(
    {
      prefix: cfg.QUEUE_PREFIX,
      queueName: cfg.QUEUE_NAME,
      eventLogKey: cfg.EVENT_LOG_KEY,
      dashboardWrites: !cfg.DASHBOARD_READ_ONLY,
    },
    passwords,
    {
      health: cfg.REDIS_HEALTH_PASSWORD,
      scripts: cfg.REDIS_SCRIPTS_PASSWORD,
      ops: cfg.REDIS_OPS_PASSWORD,
    },
  );
}
