// Redis's memory against its maxmemory, read at scrape time (INFO memory), so an alert can warn before
// a full Redis refuses the queue's writes (with noeviction it refuses rather than evicts). One series per
// node the queue writes to: the one node, the Sentinel primary, or each Cluster master.
import type { RedisClient } from '@podset/redis';
import { Cluster, type Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import { withTimeout } from './timeout.ts';

const READ_TIMEOUT_MS = 3_000;

export interface RedisMemory {
  /** host:port for a Cluster node, else the connector's target. */
  node: string;
  usedBytes: number;
  /** 0: no maxmemory set. */
  maxBytes: number;
}

/** used_memory and maxmemory of an INFO memory reply; NaN where a field is missing. */
export function parseInfoMemory(info: string): { usedBytes: number; maxBytes: number } {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)\\s*$`, 'm').exec(info)?.[1] ?? NaN);
  return { usedBytes: field('used_memory'), maxBytes: field('maxmemory') };
}

export async function readRedisMemory(client: RedisClient, target: string): Promise<RedisMemory[]> {
  const nodes: [string, Redis][] =
    client instanceof Cluster
      ? client.nodes('master').map((n) => [`${n.options.host}:${n.options.port}`, n])
      : [[target, client]];
  return await Promise.all(
    nodes.map(async ([node, redis]) => ({ node, ...parseInfoMemory(await redis.info('memory')) })),
  );
}

/** podset_redis_memory_used_bytes and podset_redis_maxmemory_bytes{node}; no samples while Redis is away. */
export function redisMemoryGauges(
  registry: Registry,
  read: () => Promise<RedisMemory[]>,
  onError: (err: Error) => void = () => undefined,
): void {
  // One INFO per scrape for both series: the registry collects them at once, so they share a read in flight.
  let pending: Promise<RedisMemory[]> | undefined;
  const current = () => {
    if (pending === undefined) {
      pending = withTimeout(read(), READ_TIMEOUT_MS, 'redis INFO memory').finally(() => {
        pending = undefined;
      });
      pending.catch(onError);
    }
    return pending;
  };
  const gauge = (name: string, help: string, value: (m: RedisMemory) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['node'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const memory = await current().catch(() => []);
        for (const m of memory) if (Number.isFinite(value(m))) this.set({ node: m.node }, value(m));
      },
    });
  gauge(
    'podset_redis_memory_used_bytes',
    'Memory Redis uses for its data (INFO memory used_memory), read at scrape time',
    (m) => m.usedBytes,
  );
  gauge(
    'podset_redis_maxmemory_bytes',
    "Redis's maxmemory (0: none set), read at scrape time",
    (m) => m.maxBytes,
  );
}
