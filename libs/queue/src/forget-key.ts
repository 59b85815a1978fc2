// Forget a deleted PodSet's traces in Redis: its finished jobs (completed and failed, kept for the
// dashboard) and its entries in the watcher's event log. The worker calls this from the finalizer, so a
// deleted PodSet leaves nothing behind in Redis either.
//
// The scanning runs inside Redis, in chunks, so a deletion doesn't pull thousands of jobs over the wire
// nor block Redis for long:
//  - finished jobs: a script walks the completed/failed sorted set from the oldest, CHUNK members a call,
//    and returns the ids whose job hash has name = key (job ids are random; the job *name* is the key).
//    The jobs are then removed with BullMQ's own Queue.remove, which also clears what BullMQ keeps
//    around a job (logs, dedup key pointing at it) and refuses a locked (active) job.
//  - event log: deleteEventsOf (libs/event-log, which owns the record format) in chunks as well.
// Only the finished sets are looked at: the key's active job (the one running the finalizer) and its
// waiting/delayed next job are never touched. The walks are bounded (maxScan per set and for the
// stream); the finished sets are bounded by retention and the stream by its MAXLEN, so the bound only
// matters under a misconfiguration, and `truncated` says so.
//
// One race is accepted: a failed job retried by hand (dashboard) between the scan and its removal is
// removed although it is waiting again. It could only be a reconcile of the PodSet being deleted,
// which has nothing left to do.
import type { Queue } from 'bullmq';
import type { RedisClient } from '@podset/redis';
import { deleteEventsOf } from '@podset/event-log';
import { bullKeys, luaScriptOf, runScript } from '@podset/redis';
import { keyProblem } from './payload.ts';

/**
 * KEYS[1] the completed or failed zset. ARGV: job key prefix, job name, min score ('-inf' or the last
 * score returned), how many members at that score were already seen, chunk size.
 * Returns {done, lastScore, seenAtLastScore, examined, ids}.
 * The cursor is (score, offset among equal scores) rather than a rank: ranks shift while BullMQ adds
 * finished jobs and trims the oldest; a score cursor doesn't (scores are finish times).
 */
const FINISHED_SCAN = luaScriptOf(new URL('./lua/finished-scan.lua', import.meta.url));

export const FORGET_CHUNK = 500;
/** Per finished set and for the stream: far above the defaults (1000/5000 jobs, ~10,000 entries). */
export const FORGET_MAX_SCAN = 100_000;
/** Queue.remove calls in flight at once. */
const REMOVE_CONCURRENCY = 16;

export interface ForgetKeyTarget {
  /** A plain client for the scripts (on Cluster: any client; each script names one key). */
  client: RedisClient;
  /** The BullMQ queue the jobs belong to (its remove() removes them). */
  queue: Queue;
  /** BullMQ's job key prefix: "<prefix>:<queue>:". */
  jobPrefix: string;
}

export interface ForgetKeyOptions {
  /** The watcher's event-log stream; unset: the event log is left alone. */
  eventLogKey?: string;
  /** Members (entries) examined per script call. Default FORGET_CHUNK (500). */
  chunk?: number;
  /** Most members examined per finished set, and entries in the stream. Default FORGET_MAX_SCAN. */
  maxScan?: number;
}

export type ForgetKeyResult = {
  /** Completed jobs of the key removed. */
  completed: number;
  /** Failed jobs of the key removed. */
  failed: number;
  /** Event-log entries of the key deleted. */
  events: number;
  /** A walk stopped at maxScan before the end: some entries may be left. */
  truncated: boolean;
};

/**
 * Removes `key`'s ("namespace/name") finished jobs and event-log entries; returns the counts. Never
 * touches its active or pending job, nor anything of another key. Idempotent.
 */
export async function forgetKey(
  target: ForgetKeyTarget,
  key: string,
  opts: ForgetKeyOptions = {},
): Promise<ForgetKeyResult> {
  // An empty key would match the event log's RELIST markers (key ""): refuse anything not a key.
  const problem = keyProblem(key);
  if (problem !== undefined) throw new Error(`forgetKey: ${problem}`);
  const chunk = opts.chunk ?? FORGET_CHUNK;
  const maxScan = opts.maxScan ?? FORGET_MAX_SCAN;
  if (!Number.isInteger(chunk) || chunk < 1) throw new Error('forgetKey: chunk must be an integer >= 1');
  const result: ForgetKeyResult = { completed: 0, failed: 0, events: 0, truncated: false };
  for (const state of ['completed', 'failed'] as const) {
    const scan = await finishedOf(target, key, state, chunk, maxScan);
    result[state] = await removeJobs(target.queue, scan.ids);
    if (scan.truncated) result.truncated = true;
  }
  if (opts.eventLogKey !== undefined) {
    const log = await deleteEventsOf(target.client, opts.eventLogKey, key, chunk, maxScan);
    result.events = log.deleted;
    if (log.truncated) result.truncated = true;
  }
  return result;
}

async function finishedOf(
  target: ForgetKeyTarget,
  key: string,
  state: 'completed' | 'failed',
  chunk: number,
  maxScan: number,
): Promise<{ ids: string[]; truncated: boolean }> {
  const setKey = bullKeys(target.jobPrefix).finished(state);
  const ids = new Set<string>();
  let min = '-inf';
  let seen = 0;
  let examined = 0;
  for (;;) {
    const raw = await runScript(
      target.client,
      FINISHED_SCAN,
      [setKey],
      [target.jobPrefix, key, min, String(seen), String(chunk)],
    );
    const [done, lastScore, lastSeen, n, found] = raw as [number, string, number, number, string[]];
    for (const id of found) ids.add(id);
    examined += n;
    if (done === 1) return { ids: [...ids], truncated: false };
    if (examined >= maxScan) return { ids: [...ids], truncated: true };
    min = lastScore;
    seen = lastSeen;
  }
}

async function removeJobs(queue: Queue, ids: readonly string[]): Promise<number> {
  let removed = 0;
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      // 1 removed; 0 locked (active: not ours to remove); a job already gone counts as nothing.
      if ((await queue.remove(id)) === 1) removed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVE_CONCURRENCY, ids.length) }, lane));
  return removed;
}
