// The one source of time for everything in apps/ and libs/ where time decides something (deadlines, TTLs,
// backoffs, leases, rate limits): production code takes a Clock and tests pass a fake one they advance, so no
// test has to sleep in real time for a TTL or a delay to pass.

/**
 * Wall-clock milliseconds since the epoch (timestamps others read: a Lease's renewTime, a job's due time);
 * monotonic milliseconds from an arbitrary origin (durations and deadlines of our own, which a wall-clock
 * step must neither end early nor stretch); and a sleep that ends early (rejecting) when its signal aborts.
 */
export interface Clock {
  now(): number;
  elapsed(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: Date.now, performance.now and a timer. */
export const systemClock: Clock = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * Calls `fire` once `ms` have passed on `clock`, unless the returned cancel comes first: a setTimeout that
 * a test's fake clock drives too.
 */
export function schedule(clock: Pick<Clock, 'sleep'>, ms: number, fire: () => void): () => void {
  // The real clock's timer is cleared directly: an AbortController and its abort cost ~10 µs, and the
  // watcher's hold schedules (and nearly always cancels) one per held pod event.
  if (clock === systemClock) {
    const timer = setTimeout(fire, Math.max(0, ms));
    return () => clearTimeout(timer);
  }
  const cancelled = new AbortController();
  clock.sleep(Math.max(0, ms), cancelled.signal).then(fire, () => undefined);
  return () => cancelled.abort();
}
