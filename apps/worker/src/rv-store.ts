// "Expectations, expressed as resourceVersions": the newest resourceVersion of the worker's own writes
// (pod creates and deletes, status) per PodSet key. A later reconcile, on any replica, may then LIST with
// resourceVersionMatch=NotOlderThan that RV and is sure to see its own earlier writes, so it never
// creates twice. Kept in Redis so every worker replica shares it; in memory for a single process.
import { rvMax, RV_NEWER_LUA, type RedisClient } from '@podset/state';

export interface RvStore {
  get(key: string): Promise<string | undefined>;
  /** Raise the stored RV to `rv` if it is newer (never lowers it). */
  raise(key: string, rv: string): Promise<void>;
  forget(key: string): Promise<void>;
}

export function memoryRvStore(): RvStore {
  const map = new Map<string, string>();
  return {
    get: (key) => Promise.resolve(map.get(key)),
    raise: (key, rv) => {
      const next = rvMax(map.get(key), rv);
      if (next !== undefined) map.set(key, next);
      return Promise.resolve();
    },
    forget: (key) => {
      map.delete(key);
      return Promise.resolve();
    },
  };
}

const RAISE = `${RV_NEWER_LUA}
local cur = redis.call('GET', KEYS[1])
local new = ARGV[1]
if rvNewer(new, cur) then
  redis.call('SET', KEYS[1], new, 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

/** Shared by all replicas. Entries expire after `ttlMs` (default 1 h) without writes. */
export function redisRvStore(client: RedisClient, opts: { prefix?: string; ttlMs?: number } = {}): RvStore {
  const prefix = opts.prefix ?? 'podset:rv:';
  const ttl = String(opts.ttlMs ?? 3_600_000);
  return {
    async get(key) {
      return (await client.get(prefix + key)) ?? undefined;
    },
    async raise(key, rv) {
      if (!/^[0-9]+$/.test(rv)) return;
      await client.eval(RAISE, 1, prefix + key, rv.replace(/^0+(?=.)/, ''), ttl);
    },
    async forget(key) {
      await client.del(prefix + key);
    },
  };
}
