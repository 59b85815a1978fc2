// Consumer side: run a reconcile handler per job, one at a time per key (BullMQ deduplication with
// keepLastIfActive keeps a single job per key), many keys in parallel, with retries, requeue-after,
// stalled-job recovery and a bounded graceful close.
import { setTimeout as sleep } from 'node:timers/promises';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { backoffDelay, BACKOFF_TYPE, type BackoffOptions } from './backoff.ts';
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

/** A place for metrics and logs; every callback is optional and must not throw (errors are swallowed). */
export interface WorkerHooks {
  onStart?: (info: JobStartInfo) => void;
  onEnd?: (info: JobEndInfo) => void;
  /** A job whose payload failed validation; it is failed at once without retry. */
  onMalformed?: (jobId: string, error: Error) => void;
  /** Infrastructure errors (Redis, lock renewal, settle); the worker carries on. */
  onError?: (error: Error) => void;
}

export interface ReconcileWorkerOptions extends QueueLocation {
  concurrency: number;
  handler: ReconcileHandler;
  /**
   * Called once when a request has failed its last attempt (or threw an UnrecoverableError), while
   * the job still holds its key: write the PodSet condition and Event here. Errors are reported to
   * hooks.onError and do not change the outcome.
   */
  onFinalFailure?: (req: ReconcileRequest, error: Error, ctx: ReconcileContext) => Promise<void> | void;
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

export function startReconcileWorker(opts: ReconcileWorkerOptions): ReconcileWorker {
  const { queueName, prefix } = resolveLocation(opts);
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
    throw new Error(`concurrency must be an integer >= 1, got ${opts.concurrency}`);
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

  const processor = async (job: Job, _token: string | undefined, signal?: AbortSignal) => {
    let req: ReconcileRequest;
    try {
      req = parseReconcileRequest(job.data);
    } catch (err) {
      safe(hooks.onMalformed, String(job.id), toError(err));
      throw new UnrecoverableError(`job ${job.id}: ${toError(err).message}`);
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
        const final = attempt >= maxAttempts || error instanceof UnrecoverableError;
        if (final && opts.onFinalFailure !== undefined) {
          try {
            await opts.onFinalFailure(req, error, ctx);
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
      if (requeueAfterMs !== undefined && Number.isFinite(requeueAfterMs) && requeueAfterMs >= 0) {
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
  const watchdog = createClient(opts.connection);
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
        await worker.pause(true); // stop taking work; active jobs go on
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
        bull.owned?.disconnect();
        shuttingDown = true;
        watchdog.disconnect();
        await queue.close();
      })();
      return closing;
    },
  };
}
