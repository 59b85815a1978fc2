// One attempt of one job: run the handler, then turn its answer into BullMQ's terms — a requeue-after
// stored behind the job, a retry with backoff, or the job's end (with onFinalFailure's say on when
// the key is next tried).
import { UnrecoverableError, type Job } from 'bullmq';
import type { ReconcileRequest } from './payload.ts';
import type { ReconcileQueue } from './reconcile-queue.ts';
import { failureOf, isTerminal, type ReconcileResult } from './result.ts';
import type {
  JobStartInfo,
  ReconcileContext,
  ReconcileWorkerOptions,
  WorkerHooks,
} from './worker-options.ts';

/** Hooks that never throw (a metrics or log callback must not break the worker). */
export type SafeHooks = Required<WorkerHooks>;

export function safeHooks(hooks: WorkerHooks = {}): SafeHooks {
  const safe =
    <A extends unknown[]>(fn: ((...args: A) => void) | undefined) =>
    (...args: A) => {
      try {
        fn?.(...args);
      } catch {
        // swallowed by contract
      }
    };
  return {
    onStart: safe(hooks.onStart),
    onEnd: safe(hooks.onEnd),
    onDeferred: safe(hooks.onDeferred),
    onMalformed: safe(hooks.onMalformed),
    onError: safe(hooks.onError),
  };
}

export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

function validDelay(ms: number | undefined): ms is number {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0;
}

export interface AttemptDeps {
  queue: ReconcileQueue;
  hooks: SafeHooks;
  handler: ReconcileWorkerOptions['handler'];
  onFinalFailure: ReconcileWorkerOptions['onFinalFailure'];
  /** This worker's cap on attempts (MAX_ATTEMPTS); undefined: the job's own. */
  attemptsCap: number | undefined;
}

/** Runs the handler for `req` once; resolves with BullMQ's return value or throws its error. */
export async function runAttempt(
  deps: AttemptDeps,
  job: Job,
  req: ReconcileRequest,
  signal: AbortSignal | undefined,
): Promise<ReconcileResult> {
  const attempt = job.attemptsMade + 1;
  // The job carries its producer's attempts; this worker's own limit (MAX_ATTEMPTS) caps it, so a
  // producer configured differently can't make it retry longer than the operator was told to
  // (found by the bad-input catalog: a worker with MAX_ATTEMPTS=3 ran the watcher's jobs 8 times).
  const jobAttempts = job.opts.attempts ?? 1;
  const maxAttempts = deps.attemptsCap !== undefined ? Math.min(jobAttempts, deps.attemptsCap) : jobAttempts;
  const ctx: ReconcileContext = {
    signal: signal ?? new AbortController().signal,
    attempt,
    maxAttempts,
    jobId: String(job.id),
  };
  const startedAt = deps.queue.clock.now();
  const start: JobStartInfo = {
    jobId: ctx.jobId,
    key: req.key,
    attempt,
    req,
    startedAt,
    latencyMs: startedAt - req.firstRequestedAt,
  };
  deps.hooks.onStart(start);
  let result: ReconcileResult | undefined | void;
  try {
    result = await deps.handler(req, ctx);
  } catch (err) {
    const thrown = toError(err);
    const final = attempt >= maxAttempts || isTerminal(thrown);
    // What went wrong, for the app and the hooks: a TerminalError only says "no retry" about its cause.
    const error = failureOf(thrown);
    if (final) await finalFailure(deps, req, error, ctx);
    deps.hooks.onEnd({
      ...start,
      outcome: final ? 'failed' : 'retry',
      durationMs: deps.queue.clock.now() - startedAt,
      error,
    });
    // Final here but not for BullMQ (the job allows more attempts): make BullMQ stop too.
    if (final && attempt < jobAttempts && !(thrown instanceof UnrecoverableError)) {
      throw new UnrecoverableError(error.message);
    }
    throw thrown;
  }
  const requeueAfterMs = result?.requeueAfterMs;
  if (validDelay(requeueAfterMs)) {
    // Stored while this job is active: BullMQ creates it when this one finishes; it never postpones a
    // reconcile that is already due sooner.
    await deps.queue.request(req.key, {
      source: req.source,
      delayMs: requeueAfterMs,
      reason: 'requeue-after',
    });
  }
  deps.hooks.onEnd({
    ...start,
    outcome: 'completed',
    durationMs: deps.queue.clock.now() - startedAt,
    ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}),
  });
  return requeueAfterMs !== undefined ? { requeueAfterMs } : {};
}

/** The last attempt failed: let the app record it and say when the key is tried next (if ever). */
async function finalFailure(
  deps: AttemptDeps,
  req: ReconcileRequest,
  error: Error,
  ctx: ReconcileContext,
): Promise<void> {
  if (deps.onFinalFailure === undefined) return;
  try {
    const next = await deps.onFinalFailure(req, error, ctx);
    if (validDelay(next?.requeueAfterMs)) {
      // Stored behind this job; BullMQ creates it when this one fails.
      await deps.queue.request(req.key, {
        source: req.source,
        delayMs: next.requeueAfterMs,
        reason: 'parked',
      });
    }
  } catch (hookErr) {
    deps.hooks.onError(toError(hookErr));
  }
}
