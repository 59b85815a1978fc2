// Consumer side: run a reconcile handler per job, one at a time per key (BullMQ deduplication with
// keepLastIfActive keeps a single job per key), many keys in parallel, with retries, requeue-after,
// stalled-job recovery, a bounded share of slots for bulk jobs and a bounded graceful close.
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { ActiveJobs } from './active-jobs.ts';
import { backoffDelay, BACKOFF_TYPE, type BackoffOptions } from './backoff.ts';
import { BulkSlots } from './bulk-slots.ts';
import { runAttempt, safeHooks, toError, type AttemptDeps, type SafeHooks } from './attempt.ts';
import { BULK_WAIT_MS, between, bulkHandBack } from './bulk-handback.ts';
import type { RedisClient } from '@podset/redis';
import {
  bullConnection,
  createClient,
  resolveLocation,
  type QueueLocation,
  type Retention,
} from './options.ts';
import { parseReconcileRequest, type ReconcileRequest } from './payload.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import type { ReconcileResult } from './result.ts';
import type { Clock } from '@podset/clock';

export interface ReconcileContext {
  /** Aborted when the worker shuts down past its grace period or loses the job's lock. */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
  maxAttempts: number;
  jobId: string;
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
  /** Infrastructure errors (Redis, lock renewal, pulling a next job earlier); the worker carries on. */
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
   * Called once when a request has failed its last attempt (or threw a TerminalError, whose cause it is
   * given), while the job still holds its key: write the PodSet condition and Event here.
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
  /** The queue's request times, attempt durations and close's wait. Default: the system clock. */
  clock?: Clock;
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

/**
 * A SIGKILLed worker's active jobs keep their key until the lock expires and a stalled-job check runs:
 * up to lock + interval. BullMQ's 30 s + 30 s held a killed worker's keys for up to a minute (found by
 * the chaos run: convergence took 117 s after the faults stopped); 15 s + 5 s bounds it at 20 s, with
 * the lock still renewed every 7.5 s (a busy event loop has that long), and a worker that does lose a
 * lock cancels its reconcile (lockRenewalFailed below).
 */
export const DEFAULT_LOCK_DURATION_MS = 15_000;
export const DEFAULT_STALLED_INTERVAL_MS = 5_000;

export function startReconcileWorker(opts: ReconcileWorkerOptions): ReconcileWorker {
  const { queueName, prefix } = resolveLocation(opts);
  checkConcurrency(opts);
  const hooks = safeHooks(opts.hooks);
  const reportError = (err: unknown) => hooks.onError(toError(err));
  const queue = new ReconcileQueue({
    connection: opts.connection,
    queueName,
    prefix,
    ...(opts.attempts !== undefined ? { attempts: opts.attempts } : {}),
    ...(opts.retention !== undefined ? { retention: opts.retention } : {}),
    onError: reportError,
    ...(opts.clock !== undefined ? { clock: opts.clock } : {}),
  });
  const active = new ActiveJobs(opts.clock);
  // Ends the waits of bulk jobs for a bulk slot, on close.
  const stopping = new AbortController();
  // A plain client of ours: notices a lost connection (below) and folds requests into handed-back jobs.
  const watchdog = createClient(opts.connection);
  const bulk = bulkHandBack({ queue, client: watchdog, hooks, reportError });
  const processor = jobProcessor({
    attempt: {
      queue,
      hooks,
      handler: opts.handler,
      onFinalFailure: opts.onFinalFailure,
      attemptsCap: opts.attempts,
    },
    hooks,
    active,
    bulkSlots: opts.bulkConcurrency !== undefined ? new BulkSlots(opts.bulkConcurrency) : undefined,
    stopping: stopping.signal,
    handBack: bulk.handBack,
  });
  const bull = bullConnection(opts.connection);
  bull.owned?.on('error', reportError);
  const worker = bullWorker(opts, { queueName, prefix, connection: bull.connection }, processor, reportError);
  const connection = cancelOnConnectionLoss(watchdog, worker, active);
  // The next job for a key, made from requests stored while it ran, counts its delay from now:
  // pull it back to the earliest due time those requests asked for.
  const pullNext = (job: Job | undefined) => {
    if (job?.id !== undefined) queue.pullNextEarlier(job.name, job.id).catch(reportError);
  };
  worker.on('completed', (job: Job) => pullNext(job));
  worker.on('failed', (job: Job | undefined) => pullNext(job));

  let closing: Promise<void> | undefined;
  return {
    worker,
    queue,
    activeCount: () => active.size,
    close() {
      closing ??= (async () => {
        const paused = worker.pause(true); // stop taking work; active jobs go on
        stopping.abort(); // bulk jobs waiting for a bulk slot: handed back, not started
        await paused;
        await active.drain(opts.closeTimeoutMs ?? 30_000, () => worker.cancelAllJobs('worker shutting down'));
        // Jobs still running now keep their lock until it expires; then they are redelivered.
        await worker.close(active.size > 0);
        await Promise.allSettled([...bulk.folds]);
        bull.owned?.disconnect();
        connection.close();
        await queue.close();
      })();
      return closing;
    },
  };
}

/**
 * BullMQ's processor: validates the job's request, holds a bulk job to the bulk share (waiting a little
 * for a slot, else handing it back unrun), and runs one attempt of the handler, counted in `active`.
 */
function jobProcessor(deps: {
  attempt: AttemptDeps;
  hooks: SafeHooks;
  active: ActiveJobs;
  bulkSlots: BulkSlots | undefined;
  /** Aborted on close. */
  stopping: AbortSignal;
  handBack: (job: Job, token: string | undefined, req: ReconcileRequest) => Promise<never>;
}) {
  return async (job: Job, token: string | undefined, signal?: AbortSignal) => {
    let req: ReconcileRequest;
    try {
      req = parseReconcileRequest(job.data);
    } catch (err) {
      deps.hooks.onMalformed(String(job.id), toError(err));
      throw new UnrecoverableError(`job ${job.id}: ${toError(err).message}`);
    }
    const bulk = req.source === 'bulk' ? deps.bulkSlots : undefined;
    if (bulk !== undefined) {
      // Closing: a bulk job taken but not started goes back unrun, like those waiting for a slot — even
      // when a slot has just come free (a reconcile that ended after close() began).
      if (deps.stopping.aborted) return deps.handBack(job, token, req);
      if (!bulk.tryTake()) {
        const waitSignals = signal !== undefined ? [deps.stopping, signal] : [deps.stopping];
        if (!(await bulk.wait(between(BULK_WAIT_MS), waitSignals))) return deps.handBack(job, token, req);
      }
    }
    const id = String(job.id);
    deps.active.add(id);
    try {
      return await runAttempt(deps.attempt, job, req, signal);
    } finally {
      bulk?.release();
      deps.active.delete(id);
    }
  };
}

/** The BullMQ Worker, with its locks, stall checks and backoff, reporting its errors. */
function bullWorker(
  opts: ReconcileWorkerOptions,
  at: { queueName: string; prefix: string; connection: ReturnType<typeof bullConnection>['connection'] },
  processor: ReturnType<typeof jobProcessor>,
  reportError: (err: unknown) => void,
): Worker {
  const worker = new Worker(at.queueName, processor, {
    connection: at.connection,
    prefix: at.prefix,
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
  return worker;
}

/**
 * Lost the connection to Redis: the keys' locks can't be trusted any more (a Redis that comes back
 * empty has forgotten them, and the watcher re-enqueues every key at once), so a reconcile that goes
 * on could run beside another one for the same key and create its pods twice. Stop them now; their
 * jobs are retried (or redelivered as stalled) once Redis is back. (A chaos run saw one PodSet with
 * 2 active pods for replicas 1 around a Redis restart without persistence.) `close` disconnects the
 * watching client without cancelling anything.
 */
function cancelOnConnectionLoss(
  watchdog: RedisClient,
  worker: Worker,
  active: ActiveJobs,
): { close(): void } {
  let shuttingDown = false;
  watchdog.on('error', () => undefined); // reported through BullMQ's own clients
  watchdog.on('close', () => {
    if (shuttingDown) return;
    for (const id of active.ids) worker.cancelJob(id, 'redis connection lost');
  });
  return {
    close() {
      shuttingDown = true;
      watchdog.disconnect();
    },
  };
}

function checkConcurrency(opts: ReconcileWorkerOptions): void {
  if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) {
    throw new Error(`concurrency must be an integer >= 1, got ${opts.concurrency}`);
  }
  const bulk = opts.bulkConcurrency;
  if (bulk !== undefined && (!Number.isInteger(bulk) || bulk < 1 || bulk > opts.concurrency)) {
    throw new Error(
      `bulkConcurrency must be an integer from 1 to concurrency (${opts.concurrency}), got ${bulk}`,
    );
  }
}
