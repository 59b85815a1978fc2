// Exponential backoff with jitter, and an abortable sleep.

export interface BackoffOptions {
  /** First delay (ms). */
  initialMs: number;
  /** Ceiling (ms). */
  maxMs: number;
}

export const defaultBackoff: BackoffOptions = { initialMs: 200, maxMs: 30_000 };

/**
 * The delay before retry number `attempt` (0-based): initial·2^attempt capped at max, then "equal
 * jitter" (half fixed, half random) so a fleet of clients doesn't reconnect in lockstep.
 */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const exp = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** Resolves after ms, or early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
