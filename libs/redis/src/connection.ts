// How every app reaches Redis, from configuration: one node (REDIS_URL), Sentinel (REDIS_SENTINELS +
// REDIS_SENTINEL_NAME) or Cluster (REDIS_CLUSTER_NODES). The variables are declared once here
// (`redisEnv`, spread into each app's env spec); `redisConnector` validates them together with
// QUEUE_PREFIX and returns a factory of ioredis clients, used for BullMQ's connections and for the
// apps' own clients (checkpoints, event log, rv store, probes) alike.
import { ConfigError, bool, list, optionalStr, url, type Config } from '@podset/config';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { sendScriptsBySha } from './script-sha.ts';
import type { RedisClient } from './script.ts';

const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}$/;

export const redisEnv = {
  REDIS_URL: url({
    description:
      'Single Redis node: redis://[user:password@]host:port[/db], rediss:// for TLS (not used when REDIS_SENTINELS or REDIS_CLUSTER_NODES is set)',
    default: 'redis://127.0.0.1:6379',
    protocols: ['redis:', 'rediss:'],
  }),
  REDIS_SENTINELS: list({
    description:
      'Redis Sentinel: comma-separated sentinels host:port; the primary is asked of them (with REDIS_SENTINEL_NAME)',
    default: [],
    item: HOST_PORT,
  }),
  REDIS_SENTINEL_NAME: optionalStr({
    description:
      'Redis Sentinel: name of the monitored primary (the `sentinel monitor <name>` of the sentinels)',
  }),
  REDIS_SENTINEL_PASSWORD: optionalStr({
    description: 'Redis Sentinel: password of the sentinels themselves, if they require one',
  }),
  REDIS_CLUSTER_NODES: list({
    description:
      'Redis Cluster: comma-separated seed nodes host:port; QUEUE_PREFIX must then contain a hash tag such as {podset}',
    default: [],
    item: HOST_PORT,
  }),
  REDIS_USERNAME: optionalStr({
    description: 'Redis ACL user (Sentinel/Cluster data nodes; for REDIS_URL when the URL names none)',
  }),
  REDIS_PASSWORD: optionalStr({
    description:
      'Redis password, e.g. from a Secret (k8s/ and compose set it): merged into REDIS_URL, which must then carry none; for Sentinel/Cluster, of the data nodes',
  }),
  REDIS_SKIP_EVICTION_CHECK: bool({
    description:
      "Start without checking that Redis's maxmemory-policy is noeviction and its maxmemory above 0 (each app refuses to start otherwise): only for a managed Redis that refuses INFO and is known to be set so",
    default: false,
  }),
  REDIS_TLS: bool({
    description: 'TLS to Redis, sentinels included (REDIS_URL: rediss:// does the same)',
    default: false,
  }),
} as const;

export type RedisConfig = Config<typeof redisEnv>;

/** Per-use tuning of a client (BullMQ wants maxRetriesPerRequest null; probes want no offline queue). */
export interface ClientTuning {
  maxRetriesPerRequest?: number | null;
  enableOfflineQueue?: boolean;
  connectTimeout?: number;
  /** Connect on the first command instead of at once. */
  lazyConnect?: boolean;
  /**
   * Send the commands issued in one tick as one write (ioredis auto-pipelining): for a client that
   * issues many small independent commands at once, as the watcher does per watch event. Single node
   * and Sentinel only (ignored on Cluster).
   */
  enableAutoPipelining?: boolean;
  /** Scripts sent as EVALSHA_RO/EVAL_RO: Redis refuses any write they try (a read-only dashboard). */
  readOnlyScripts?: boolean;
  /**
   * ioredis' INFO before the first command (default on). Off for a client that must get through while
   * Redis answers BUSY (the script loader's watchdog): a BUSY INFO fails the check and ioredis reconnects
   * for as long as the script runs, holding every command back.
   */
  enableReadyCheck?: boolean;
}

export interface RedisConnector {
  readonly mode: 'single' | 'sentinel' | 'cluster';
  /** Where Redis is, for logs (never a password). */
  readonly target: string;
  /** A new client; the caller owns it (disconnect it when done). */
  client(tuning?: ClientTuning): RedisClient;
}

export function isRedisConnector(value: unknown): value is RedisConnector {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { client?: unknown }).client === 'function' &&
    typeof (value as { mode?: unknown }).mode === 'string'
  );
}

/**
 * The hash tag of a key prefix as Redis Cluster computes it: the text between the first "{" and the
 * first "}" after it, when not empty. Undefined when the prefix has none.
 */
export function hashTag(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  if (open < 0) return undefined;
  const close = prefix.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return undefined;
  return prefix.slice(open + 1, close);
}

function hostPort(item: string): { host: string; port: number } {
  const at = item.lastIndexOf(':');
  const host = item.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(item.slice(at + 1)) };
}

/**
 * Validates the Redis variables (with QUEUE_PREFIX, which Cluster constrains) and returns the factory.
 * Throws ConfigError naming every variable at fault.
 */
/**
 * Whether the apps log in as the `default` user (no username: one password, or none), which may EVAL, so
 * its transactions send their scripts whole. One node: the URL's user wins over REDIS_USERNAME.
 */
function isDefaultUser(cfg: RedisConfig, parsed: URL, single: boolean): boolean {
  const urlUser = parsed.username !== '' ? decodeURIComponent(parsed.username) : undefined;
  const username = single ? (urlUser ?? cfg.REDIS_USERNAME) : cfg.REDIS_USERNAME;
  return (username ?? 'default') === 'default';
}

export function redisConnector(cfg: RedisConfig & { QUEUE_PREFIX: string }): RedisConnector {
  const problems: { variable: string; message: string }[] = [];
  const sentinels = cfg.REDIS_SENTINELS;
  const nodes = cfg.REDIS_CLUSTER_NODES;
  for (const [variable, items] of [
    ['REDIS_SENTINELS', sentinels],
    ['REDIS_CLUSTER_NODES', nodes],
  ] as const) {
    for (const item of items) {
      const port = hostPort(item).port;
      if (port < 1 || port > 65535) problems.push({ variable, message: `port of "${item}" out of range` });
    }
  }
  if (sentinels.length > 0 && nodes.length > 0) {
    problems.push({
      variable: 'REDIS_CLUSTER_NODES',
      message: 'set together with REDIS_SENTINELS: choose Sentinel or Cluster, not both',
    });
  }
  if (sentinels.length > 0 && cfg.REDIS_SENTINEL_NAME === undefined) {
    problems.push({
      variable: 'REDIS_SENTINEL_NAME',
      message: 'is required with REDIS_SENTINELS (the name the sentinels monitor the primary under)',
    });
  }
  if (sentinels.length === 0 && cfg.REDIS_SENTINEL_NAME !== undefined) {
    problems.push({ variable: 'REDIS_SENTINELS', message: 'is required when REDIS_SENTINEL_NAME is set' });
  }
  if (nodes.length > 0 && hashTag(cfg.QUEUE_PREFIX) === undefined) {
    problems.push({
      variable: 'QUEUE_PREFIX',
      message:
        `must contain a hash tag such as {podset} with Redis Cluster (REDIS_CLUSTER_NODES), got ` +
        `"${cfg.QUEUE_PREFIX}": BullMQ's scripts use several keys of a queue at once, which Cluster ` +
        'allows only when they hash to one slot',
    });
  }
  // One place for the password: with two, which one is used would be a guess for whoever reads the config.
  const parsed = new URL(cfg.REDIS_URL);
  if (sentinels.length === 0 && nodes.length === 0 && cfg.REDIS_PASSWORD !== undefined) {
    if (parsed.password !== '') {
      problems.push({
        variable: 'REDIS_PASSWORD',
        message:
          'is set while REDIS_URL carries a password too: give it in one place (REDIS_PASSWORD, e.g. from a Secret, with a REDIS_URL without one)',
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const auth = {
    ...(cfg.REDIS_USERNAME !== undefined ? { username: cfg.REDIS_USERNAME } : {}),
    ...(cfg.REDIS_PASSWORD !== undefined ? { password: cfg.REDIS_PASSWORD } : {}),
  };
  const tls = cfg.REDIS_TLS ? { tls: {} } : {};
  // Every client runs scripts by EVALSHA (the apps' users may not EVAL): libs/redis's script-sha.ts.
  const evalInTransactions = isDefaultUser(cfg, parsed, nodes.length === 0 && sentinels.length === 0);
  const bySha = <C extends RedisClient>(client: C, t: ClientTuning): C =>
    sendScriptsBySha(client, { readOnly: t.readOnlyScripts === true, evalInTransactions });
  if (nodes.length > 0) {
    const startup = nodes.map(hostPort);
    return {
      mode: 'cluster',
      target: `cluster ${nodes.join(',')}`,
      client(t = {}) {
        // Not auto-pipelined on Cluster: ioredis would batch per slot and answer a cross-slot script with
        // an error of its own instead of Redis's CROSSSLOT; the single-node and Sentinel clients are.
        // eslint-disable-next-line @typescript-eslint/no-unused-vars
        const { enableOfflineQueue, lazyConnect, enableAutoPipelining, ...perNode } = tuned(t);
        const options: ClusterOptions = {
          redisOptions: { ...auth, ...tls, ...perNode },
          ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
          ...(lazyConnect !== undefined ? { lazyConnect } : {}),
        };
        return bySha(new Cluster(startup, options), t);
      },
    };
  }
  if (sentinels.length > 0) {
    const name = cfg.REDIS_SENTINEL_NAME!;
    return {
      mode: 'sentinel',
      target: `sentinel ${name}@${sentinels.join(',')}`,
      client(t = {}) {
        const options: RedisOptions = {
          sentinels: sentinels.map(hostPort),
          name,
          ...auth,
          ...(cfg.REDIS_SENTINEL_PASSWORD !== undefined
            ? { sentinelPassword: cfg.REDIS_SENTINEL_PASSWORD }
            : {}),
          ...(cfg.REDIS_TLS ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
          ...tuned(t),
        };
        return bySha(new Redis(options), t);
      },
    };
  }
  // The URL's own user wins, REDIS_USERNAME fills in when it names none; the password is in one of the two
  // only (checked above), so REDIS_PASSWORD, when set, is the one.
  const fill = {
    ...(parsed.username === '' && cfg.REDIS_USERNAME !== undefined ? { username: cfg.REDIS_USERNAME } : {}),
    ...(cfg.REDIS_PASSWORD !== undefined ? { password: cfg.REDIS_PASSWORD } : {}),
  };
  return {
    mode: 'single',
    target: `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`,
    client(t = {}) {
      return bySha(new Redis(cfg.REDIS_URL, { ...fill, ...tls, ...tuned(t) }), t);
    },
  };
}

/** ioredis options from a client's tuning: only what it sets, and 3 retries per request by default. */
function tuned(t: ClientTuning) {
  return {
    maxRetriesPerRequest: t.maxRetriesPerRequest === undefined ? 3 : t.maxRetriesPerRequest,
    ...(t.enableOfflineQueue !== undefined ? { enableOfflineQueue: t.enableOfflineQueue } : {}),
    ...(t.connectTimeout !== undefined ? { connectTimeout: t.connectTimeout } : {}),
    ...(t.lazyConnect !== undefined ? { lazyConnect: t.lazyConnect } : {}),
    ...(t.enableAutoPipelining !== undefined ? { enableAutoPipelining: t.enableAutoPipelining } : {}),
    ...(t.enableReadyCheck !== undefined ? { enableReadyCheck: t.enableReadyCheck } : {}),
  };
}

/** The Redis variables of one node at `url`, nothing else set (QUEUE_PREFIX only matters to Cluster). */
export function singleNodeConfig(redisUrl: string): RedisConfig & { QUEUE_PREFIX: string } {
  return {
    REDIS_URL: redisUrl,
    REDIS_SENTINELS: [],
    REDIS_SENTINEL_NAME: undefined,
    REDIS_SENTINEL_PASSWORD: undefined,
    REDIS_CLUSTER_NODES: [],
    REDIS_USERNAME: undefined,
    REDIS_PASSWORD: undefined,
    REDIS_TLS: false,
    REDIS_SKIP_EVICTION_CHECK: false,
    QUEUE_PREFIX: 'unused',
  };
}

/** A connector for one node at `url` (tests, and callers that hold a plain URL). */
export function urlConnector(redisUrl: string): RedisConnector {
  return redisConnector(singleNodeConfig(redisUrl));
}
