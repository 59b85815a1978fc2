// A Clock for tests: time stands still until the test advances it, so a TTL, a backoff or a lease expires
// exactly when the test says, without sleeping in real time and without depending on a busy machine's speed.
import type { Clock } from '@podset/clock';

interface Sleeper {
  readonly at: number;
  /** Order of arrival: two sleepers due at the same moment wake in the order they went to sleep. */
  readonly seq: number;
  readonly resolve: () => void;
}

/** 2026-01-01T00:00:00Z: a fixed start, so what a test prints does not change from run to run. */
export const FAKE_CLOCK_START = Date.parse('2026-01-01T00:00:00Z');

export class FakeClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #sleepers = new Set<Sleeper>();

  constructor(start = FAKE_CLOCK_START) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  /** Advances with now(): a fake clock never steps. */
  elapsed(): number {
    return this.#now;
  }

  /** Resolves once `advance` has moved the time `ms` past now; rejects with the signal's reason on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.#sleepers.delete(sleeper);
        reject(signal?.reason as Error);
      };
      const sleeper: Sleeper = {
        at: this.#now + Math.max(0, ms),
        seq: this.#seq++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.#sleepers.add(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** How many sleeps are waiting: lets a test wait until the code under test has gone to sleep. */
  get sleepers(): number {
    return this.#sleepers.size;
  }

  /**
   * Moves the time `ms` forward. The sleepers that fall due on the way wake one at a time, in order of their
   * deadlines, each with the clock showing its own deadline, and its continuation gets a turn of the event
   * loop before the next wakes: a sleep it starts in that turn that falls due within `ms` wakes too.
   */
  async advance(ms: number): Promise<void> {
    if (ms < 0) throw new RangeError(`FakeClock.advance(${ms}): time does not go back`);
    const until = this.#now + ms;
    for (let next = this.#due(until); next !== undefined; next = this.#due(until)) {
      this.#sleepers.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.#now = until;
  }

  #due(until: number): Sleeper | undefined {
    let first: Sleeper | undefined;
    for (const s of this.#sleepers) {
      if (s.at > until) continue;
      if (first === undefined || s.at < first.at || (s.at === first.at && s.seq < first.seq)) first = s;
    }
    return first;
  }
}
