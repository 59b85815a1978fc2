// BullMQ keeps its locks, jobs and the operator's projection in Redis and needs every key to stay until
// it is deleted: with any other maxmemory-policy than noeviction, a full Redis silently drops a lock (two
// reconciles of one PodSet at once) or a projection. And noeviction without a maxmemory (0, redis-server's
// default) is no limit at all: Redis grows until the kernel or the container runtime kills it, and what
// it had not yet written to disk is lost. So each app asks every Redis node it writes to for its policy and
// its maxmemory before it starts, and refuses to start on anything else. It reads them from INFO memory, not
// CONFIG GET: the apps' Redis users may not read the configuration (it holds secrets such as a
// requirepass). Services that hide INFO are let through only by an explicit opt-out
// (REDIS_SKIP_EVICTION_CHECK).
import type { RedisClient } from './script.ts';
import type { RedisConnector } from './connection.ts';
import { systemClock, type Clock } from '@podset/clock';
import type { Logger } from '@podset/log';
import { Cluster, type Redis } from 'ioredis';

export type PolicyVerdict =
  | { ok: true; nodes: string[] }
  | { ok: false; problem: 'policy' | 'maxmemory' | 'config-refused' | 'auth'; message: string };

const OPT_OUT = 'REDIS_SKIP_EVICTION_CHECK';
const HOW_TO_FIX =
  'set it with `CONFIG SET maxmemory-policy noeviction` (and in redis.conf: `maxmemory-policy noeviction`), ' +
  "or in a managed Redis's parameter group";

export interface PolicyCheckOptions {
  /** Each connection error while Redis is not reachable yet (the check waits for it). */
  onWaiting?: (err: Error) => void;
  /** Gives up waiting (a signal during start-up). */
  signal?: AbortSignal;
  /** Paces the retries while Redis is loading or forming. */
  clock?: Pick<Clock, 'sleep'>;
}

/** Where a node is, for messages: host:port, never a password. */
function addressOf(node: Redis): string {
  const { host, port } = node.options;
  return `${host ?? '127.0.0.1'}:${port ?? 6379}`;
}

/** The target, and for Sentinel the primary it resolved to (the node actually asked). */
function withPrimary(connector: RedisConnector, node: Redis): string {
  const socket = node.stream as { remoteAddress?: string; remotePort?: number } | undefined;
  if (connector.mode !== 'sentinel' || socket?.remoteAddress === undefined) return connector.target;
  return `${connector.target} (primary ${socket.remoteAddress}:${socket.remotePort})`;
}

/** The verdict an error gives, or undefined for one to wait out (e.g. LOADING while Redis reads its AOF). */
function verdictOfError(err: unknown, where: string): PolicyVerdict | undefined {
  const text = err instanceof Error ? err.message : String(err);
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(text)) {
    return {
      ok: false,
      problem: 'auth',
      message:
        `Redis at ${where} refused the credentials (${text.split('.')[0]}): check the password in ` +
        'REDIS_URL or REDIS_PASSWORD (and REDIS_USERNAME for an ACL user)',
    };
  }
  if (/unknown command|NOPERM|no permissions/i.test(text)) {
    return {
      ok: false,
      problem: 'config-refused',
      message:
        `Redis at ${where} refused INFO memory (${text}), so the apps cannot check that it ` +
        `never evicts keys. Make sure its maxmemory-policy is noeviction (${HOW_TO_FIX}), then set ` +
        `${OPT_OUT}=true to start without the check`,
    };
  }
  return undefined;
}

function delay(clock: Pick<Clock, 'sleep'>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return clock.sleep(ms, signal).catch(() => undefined);
}

/** A field of INFO memory (`maxmemory_policy`, `maxmemory`), '' when Redis does not give it. */
async function memoryInfoOf(node: Redis): Promise<(field: string) => string> {
  const text = await node.info('memory');
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return (field) => fields.get(field) ?? '';
}

async function nodesOf(client: RedisClient): Promise<Redis[]> {
  if (!(client instanceof Cluster)) return [client];
  // Replicas too: a failover makes one of them the node the queue writes to.
  await client.ping();
  return client.nodes('all');
}

/**
 * Asks every node the apps write to (the one node; the Sentinel primary; every Cluster node) for its
 * maxmemory-policy. Waits while Redis is unreachable; a refused INFO or wrong credentials are verdicts.
 */
export async function checkEvictionPolicy(
  connector: RedisConnector,
  options: PolicyCheckOptions = {},
): Promise<PolicyVerdict | undefined> {
  const client = connector.client({ maxRetriesPerRequest: null });
  client.on('error', (err: Error) => options.onWaiting?.(err));
  const aborted = new Promise<undefined>((resolve) => {
    if (options.signal?.aborted === true) resolve(undefined);
    options.signal?.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  const check = async (): Promise<PolicyVerdict | undefined> => {
    let where = connector.target;
    try {
      const nodes = await nodesOf(client);
      const seen: string[] = [];
      for (const node of nodes) {
        const memory = await memoryInfoOf(node);
        const policy = memory('maxmemory_policy');
        where = client instanceof Cluster ? addressOf(node) : withPrimary(connector, node);
        if (policy !== 'noeviction') {
          return {
            ok: false,
            problem: 'policy',
            message:
              `Redis at ${where} has maxmemory-policy ${policy}: it may evict the queue's locks and state ` +
              `when full. The apps need maxmemory-policy noeviction: ${HOW_TO_FIX}`,
          };
        }
        const maxmemory = memory('maxmemory');
        if (!/^\d+$/.test(maxmemory) || Number(maxmemory) <= 0) {
          return {
            ok: false,
            problem: 'maxmemory',
            message:
              `Redis at ${where} has maxmemory ${maxmemory === '' ? '(none)' : maxmemory}: with no limit it ` +
              'grows until it is killed for memory, losing what it had not written to disk. Set a maxmemory ' +
              "below the memory it may use (`CONFIG SET maxmemory 768mb`, redis.conf's `maxmemory`, or a " +
              "managed Redis's parameter group)",
          };
        }
        seen.push(where);
      }
      return { ok: true, nodes: seen };
    } catch (err) {
      const verdict = verdictOfError(err, where);
      if (verdict === undefined) options.onWaiting?.(err instanceof Error ? err : new Error(String(err)));
      return verdict;
    }
  };
  const untilVerdict = async (): Promise<PolicyVerdict | undefined> => {
    // Errors that pass (Redis loading its data, a Cluster still forming) are asked again, backing off.
    for (let attempt = 0; options.signal?.aborted !== true; attempt++) {
      const verdict = await check();
      if (verdict !== undefined) return verdict;
      await delay(options.clock ?? systemClock, Math.min(250 * 2 ** attempt, 5_000), options.signal);
    }
    return undefined;
  };
  try {
    return await Promise.race([untilVerdict(), aborted]);
  } finally {
    client.disconnect();
  }
}

/**
 * For an app's start: the check, or its message on stderr and exit 2 (a configuration error, as a bad
 * variable is). `skip` is the opt-out.
 */
export async function requireNoEviction(
  app: string,
  connector: RedisConnector,
  opts: {
    skip: boolean;
    log: Pick<Logger, 'info' | 'warn'>;
    signal?: AbortSignal;
    exit?: (code: number) => never;
  },
): Promise<void> {
  if (opts.skip) {
    opts.log.warn(
      { redis: connector.target },
      `${OPT_OUT} is set: not checking that Redis's maxmemory-policy is noeviction`,
    );
    return;
  }
  let waits = 0;
  const verdict = await checkEvictionPolicy(connector, {
    ...(opts.signal !== undefined ? { signal: opts.signal } : {}),
    onWaiting: (err) => {
      // Every failed connection attempt says so (ioredis backs off up to 2 s between them).
      waits++;
      opts.log.warn(
        { redis: connector.target, err: err.message, attempt: waits },
        'redis connection error: waiting to check its maxmemory-policy',
      );
    },
  });
  if (verdict === undefined) return; // a signal came: the app's stop takes over
  if (verdict.ok) {
    opts.log.info({ redis: connector.target, nodes: verdict.nodes }, 'redis maxmemory-policy is noeviction');
    return;
  }
  process.stderr.write(`${app}: ${verdict.message}\n`);
  (opts.exit ?? process.exit)(2);
}
