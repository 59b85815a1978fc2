// What a reconcile worker is given: the handler's contract (its context and result), the hooks it reports
// to, and its options. Apart from the worker itself, so that the attempt it runs per job can name them
// without importing the worker back.
import type { Clock } from '@podset/clock';
import type { RedisClient } from '@podset/redis';
import type { BackoffOptions } from './backoff.ts';
import type { QueueLocation, Retention } from './options.ts';
import type { ReconcileRequest } from './payload.ts';
import type { ReconcileResult } from './result.ts';

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
  /** ReconcileQueueOptions.client: the requeues' and finishes' commands on a client of the caller's. */
  client?: RedisClient;
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
