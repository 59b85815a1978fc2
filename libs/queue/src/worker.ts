// Consumer side: run a reconcile handler per job, one at a time per key (BullMQ deduplication with
// keepLastIfActive keeps a single job per key), many keys in parallel, with retries, requeue-after,
// stalled-job recovery, a bounded share of slots for bulk jobs and a bounded graceful close.
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { RedisClient } from './connection.ts';
import { backoffDelay, BACKOFF_TYPE, type BackoffOptions } from './backoff.ts';
import { BulkSlots } from './bulk-slots.ts';
import { bullKeys } from './bull-keys.ts';
import { luaScript, runScript } from './lua.ts';
import {
  bullConnection,
  createClient,
  resolveLocation,
  type QueueLocation,
  type Retention,
} from './options.ts';
import { parseReconcileRequest, type ReconcileRequest } from './payload.ts';
import { ReconcileQueue } from './reconcile-queue.ts';

export interface ReconcileContext {
  /** Aborted when the worker shuts down past its grace period or loses the job's lock. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  jobId: string;
}

/** controller-runtime style: requeueAfterMs → another reconcile of the key after that delay. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

export type ReconcileHandler = (
  req: ReconcileRequest,
  ctx: ReconcileContext,
) => Promise<ReconcileResult | undefined | void>;

export interface JobStartInfo {
  jobId: string;
  key: string;
  attempt: number;
  req: ReconcileRequest;
  /** Epoch ms the handler started. */
  startedAt: number;
  /** startedAt − firstRequestedAt: event → reconcile-start latency. */
  latencyMs: number;
}

export interface JobEndInfo extends JobStartInfo {
  /** completed; retry (failed, will be retried); failed (for good). */
  outcome: 'completed' | 'retry' | 'failed';
  durationMs: number;
  error?: Error;
  requeueAfterMs?: number;
}

/** A bulk job handed back to the queue unrun because this worker's bulk share was full. */
export interface JobDeferredInfo {
  jobId: string;
  key: string;
  /** It is due again after this long (then taken by whichever worker has a free bulk slot). */
  delayMs: number;
}

/** A place for metrics and logs; every callback is optional and must not throw (errors are swallowed). */
export interface WorkerHooks {
  /** A reconcile starts (a deferred bulk job is not one: see onDeferred). */
  onStart?: (info: JobStartInfo) => void;
  onEnd?: (info: JobEndInfo) => void;
  /** A bulk job was handed back unrun (bulkConcurrency): no attempt used, not a failure. */
  onDeferred?: (info: JobDeferredInfo) => void;
  /** A job whose payload failed validation; it is failed at once without retry. */
  onMalformed?: (jobId: string, error: Error) => void;
  /** Infrastructure errors (Redis, lock renewal, settle); the worker carries on. */
  onError?: (error: Error) => void;
}

export interface ReconcileWorkerOptions extends QueueLocation {
  concurrency: number;
  /**
   * At most this many of the `concurrency` slots run bulk (relist/resync) reconciles at once, so a
   * resync can never take every slot and the process keeps slots (and CPU) for live requests. A bulk
   * job taken while that many run waits up to BULK_WAIT_MS for one of them to end (then runs in its
   * place); else it is handed back unrun — moved to delayed for BULK_DEFER_MS: no attempt used, not a
   * failure, and a live request for its key still raises it — and the slot takes the next job (a
   * live one first). Live jobs never wait for this share. Integer 1..concurrency; unset: no limit
   * (bulk may use every slot). Per process: W workers run at most W × bulkConcurrency bulk reconciles.
   * See defaultBulkConcurrency for the apps' default.
   */
  bulkConcurrency?: number;
  handler: ReconcileHandler;
  /**
   * Called once when a request has failed its last attempt (or threw an UnrecoverableError or an error
   * marked `final: true`), while the job still holds its key: write the PodSet condition and Event here.
   * A `requeueAfterMs` it returns asks for one more reconcile of the key after that long (a parked key's
   * next try). Errors are reported to hooks.onError and do not change the outcome.
   */
  onFinalFailure?: (
    req: ReconcileRequest,
    error: Error,
    ctx: ReconcileContext,
  ) => Promise<ReconcileResult | undefined | void> | ReconcileResult | undefined | void;
  hooks?: WorkerHooks;
  backoff?: BackoffOptions;
  /**
   * Attempts set on jobs this worker requeues (requeue-after), and the most attempts it gives any job
   * (a job enqueued with more is failed after this many). Default: the job's own (8, as ReconcileQueue).
   */
  attempts?: number;
  retention?: Retention;
  /** Lock on an active job, renewed every half of it; a crashed worker's jobs are redelivered after it. Default 15 s. */
  lockDurationMs?: number;
  /** How often to look for stalled jobs. Default 5 s. */
  stalledIntervalMs?: number;
  /** Times a job may stall (its worker died) before it is failed. Default 3. */
  maxStalledCount?: number;
  /** close(): how long active reconciles may take to finish before they are aborted. Default 30 s. */
  closeTimeoutMs?: number;
  /** Worker name (shown in BullMQ). */
  name?: string;
}

export interface ReconcileWorker {
  readonly worker: Worker;
  /** The queue this worker requeues into (requeue-after); usable by the app as well. */
  readonly queue: ReconcileQueue;
  /** Number of reconciles running in this process. */
  activeCount(): number;
  /** Stop taking work, let active reconciles finish (bounded by closeTimeoutMs), close connections. */
  close(): Promise<void>;
}

/** Wait for `p` or `ms`, whichever first; true when the time ran out. The timer never outlives it. */
async function raceTimeout(p: Promise<void>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      p.then(() => false),
      sleep(ms, true, { signal: timer.signal }).catch(() => false),
    ]);
  } finally {
    timer.abort();
  }
}

/**
 * A SIGKILLed worker's active jobs keep their key until the lock expires and a stalled-job check runs:
 * up to lock + interval. BullMQ's 30 s + 30 s held a killed worker's keys for up to a minute (found by
 * the chaos run: convergence took 117 s after the faults stopped); 15 s + 5 s bounds it at 20 s, with
 * the lock still renewed every 7.5 s (a busy event loop has that long), and a worker that does lose a
 * lock cancels its reconcile (lockRenewalFailed below).
 */
export const DEFAULT_LOCK_DURATION_MS = 15_000;
export const DEFAULT_STALLED_INTERVAL_MS = 5_000;

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** An error the handler marked as the last word for this job (`final: true`): no further attempt. */
function isFinal(err: Error): boolean {
  return err instanceof UnrecoverableError || (err as { final?: unknown }).final === true;
}

function validDelay(ms: number | undefined): ms is number {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0;
}

/**
 * The apps' default bulk share: an eighth of the slots, at least 1. Measured on 2 cores (live-before-bulk,
 * 2 workers x 16): no share 5.2x, a quarter (4) 2.05x, an eighth (2) 1.73x, 1 slot 1.04x the idle latency;
 * the resync drains at about half the speed with an eighth.
 */
export function defaultBulkConcurrency(concurrency: number): number {
  return Math.max(1, Math.floor(concurrency / 8));
}

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

const between = (r: { readonly min: number; readonly max: number }) =>
  Math.round(r.min + Math.random() * (r.max - r.min));

// KEYS[1]: the key's stored next job (dn:<key>); ARGV: its jid, data and opts as read. Deletes it only
// if nobody replaced or changed it since (a new proto-job has a new jid; a merge changes data/opts).
const DELETE_NEXT_IF_UNCHANGED = luaScript(`
local f = redis.call('HMGET', KEYS[1], 'jid', 'data', 'opts')
if f[1] == ARGV[1] and f[2] == ARGV[2] and f[3] == ARGV[3] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/**
 * After a bulk job of `key` was handed back (moved from active to delayed): a request for the key that
 * arrived while the job was active was stored by BullMQ as the key's next job (dedup-next, created only
 * when this job finishes). Left there, a live request would wait for this bulk job's turn; so it is
 * folded into the delayed job — through ReconcileQueue.request, which merges it (live raises the
 * priority, the earliest due time wins) — and the stored copy is then dropped, unless someone changed
 * or replaced it meanwhile (then it stays and causes one more reconcile: never a lost request).
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
  await queue.request(key, {
    source: next.source,
    delayMs: Math.max(0, next.dueAt - Date.now()),
    ...(next.reasons !== undefined && next.reasons.length > 0 ? { reason: next.reasons.at(-1) } : {}),
    ...(next.rv !== undefined ? { rv: next.rv } : {}),
  });
  await runScript(client, DELETE_NEXT_IF_UNCHANGED, [nextKey], [jid, data, opts]);
}

export function startReconcileWorker(opts: ReconcileWorkerOptions): ReconcileWorker {
  const { queueName, prefix } = resolveLocation(opts);
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
    throw new Error(`concurrency must be an integer >= 1, got ${opts.concurrency}`);
  }
  const bulkLimit = opts.bulkConcurrency;
  if (
    bulkLimit !== undefined &&
    (!Number.isInteger(bulkLimit) || bulkLimit < 1 || bulkLimit > opts.concurrency)
  ) {
    throw new Error(
      `bulkConcurrency must be an integer from 1 to concurrency (${opts.concurrency}), got ${bulkLimit}`,
    );
  }
  const hooks = opts.hooks ?? {};
  const safe = <A extends unknown[]>(fn: ((...args: A) => void) | undefined, ...args: A) => {
    try {
      fn?.(...args);
    } catch {
      // hooks must not break the worker
    }
  };
  const reportError = (err: unknown) => safe(hooks.onError, toError(err));
  const queue = new ReconcileQueue({
    connection: opts.connection,
    queueName,
    prefix,
    ...(opts.attempts !== undefined ? { attempts: opts.attempts } : {}),
    ...(opts.retention !== undefined ? { retention: opts.retention } : {}),
    onError: reportError,
  });
  let active = 0;
  const activeIds = new Set<string>();
  let idle: (() => void) | undefined;

  const bulkSlots = bulkLimit !== undefined ? new BulkSlots(bulkLimit) : undefined;
  // Ends the waits of bulk jobs for a bulk slot, on close.
  const stopping = new AbortController();
  // Folds of requests into handed-back jobs still under way (close waits for them).
  const folds = new Set<Promise<void>>();
  // A plain client of ours: notices a lost connection (below) and folds requests into handed-back jobs.
  const watchdog = createClient(opts.connection);

  const processor = async (job: Job, token: string | undefined, signal?: AbortSignal) => {
    let req: ReconcileRequest;
    try {
      req = parseReconcileRequest(job.data);
    } catch (err) {
      safe(hooks.onMalformed, String(job.id), toError(err));
      throw new UnrecoverableError(`job ${job.id}: ${toError(err).message}`);
    }
    const bulk = req.source === 'bulk' ? bulkSlots : undefined;
    if (bulk !== undefined) {
      if (!bulk.tryTake()) {
        const waitSignals = signal !== undefined ? [stopping.signal, signal] : [stopping.signal];
        if (!(await bulk.wait(between(BULK_WAIT_MS), waitSignals))) {
          // Hand it back unrun: moveToDelayed skips the attempt (attemptsMade unchanged), and BullMQ's
          // DelayedError ends the turn without a failure or a retry; the slot then takes the next job.
          // If moveToDelayed throws, the job was not handed back (its lock was lost, or Redis is gone):
          // BullMQ then settles it as a failed attempt, which fails in turn without a lock (the job is
          // someone else's now) or, Redis back, retries it after a backoff.
          const delayMs = between(BULK_DEFER_MS);
          await job.moveToDelayed(Date.now() + delayMs, token);
          safe(hooks.onDeferred, { jobId: String(job.id), key: req.key, delayMs });
          // Folded once BullMQ has moved on: the fold may make the job due at once, and BullMQ keys its
          // lock renewal by job id, so this turn should be over before any slot of ours takes it again.
          // (A producer's live request can do the same within the one round trip BullMQ's turn still
          // takes; the job's lock then lasts lockDurationMs unrenewed — as after BullMQ's own retries.)
          setImmediate(() => {
            const fold = foldStoredNext(req.key, queue, watchdog)
              .catch(reportError) // the stored request stays stored: it runs after this job
              .finally(() => folds.delete(fold));
            folds.add(fold);
          });
          throw new DelayedError();
        }
      }
    }
    active++;
    activeIds.add(String(job.id));
    const attempt = job.attemptsMade + 1;
    // The job carries its producer's attempts; this worker's own limit (MAX_ATTEMPTS) caps it, so a
    // producer configured differently can't make it retry longer than the operator was told to
    // (found by the bad-input catalog: a worker with MAX_ATTEMPTS=3 ran the watcher's jobs 8 times).
    const jobAttempts = job.opts.attempts ?? 1;
    const maxAttempts = opts.attempts !== undefined ? Math.min(jobAttempts, opts.attempts) : jobAttempts;
    const ctx: ReconcileContext = {
      signal: signal ?? new AbortController().signal,
      attempt,
      maxAttempts,
      jobId: String(job.id),
    };
    const startedAt = Date.now();
    const start: JobStartInfo = {
      jobId: ctx.jobId,
      key: req.key,
      attempt,
      req,
      startedAt,
      latencyMs: startedAt - req.firstRequestedAt,
    };
    safe(hooks.onStart, start);
    try {
      let result: ReconcileResult | undefined | void;
      try {
        result = await opts.handler(req, ctx);
      } catch (err) {
        const error = toError(err);
        const final = attempt >= maxAttempts || isFinal(error);
        if (final && opts.onFinalFailure !== undefined) {
          try {
            const next = await opts.onFinalFailure(req, error, ctx);
            if (validDelay(next?.requeueAfterMs)) {
              // Stored behind this job; BullMQ creates it when this one fails.
              await queue.request(req.key, {
                source: req.source,
                delayMs: next.requeueAfterMs,
                reason: 'parked',
              });
            }
          } catch (hookErr) {
            reportError(hookErr);
          }
        }
        safe(hooks.onEnd, {
          ...start,
          outcome: final ? 'failed' : 'retry',
          durationMs: Date.now() - startedAt,
          error,
        });
        // Final here but not for BullMQ (the job allows more attempts): make BullMQ stop too.
        if (final && attempt < jobAttempts && !(error instanceof UnrecoverableError)) {
          throw new UnrecoverableError(error.message);
        }
        throw error;
      }
      const requeueAfterMs = result?.requeueAfterMs;
      if (validDelay(requeueAfterMs)) {
        // Stored while this job is active: BullMQ creates it when this one finishes; it never
        // postpones a reconcile that is already due sooner.
        await queue.request(req.key, {
          source: req.source,
          delayMs: requeueAfterMs,
          reason: 'requeue-after',
        });
      }
      safe(hooks.onEnd, {
        ...start,
        outcome: 'completed',
        durationMs: Date.now() - startedAt,
        ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
      });
      return requeueAfterMs !== undefined ? { requeueAfterMs } : {};
    } finally {
      bulk?.release();
      active--;
      activeIds.delete(String(job.id));
      if (active === 0) idle?.();
    }
  };

  const bull = bullConnection(opts.connection);
  bull.owned?.on('error', reportError);
  const worker = new Worker(queueName, processor, {
    connection: bull.connection,
    prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
    stalledInterval: opts.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
    maxStalledCount: opts.maxStalledCount ?? 3,
    ...(opts.name !== undefined ? { name: opts.name } : {}),
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        type === BACKOFF_TYPE ? backoffDelay(Math.max(1, attemptsMade), opts.backoff) : 0,
    },
  });
  worker.on('error', reportError);
  // A job whose lock could not be renewed may already be running elsewhere: tell the handler to stop.
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const id of jobIds) worker.cancelJob(id, 'lock lost');
  });
  // Lost the connection to Redis: the keys' locks can't be trusted any more (a Redis that comes back
  // empty has forgotten them, and the watcher re-enqueues every key at once), so a reconcile that goes
  // on could run beside another one for the same key and create its pods twice. Stop them now; their
  // jobs are retried (or redelivered as stalled) once Redis is back. (A chaos run saw one PodSet with
  // 2 active pods for replicas 1 around a Redis restart without persistence.)
  const onRedisLost = () => {
    for (const id of activeIds) worker.cancelJob(id, 'redis connection lost');
  };
  let shuttingDown = false;
  watchdog.on('error', () => undefined); // reported through BullMQ's own clients
  watchdog.on('close', () => {
    if (!shuttingDown) onRedisLost();
  });
  // The next job for a key, made from requests stored while it ran, counts its delay from now:
  // pull it back to the earliest due time those requests asked for.
  const settle = (job: Job | undefined) => {
    if (job?.id !== undefined) queue.settle(job.name, job.id).catch(reportError);
  };
  worker.on('completed', (job: Job) => settle(job));
  worker.on('failed', (job: Job | undefined) => settle(job));

  let closing: Promise<void> | undefined;
  return {
    worker,
    queue,
    activeCount: () => active,
    close() {
      closing ??= (async () => {
        const paused = worker.pause(true); // stop taking work; active jobs go on
        stopping.abort(); // bulk jobs waiting for a bulk slot: handed back, not started
        await paused;
        if (active > 0) {
          const finished = new Promise<void>((resolve) => (idle = resolve));
          const graceMs = opts.closeTimeoutMs ?? 30_000;
          const timedOut = await raceTimeout(finished, graceMs);
          if (timedOut) {
            worker.cancelAllJobs('worker shutting down');
            await raceTimeout(finished, Math.min(2_000, graceMs));
          }
        }
        // Jobs still running now keep their lock until it expires; then they are redelivered.
        await worker.close(active > 0);
        await Promise.allSettled([...folds]);
        bull.owned?.disconnect();
        shuttingDown = true;
        watchdog.disconnect();
        await queue.close();
      })();
      return closing;
    },
  };
}
