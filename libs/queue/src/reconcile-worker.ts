// Consumer side: run a reconcile handler per job, one at a time per key (BullMQ deduplication with
// keepLastIfActive keeps a single job per key), many keys in parallel, with retries, requeue-after,
// stalled-job recovery, a bounded share of slots for bulk jobs and a bounded graceful close.
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { ActiveJobs } from './active-jobs.ts';
import { backoffDelay, BACKOFF_TYPE } from './backoff.ts';
import { BulkSlots } from './bulk-slots.ts';
import { runAttempt, safeHooks, toError, type AttemptDeps, type SafeHooks } from './attempt.ts';
import { BULK_WAIT_MS, between, bulkHandBack } from './bulk-handback.ts';
import type { RedisClient } from '@podset/redis';
import { bullConnection, createClient, resolveLocation } from './options.ts';
import { parseReconcileRequest, type ReconcileRequest } from './payload.ts';
import { ReconcileQueue } from './reconcile-queue.ts';
import type { ReconcileWorkerOptions } from './worker-options.ts';

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
    ...(opts.client !== undefined ? { client: opts.client } : {}),
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
