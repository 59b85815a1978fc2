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
// A request runs it once (request: merged into a pending job, or covered by it, the common case, one round
// trip), else twice more in one transaction around BullMQ's own add (reconcile-queue.ts): before-add merges,
// and holds a stored next job aside (dh:<key>) that the add would replace with the request alone; after-add
// puts it back and says whether the add created the key's job.
// It relies on BullMQ's key layout (keyspace.ts in libs/redis) and scores (delayed: due·0x1000+seq; prioritized:
// priority·2^32+counter; marker zset); the integration tests pin that behaviour.
import { bullKeys, luaModule, luaScriptOf, runScript, RV_NEWER_LUA } from '@podset/redis';
import type { RedisClient } from '@podset/redis';
import { COVER_RULE_LUA } from './live-cover.ts';
import { MAX_REASONS, MAX_TRACEPARENTS } from './payload.ts';

/**
 * The bounds come from payload.ts, the resourceVersion order from libs/redis, the cover rule from
 * live-cover.ts: each written once.
 */
/**
 * Lua defining mergeInto(q, jobId, inc, due, prio, now, afterFinish), the merge of a request (`inc`, its
 * fields as a table) into a key's job wherever it is, and queueKeysOf(jobPrefix, dedupId), the queue's keys
 * it takes (merge-job.lua). merge.lua runs it, and so does the watcher's fold (live-request.ts).
 */
export const MERGE_JOB_LUA = luaModule('merge-job', new URL('./lua/merge-job.lua', import.meta.url), [
  luaModule(
    'merge-bounds',
    `local MAX_REASONS = ${MAX_REASONS}\nlocal MAX_TRACEPARENTS = ${MAX_TRACEPARENTS}`,
  ),
  RV_NEWER_LUA,
  COVER_RULE_LUA,
]);

const MERGE = luaScriptOf(new URL('./lua/merge.lua', import.meta.url), [MERGE_JOB_LUA]);

/**
 * request: merge into the key's pending job if it has one (with the request's writes; `covered` when the
 * cover rule says that job already runs no later and at no lower priority than asked), else say so;
 * before-add / after-add: around BullMQ's add of a request, in one transaction (reconcile-queue.ts);
 * after-finish: pull the next job of a key whose job just finished back to its earliest due time.
 */
export type MergeMode = 'request' | 'before-add' | 'after-add' | 'after-finish';

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
  /** after-finish: the id of the job that just finished. */
  finishedJobId?: string;
  /** after-add: the id the add was given (the key's job, or its stored next job, when the add made it). */
  addedJobId?: string;
  /** request, after-add: hash fields written (or deleted) with the merge, only when the request landed. */
  writes?: readonly { key: string; field: string; value: string | undefined }[];
}

export interface MergeResult {
  outcome: 'merged' | 'covered' | 'created' | 'active' | 'finished' | 'absent';
  jobId: string;
  state: string;
}

/** The script's keys for a key of the queue under `jobPrefix`. */
export function mergeKeys(keys: MergeKeys): string[] {
  const k = bullKeys(keys.jobPrefix);
  return [
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
    k.heldNext(keys.dedupId),
  ];
}

/** The script's arguments. */
export function mergeArgv(jobPrefix: string, args: MergeArgs): string[] {
  return [
    jobPrefix,
    String(args.now),
    args.mode,
    String(args.due ?? args.now),
    String(args.priority ?? 0),
    args.incoming ?? '{}',
    args.finishedJobId ?? '',
    '',
    args.addedJobId ?? '',
  ];
}

/**
 * The script as ioredis defines it on a client (to run inside a transaction beside BullMQ's add), called
 * with the number of keys first (mergeCall): after-add carries the request's writes as extra keys.
 */
export const MERGE_COMMAND = { lua: MERGE.source } as const;

/** The script's keys and arguments for `args`, its writes (request, after-add) among them. */
function mergeCall(keys: MergeKeys, args: MergeArgs): { keys: string[]; argv: string[] } {
  const writes = args.writes ?? [];
  const argv = mergeArgv(keys.jobPrefix, args);
  if (writes.length > 0) {
    argv.push(String(writes.length));
    for (const w of writes) argv.push(w.field, w.value === undefined ? 'del' : 'set', w.value ?? '');
  }
  return { keys: [...mergeKeys(keys), ...writes.map((w) => w.key)], argv };
}

/** MERGE_COMMAND's arguments: the number of keys, the keys, the arguments. */
export function mergeCommandArgs(keys: MergeKeys, args: MergeArgs): string[] {
  const call = mergeCall(keys, args);
  return [String(call.keys.length), ...call.keys, ...call.argv];
}

export async function runMerge(client: RedisClient, keys: MergeKeys, args: MergeArgs): Promise<MergeResult> {
  const call = mergeCall(keys, args);
  const raw = await runScript(client, MERGE, call.keys, call.argv);
  const [outcome, jobId, state] = raw as [MergeResult['outcome'], string, string];
  return { outcome, jobId, state };
}
