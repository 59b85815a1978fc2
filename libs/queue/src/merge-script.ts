// One atomic Redis script that folds a reconcile request into the job already pending for its key.
//
// BullMQ's deduplication (keepLastIfActive) keeps at most one pending job per key, but when a request is
// deduplicated it is dropped (key waiting/delayed) or overwrites the stored next job (key active). This
// script makes the merge lossless and order-preserving, inside Redis, so no worker can take the job
// half-way through:
//  - data: source live wins, max resourceVersion, earliest firstRequestedAt/dueAt, reasons appended,
//    trace contexts (traceparents) appended up to a bound;
//  - a delayed job is moved earlier (or made waiting) when the request is due sooner — never later;
//  - a waiting job's priority is raised (never lowered) when the request has a higher one;
//  - while the key is active, the stored next job (dn:<key>) gets the same merge.
// It relies on BullMQ's key layout (keyspace.ts in libs/redis) and scores (delayed: due·0x1000+seq; prioritized:
// priority·2^32+counter; marker zset); the integration tests pin that behaviour.
import { bullKeys, luaScriptOf, runScript, RV_NEWER_LUA } from '@podset/redis';
import type { RedisClient } from './connection.ts';
import { MAX_REASONS, MAX_TRACEPARENTS } from './payload.ts';

/** The bounds come from payload.ts, the resourceVersion order from libs/redis: each written once. */
const MERGE = luaScriptOf(
  `local MAX_REASONS = ${MAX_REASONS}\nlocal MAX_TRACEPARENTS = ${MAX_TRACEPARENTS}`,
  RV_NEWER_LUA,
  new URL('./lua/merge.lua', import.meta.url),
);

export type MergeMode = 'request' | 'after-add' | 'after-finish';

export interface MergeKeys {
  /** BullMQ's job key prefix: "<prefix>:<queue>:". */
  jobPrefix: string;
  dedupId: string;
}

export interface MergeArgs {
  mode: MergeMode;
  now: number;
  due?: number;
  priority?: number;
  /** The incoming request's mergeable fields (JSON). */
  incoming?: string;
  /** request/after-add: the producer's lock token; after-finish: the id of the job that just finished. */
  lockToken?: string;
  lockTtlMs?: number;
  /** after-add: the id of the job the add created from this request ('' when it created none). */
  addedJobId?: string;
}

/**
 * How long a producer may hold a key's request lock (it spans one add only): past it, another producer
 * may take the key even if the holder died between its merge and its add.
 */
export const REQUEST_LOCK_TTL_MS = 5_000;

export interface MergeResult {
  outcome: 'merged' | 'add' | 'busy' | 'active' | 'finished' | 'absent';
  jobId: string;
  state: string;
}

export async function runMerge(client: RedisClient, keys: MergeKeys, args: MergeArgs): Promise<MergeResult> {
  const k = bullKeys(keys.jobPrefix);
  const keyList = [
    k.dedup(keys.dedupId),
    k.dedupNext(keys.dedupId),
    k.delayed,
    k.prioritized,
    k.wait,
    k.active,
    k.marker,
    k.events,
    k.pc,
    k.meta,
    k.requestLock(keys.dedupId),
  ];
  const argv = [
    keys.jobPrefix,
    String(args.now),
    args.mode,
    String(args.due ?? args.now),
    String(args.priority ?? 0),
    args.incoming ?? '{}',
    args.lockToken ?? '',
    String(args.lockTtlMs ?? REQUEST_LOCK_TTL_MS),
    args.addedJobId ?? '',
  ];
  const raw = await runScript(client, MERGE, keyList, argv);
  const [outcome, jobId, state] = raw as [MergeResult['outcome'], string, string];
  return { outcome, jobId, state };
}
