// Shared queue configuration: connection, names, priorities, job retention.
import { Redis, type RedisOptions } from 'ioredis';
import { isRedisConnector, type RedisClient, type RedisConnector } from '@podset/redis';

/**
 * A Redis URL ("redis://host:6379/0"), ioredis options (one node or Sentinel), or a connector from
 * configuration (`redisConnector`: also Sentinel and Cluster). Clients made from it belong to the queue.
 */
export type QueueConnection = string | RedisOptions | RedisConnector;

export const DEFAULT_QUEUE_NAME = 'podset-reconcile';
/** BullMQ's default key prefix. For Redis Cluster use a hash tag, e.g. "{podset}". */
export const DEFAULT_PREFIX = 'podset';

/** BullMQ priorities: lower runs first. Live events jump ahead of relists and resyncs. */
export const PRIORITY = { live: 1, bulk: 1000 } as const;

export interface QueueLocation {
  connection: QueueConnection;
  /** Default "podset-reconcile". */
  queueName?: string;
  /** Key prefix; default "bull". Put it in a hash tag ("{podset}") on Redis Cluster. */
  prefix?: string;
}

export function resolveLocation(loc: QueueLocation): { queueName: string; prefix: string } {
  const queueName = loc.queueName ?? DEFAULT_QUEUE_NAME;
  const prefix = loc.prefix ?? DEFAULT_PREFIX;
  if (queueName === '' || queueName.includes(':')) {
    throw new Error(`queueName ${JSON.stringify(queueName)} must be non-empty and contain no ':'`);
  }
  if (prefix === '') throw new Error('prefix must be non-empty');
  return { queueName, prefix };
}

/**
 * The connection in the shape BullMQ takes: options (BullMQ creates and owns its clients), or, from a
 * connector, a client of ours (`owned`: BullMQ shares it, so the caller disconnects it after closing).
 */
export function bullConnection(connection: QueueConnection): {
  connection: (RedisOptions & { url?: string }) | RedisClient;
  owned?: RedisClient;
} {
  if (isRedisConnector(connection)) {
    const client = connection.client({ maxRetriesPerRequest: null });
    return { connection: client, owned: client };
  }
  return {
    connection:
      typeof connection === 'string'
        ? { url: connection, maxRetriesPerRequest: null }
        : { ...connection, maxRetriesPerRequest: null },
  };
}

/**
 * A plain ioredis client of our own (for the merge script). Auto-pipelined: the watcher issues dozens of
 * requests at once, and one write per tick instead of one per command is a large share of its CPU.
 */
export function createClient(connection: QueueConnection): RedisClient {
  if (isRedisConnector(connection))
    return connection.client({ maxRetriesPerRequest: 3, enableAutoPipelining: true });
  return typeof connection === 'string'
    ? new Redis(connection, { maxRetriesPerRequest: 3, enableAutoPipelining: true })
    : new Redis({ maxRetriesPerRequest: 3, enableAutoPipelining: true, ...connection });
}

/** How many finished jobs BullMQ keeps (for the dashboard), by count and, if given, age. */
export interface Retention {
  completed?: { count?: number; ageSeconds?: number };
  failed?: { count?: number; ageSeconds?: number };
}

/**
 * BullMQ's keepJobs. An age makes every finish of the kind scan its finished set for old jobs (one more
 * command inside moveToFinished), so it is only set when asked for or given as the default.
 */
export function keepJobs(
  r: { count?: number; ageSeconds?: number } | undefined,
  count: number,
  age?: number,
): { count: number; age?: number } {
  const ageSeconds = r?.ageSeconds ?? age;
  return { count: r?.count ?? count, ...(ageSeconds !== undefined ? { age: ageSeconds } : {}) };
}
