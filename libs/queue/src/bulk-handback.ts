// The bulk share's hand-back: a bulk (relist/resync) job taken while the bulk share is full waits a
// little for a slot, then goes back to the queue unrun, and a request stored behind it meanwhile is
// folded into it so a live change never waits for a bulk job's turn.
import { DelayedError, type Job } from 'bullmq';
import type { SafeHooks } from './attempt.ts';
import type { ReconcileQueue } from './reconcile-queue.ts';
import type { RedisClient } from '@podset/redis';
import { bullKeys, luaScriptOf, runScript } from '@podset/redis';
import { parseReconcileRequest, type ReconcileRequest } from './payload.ts';

/**
 * A bulk job taken while the bulk share is full waits a random time in this range for a bulk slot
 * before it is handed back. Handing it back at once would let the slot take the next bulk job of the
 * backlog, hand that back, and so on: a busy loop through Redis. Meanwhile a live request is taken by
 * the next slot that frees up (a reconcile ending) or whose wait ends, whichever is first.
 */
export const BULK_WAIT_MS = { min: 100, max: 300 } as const;
/**
 * A bulk job handed back is due again after a random time in this range: soon, so the bulk share
 * stays busy while a backlog lasts, and spread, so handed-back jobs don't all return at once.
 */
export const BULK_DEFER_MS = { min: 50, max: 200 } as const;

export const between = (r: { readonly min: number; readonly max: number }) =>
  Math.round(r.min + Math.random() * (r.max - r.min));

// KEYS[1]: the key's stored next job (dn:<key>); ARGV: its jid, data and opts as read. Deletes it only
// if nobody replaced or changed it since (a new proto-job has a new jid; a merge changes data/opts).
const DELETE_NEXT_IF_UNCHANGED = luaScriptOf(new URL('./lua/delete-next-if-unchanged.lua', import.meta.url));

/**
 * After a bulk job of `key` was handed back (moved from active to delayed): a request for the key that
 * arrived while the job was active was stored by BullMQ as the key's next job (dedup-next, created only
 * when this job finishes). Left there, a live request would wait for this bulk job's turn; so it is
 * folded into the delayed job — through ReconcileQueue.request, which merges it (live raises the
 * priority, the earliest due time wins). The stored copy is dropped first, and only if nobody changed or
 * replaced it meanwhile (else it stays and causes one more reconcile: never a lost request). Dropped after
 * the fold instead, the job — due at once — could run and finish in between, and BullMQ would turn the
 * stored copy into a second reconcile. Dropped first, the request is still served if the fold then fails:
 * the handed-back job has not run since the request came, and it runs after it (at its own priority).
 */
export async function foldStoredNext(key: string, queue: ReconcileQueue, client: RedisClient): Promise<void> {
  const nextKey = bullKeys(queue.jobPrefix).dedupNext(key);
  const [jid, data, opts] = await client.hmget(nextKey, 'jid', 'data', 'opts');
  if (typeof jid !== 'string' || typeof data !== 'string' || typeof opts !== 'string') return;
  let next: ReconcileRequest;
  try {
    next = parseReconcileRequest(JSON.parse(data));
  } catch {
    return; // not ours to fold: BullMQ creates it after this job and the worker rejects it then
  }
  const dropped = await runScript(client, DELETE_NEXT_IF_UNCHANGED, [nextKey], [jid, data, opts]);
  if (dropped !== 1) return; // changed or replaced meanwhile: it stays, and runs after this job
  await queue.request(key, {
    source: next.source,
    delayMs: Math.max(0, next.dueAt - queue.clock.now()),
    ...(next.reasons !== undefined && next.reasons.length > 0 ? { reason: next.reasons.at(-1) } : {}),
    ...(next.rv !== undefined ? { rv: next.rv } : {}),
  });
}

/**
 * Hands bulk jobs that found no bulk slot back to the queue unrun (`handBack` throws BullMQ's
 * DelayedError), and folds what was stored behind each into it; `folds` are those folds still under way
 * (close waits for them).
 */
export function bulkHandBack(deps: {
  queue: ReconcileQueue;
  /** A plain client of ours for the folds. */
  client: RedisClient;
  hooks: SafeHooks;
  reportError: (err: unknown) => void;
}): {
  handBack: (job: Job, token: string | undefined, req: ReconcileRequest) => Promise<never>;
  folds: Set<Promise<void>>;
} {
  const folds = new Set<Promise<void>>();
  const handBack = async (job: Job, token: string | undefined, req: ReconcileRequest): Promise<never> => {
    // moveToDelayed skips the attempt (attemptsMade unchanged), and DelayedError ends the turn without a
    // failure or a retry. If moveToDelayed throws, the job was not handed back (its lock was lost, or
    // Redis is gone): BullMQ then settles it as a failed attempt, which fails in turn without a lock (the
    // job is someone else's now) or, Redis back, retries it after a backoff.
    const delayMs = between(BULK_DEFER_MS);
    // BullMQ's delayed set is ordered by the real time: the queue's clock is the system one unless a
    // test fakes it (and a test that hands bulk jobs back runs on the real one).
    await job.moveToDelayed(deps.queue.clock.now() + delayMs, token);
    deps.hooks.onDeferred({ jobId: String(job.id), key: req.key, delayMs });
    // Folded once BullMQ has moved on: the fold may make the job due at once, and BullMQ keys its lock
    // renewal by job id, so this turn should be over before any slot of ours takes it again. (A
    // producer's live request can do the same within the one round trip BullMQ's turn still takes; the
    // job's lock then lasts lockDurationMs unrenewed — as after BullMQ's own retries.)
    setImmediate(() => {
      const fold = foldStoredNext(req.key, deps.queue, deps.client)
        .catch(deps.reportError) // the stored request stays stored: it runs after this job
        .finally(() => folds.delete(fold));
      folds.add(fold);
    });
    throw new DelayedError();
  };
  return { handBack, folds };
}
