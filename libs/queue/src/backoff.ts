// The one backoff: the delay before a retry (a failed reconcile, a watch reconnect): exponential, capped,
// with jitter.

export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 500 ms. */
  baseMs?: number;
  /** Cap on the delay, before jitter. Default 60 s. */
  maxMs?: number;
  /** Fraction of the delay that is random, 0..1. Default 0.5 ("equal jitter"). */
  jitter?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 500, maxMs: 60_000, jitter: 0.5 };

/**
 * Delay before retry number `retry` (1 = the first retry, after the first failure):
 * d = min(max, base·2^(retry−1)), then a uniformly random value in [d·(1−jitter), d].
 * `random` returns [0, 1) and is injectable for tests.
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { baseMs, maxMs, jitter } = { ...DEFAULT_BACKOFF, ...options };
  if (!Number.isFinite(retry) || retry < 1) throw new RangeError(`retry must be >= 1, got ${retry}`);
  if (jitter < 0 || jitter > 1) throw new RangeError(`jitter must be within 0..1, got ${jitter}`);
  // 2^(retry-1) overflows to Infinity for huge retry counts; min() keeps it at maxMs.
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(retry - 1, 1024));
  return Math.floor(ceiling * (1 - jitter) + random() * ceiling * jitter);
}

/** The name of the custom BullMQ backoff type the queue sets on its jobs. */
export const BACKOFF_TYPE = 'podset-exponential-jitter';
