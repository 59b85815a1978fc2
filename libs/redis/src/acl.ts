// The Redis users of the apps, least privilege, defined once: the tests, the docs check and whoever sets
// up a Redis (an ACL file, or `ACL SETUSER` lines for a managed Redis) take them from here.
// - watcher: the writer of the projection, the event log and the reconcile requests: every key of the queue.
// - worker: the queue's job keys (BullMQ takes, locks and finishes jobs), its own parked keys, the
//   projection's expectations, pod entries and requests (its cleanup), the event log (a deleted PodSet's
//   entries); the projected PodSets and the ready marker only read. A worker that could write a projected
//   PodSet could make every worker plan from a forged spec.
// - dashboard: reads everything; writes job keys only when not read-only (retry, remove).
// Key permissions `%R~`/`%RW~` need Redis 7.0. Redis checks the keys a script declares as written even
// when the script only reads them, so a user reads through scripts with EVAL_RO/EVALSHA_RO (the
// dashboard) or passes a read-only key as an argument (the worker's projection read).
import { eventLogKeyOf, keyPatterns } from './keyspace.ts';

export type AppUser = 'watcher' | 'worker' | 'dashboard';

export const APP_USERS: readonly AppUser[] = ['watcher', 'worker', 'dashboard'];

/** Where the keys are (QUEUE_PREFIX, QUEUE_NAME, EVENT_LOG_KEY), and the dashboard's mode. */
export interface AclScope {
  prefix: string;
  queueName: string;
  /** EVENT_LOG_KEY when set; default <prefix>:<queue>:watcher:events (under the queue's keys). */
  eventLogKey?: string | undefined;
  /** DASHBOARD_READ_ONLY=false: the dashboard may retry and remove jobs. */
  dashboardWrites?: boolean;
}

/** The username of an app's user (REDIS_USERNAME of that app). */
export function aclUsername(app: AppUser): string {
  return `podset-${app}`;
}

/**
 * Every app: connect, read, run the scripts Redis has cached (EVALSHA; key permissions still apply to
 * each command a script runs). Never EVAL, EVAL_RO or SCRIPT LOAD: a script of one's own could keep
 * Redis busy for every client (a loop answers BUSY until killed, and one that wrote cannot be killed) or
 * fill its memory with cached scripts. The script loader (SCRIPTS_USERNAME) caches the operator's.
 */
const READ_COMMANDS = ['-@all', '+@connection', '+@read'];

/** The watcher and the workers: writes and MULTI/EXEC too. */
const WRITE_COMMANDS = ['+@write', '+@transaction'];

/**
 * Then, for every app: never FLUSHALL, KEYS, CONFIG, DEBUG… (-@dangerous), no scripting but EVALSHA
 * (FUNCTION LOAD is a write: taken away here); but INFO (BullMQ and ioredis ask it at connect, the
 * maxmemory-policy check at start reads it) and naming one's own connection. No CONFIG GET: it would show
 * the configuration's secrets (a `requirepass`, `masterauth`).
 */
const LAST_COMMANDS = [
  '-@dangerous',
  '-@scripting',
  '+evalsha',
  '+evalsha_ro',
  '+info',
  '+client|setname',
  '+client|getname',
  '+client|id',
  '+client|info',
];

// The key patterns come from libs/redis (keyspace.ts), where every key family is spelled.

/** The rules of an app's user (no name, no password): what follows `ACL SETUSER <name> on <password>`. */
export function aclRules(app: AppUser, scope: AclScope): string[] {
  const p = keyPatterns(scope.prefix, scope.queueName);
  const eventLog = eventLogKeyOf({
    EVENT_LOG_KEY: scope.eventLogKey,
    QUEUE_PREFIX: scope.prefix,
    QUEUE_NAME: scope.queueName,
  });
  const underQueue = matches(p.all, eventLog);
  const jobKeys = p.jobKeys.map((k) => `%RW~${k}`);
  const keys: string[] = ['resetkeys', 'resetchannels'];
  let commands: string[];
  switch (app) {
    case 'watcher':
      keys.push(`~${p.all}`, ...(underQueue ? [] : [`~${eventLog}`]));
      commands = [...READ_COMMANDS, ...WRITE_COMMANDS, ...LAST_COMMANDS];
      break;
    case 'worker':
      keys.push(
        `%R~${p.all}`,
        ...jobKeys,
        `%RW~${p.parked}`,
        `%RW~${p.projectionPods}`,
        `%RW~${p.projectionExpect}`,
        `%RW~${p.projectionRequested}`,
        `%RW~${eventLog}`,
      );
      commands = [...READ_COMMANDS, ...WRITE_COMMANDS, ...LAST_COMMANDS];
      break;
    case 'dashboard':
      keys.push(`%R~${p.all}`, ...(underQueue ? [] : [`%R~${eventLog}`]));
      if (scope.dashboardWrites === true) {
        keys.push(...jobKeys);
        commands = [...READ_COMMANDS, ...WRITE_COMMANDS, ...LAST_COMMANDS, '+client|list'];
      } else {
        // bull-board's list of workers (CLIENT LIST) is read-only.
        commands = [...READ_COMMANDS, ...LAST_COMMANDS, '+client|list'];
      }
      break;
  }
  return [...keys, ...commands];
}

/** Whether a key matches a pattern that ends in its only `*` (the install's `<prefix>:<queue>:*`). */
function matches(pattern: string, key: string): boolean {
  return key.startsWith(pattern.slice(0, -1));
}

/** `ACL SETUSER` arguments of an app's user with `password` (in clear: Redis stores its hash). */
export function aclSetUserArgs(app: AppUser, scope: AclScope, password: string): string[] {
  return [aclUsername(app), 'reset', 'on', `>${password}`, ...aclRules(app, scope)];
}

/** The Redis server's own user for its probes (`redis-cli -e --user podset-health ping`): PING only. */
export const HEALTH_USERNAME = 'podset-health';
export const HEALTH_RULES = ['resetkeys', 'resetchannels', '-@all', '+ping'];

/**
 * The script loader's user (apps/redis-init's redis-scripts.ts, beside Redis): caches the operator's
 * scripts (SCRIPT LOAD) and sees which are cached; INFO for its client's ready check; no key.
 */
export const SCRIPTS_USERNAME = 'podset-scripts';
export const SCRIPTS_RULES = [
  'resetkeys',
  'resetchannels',
  '-@all',
  '+ping',
  '+hello',
  '+auth',
  '+info',
  '+script|load',
  '+script|exists',
];

/**
 * A person's user for un-wedging Redis (docs/operations.md): see what runs (INFO, CLIENT LIST, SLOWLOG,
 * LATENCY), stop a running script or function (SCRIPT KILL, FUNCTION KILL) and cut a client off
 * (CLIENT KILL). No key, no configuration, no script of its own.
 */
export const OPS_USERNAME = 'podset-ops';
export const OPS_RULES = [
  'resetkeys',
  'resetchannels',
  '-@all',
  '+ping',
  '+hello',
  '+auth',
  '+info',
  '+script|kill',
  '+function|kill',
  '+function|stats',
  '+client|list',
  '+client|kill',
  '+client|info',
  '+slowlog|get',
  '+slowlog|len',
  '+latency|latest',
  '+latency|history',
  '+memory|stats',
  '+dbsize',
];

/** The passwords of the users beside the apps': each line is written only when its password is given. */
export interface ServiceUserPasswords {
  health?: string;
  scripts?: string;
  ops?: string;
}

/**
 * An ACL file (redis.conf `aclfile`) with the three users and the `default` user off: one line per user,
 * the password given as `>…` (or a placeholder to fill in, for docs); with a password for the probes',
 * the script loader's or the operations user, that user too.
 */
export function aclFile(
  scope: AclScope,
  passwords: Record<AppUser, string>,
  service: ServiceUserPasswords | string = {},
): string {
  const others = typeof service === 'string' ? { health: service } : service;
  const lines = APP_USERS.map((app) =>
    ['user', aclUsername(app), 'on', `>${passwords[app]}`, ...aclRules(app, scope)].join(' '),
  );
  const more: [string, string | undefined, string[]][] = [
    [HEALTH_USERNAME, others.health, HEALTH_RULES],
    [SCRIPTS_USERNAME, others.scripts, SCRIPTS_RULES],
    [OPS_USERNAME, others.ops, OPS_RULES],
  ];
  for (const [name, password, rules] of more)
    if (password !== undefined) lines.push(['user', name, 'on', `>${password}`, ...rules].join(' '));
  return ['user default off resetkeys -@all', ...lines, ''].join('\n');
}
