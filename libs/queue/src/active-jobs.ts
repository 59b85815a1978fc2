// The reconciles running in this process (by job id), and the bounded wait for them on close.
import { systemClock, type Clock } from '@podset/clock';

/** Wait for `p` or `ms`, whichever first; true when the time ran out. The timer never outlives it. */
async function raceTimeout(clock: Pick<Clock, 'sleep'>, p: Promise<void>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      p.then(() => false),
      clock.sleep(ms, timer.signal).then(
        () => true,
        () => false,
      ),
    ]);
  } finally {
    timer.abort();
  }
}

/** The jobs running in this process, and a bounded wait for them to finish. */
export class ActiveJobs {
  readonly ids = new Set<string>();
  #idle: (() => void) | undefined;

  readonly #clock: Pick<Clock, 'sleep'>;

  constructor(clock: Pick<Clock, 'sleep'> = systemClock) {
    this.#clock = clock;
  }

  get size(): number {
    return this.ids.size;
  }

  add(id: string): void {
    this.ids.add(id);
  }

  delete(id: string): void {
    this.ids.delete(id);
    if (this.ids.size === 0) this.#idle?.();
  }

  /** Waits up to graceMs for the running jobs; then cancels them and gives them 2 s more. */
  async drain(graceMs: number, cancelAll: () => void): Promise<void> {
    if (this.ids.size === 0) return;
    const finished = new Promise<void>((resolve) => (this.#idle = resolve));
    if (await raceTimeout(this.#clock, finished, graceMs)) {
      cancelAll();
      await raceTimeout(this.#clock, finished, Math.min(2_000, graceMs));
    }
  }
}
