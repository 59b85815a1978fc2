// Step 2's housekeeping: a deleted PodSet's finished jobs, event-log entries and kept state, removed before
// its finalizer goes.
import { withTimeout } from '@podset/runtime';
import type { Pass } from './controller-api.ts';
import { errorText } from './errors.ts';
import type { StateSource } from './state-source.ts';

export interface TraceCleanup {
  cleanup: ((key: string) => Promise<object | void>) | undefined;
  state: StateSource;
  cleanupTimeoutMs: number;
}

/**
 * Best effort, by design: the finalizer guards the pods, which are gone by now; the finished jobs,
 * event-log entries and kept state are history that ages out anyway (job retention, the stream's cap,
 * the projection's tombstones). So a failure here (Redis error, or no answer within cleanupTimeoutMs) is
 * logged and the finalizer removed regardless: it must not hold a deletion in Terminating, retried with
 * backoff and then parked, for the sake of housekeeping.
 * Run before the finalizer goes, so nothing of the PodSet outlives it; a 409 on the finalizer patch runs
 * it again, which is harmless (it is idempotent).
 */
export async function forgetTraces(pass: Pass, deps: TraceCleanup): Promise<void> {
  const { ref, log } = pass;
  pass.signal?.throwIfAborted();
  try {
    const [removed, stateKeys] = await withTimeout(
      Promise.all([deps.cleanup?.(ref.key), deps.state.forget(ref.key)]),
      deps.cleanupTimeoutMs,
      'cleanup',
    );
    log.info(
      { removed: { ...removed, stateKeys } },
      'removed its finished jobs, event-log entries and state',
    );
  } catch (err) {
    log.warn(
      { err: errorText(err) },
      'could not remove its finished jobs, event-log entries and state; removing the finalizer anyway',
    );
  }
}
