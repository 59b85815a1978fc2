// Parked keys: PodSets whose reconcile failed its last attempt. A parked key is retried no sooner than
// its `until` (one attempt, then parked again) unless its spec changes: a request that arrives meanwhile
// (a resync, a pod event) must not restart the attempts from the first, short backoff — that would turn
// a permanent error (an invalid template, a quota) into a steady stream of rejected writes. Kept in
// Redis so that every worker replica honours it and it outlives the failed job.
// A record read back is bounded: a worker parks a key for PARKED_RETRY_SECONDS, so one whose `until` lies
// further ahead (2100, 9e15: past what a Date holds), or that is not a record at all, was not written by a
// worker. It is reported and taken as not parked: the key is reconciled, and parked again if it fails.
import type { RedisClient } from '@podset/redis';
import { systemClock, type Clock } from '@podset/clock';
import type { OutOfBoundsReport } from './out-of-bounds.ts';

export interface Parked {
  /**
   * The PodSet's metadata.uid when it was parked: another one (the PodSet deleted and created again under
   * the same name) starts afresh. Absent in records written before it was kept.
   */
  uid?: string;
  /** The PodSet's metadata.generation when it was parked: a newer one (a spec change) unparks it. */
  generation: number;
  /** Epoch ms before which the key is not retried. */
  until: number;
}

export interface ParkStore {
  get(key: string): Promise<Parked | undefined>;
  park(key: string, parked: Parked): Promise<void>;
  /** The key reconciled successfully, changed its spec, or was deleted. */
  clear(key: string): Promise<void>;
}

export function memoryParkStore(): ParkStore {
  const map = new Map<string, Parked>();
  return {
    get: (key) => Promise.resolve(map.get(key)),
    park: (key, parked) => {
      map.set(key, { ...parked });
      return Promise.resolve();
    },
    clear: (key) => {
      map.delete(key);
      return Promise.resolve();
    },
  };
}

/**
 * How far ahead of this worker's clock a record's `until` may lie beyond the parked retry: the clocks of
 * the replicas that wrote it differ a little.
 */
export const PARK_CLOCK_SKEW_MS = 60_000;

/** Parses a stored record; anything else (a foreign or corrupt value) counts as not parked. */
export function parseParked(text: string | null): Parked | undefined {
  if (text === null) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return undefined;
    const { uid, generation, until } = v as Record<string, unknown>;
    if (typeof generation !== 'number' || typeof until !== 'number') return undefined;
    if (!Number.isSafeInteger(generation) || generation < 0) return undefined;
    if (!Number.isSafeInteger(until) || until < 0) return undefined;
    return { ...(typeof uid === 'string' ? { uid } : {}), generation, until };
  } catch {
    return undefined;
  }
}

/**
 * A stored record read at `now`: the record, or why it is out of bounds. `maxAheadMs`: the furthest ahead
 * of now a worker parks a key.
 */
export function parkedOutOfBounds(
  text: string,
  now: number,
  maxAheadMs: number,
): { parked?: Parked; why?: string } {
  const parked = parseParked(text);
  if (parked === undefined) return { why: 'not a park record (uid, whole generation and until)' };
  if (parked.until > now + maxAheadMs) {
    return { why: `its retry time is more than ${Math.round(maxAheadMs / 1000)} s ahead` };
  }
  return { parked };
}

/**
 * One Redis string per parked key, expiring a while after its `until` (so a key whose PodSet vanished
 * while parked leaves nothing behind for long). `prefix` keeps them beside the queue's keys. `maxAheadMs`
 * (the parked retry plus PARK_CLOCK_SKEW_MS) bounds what `get` accepts; a record out of bounds goes to
 * `outOfBounds` and reads as not parked.
 */
export function redisParkStore(
  client: RedisClient,
  opts: {
    prefix: string;
    maxAheadMs: number;
    outOfBounds?: OutOfBoundsReport;
    graceMs?: number;
    clock?: Pick<Clock, 'now'>;
  },
): ParkStore {
  const grace = opts.graceMs ?? 3_600_000;
  const clock = opts.clock ?? systemClock;
  return {
    async get(key) {
      const text = await client.get(opts.prefix + key);
      if (text === null) return undefined;
      const { parked, why } = parkedOutOfBounds(text, clock.now(), opts.maxAheadMs);
      if (why !== undefined) opts.outOfBounds?.({ what: 'park', key, why });
      return parked;
    },
    async park(key, parked) {
      const ttl = Math.max(1, Math.round(parked.until - clock.now() + grace));
      await client.set(opts.prefix + key, JSON.stringify(parked), 'PX', ttl);
    },
    async clear(key) {
      await client.del(opts.prefix + key);
    },
  };
}
