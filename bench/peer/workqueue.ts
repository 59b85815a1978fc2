// An in-memory work queue with client-go workqueue semantics: a key is handled by one worker at a time;
// adds of a key already waiting collapse into one; an add while the key is being handled runs it once
// more after done(); delayed adds keep the earliest due time; failures back off exponentially per key.

export interface WorkQueueOptions {
  /** First retry delay after a failure, ms (doubles per consecutive failure). */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  /** Keys that need a run: waiting in `queue`, or to be re-queued when their current run is done. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { due: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private shuttingDown = false;

  constructor(o: WorkQueueOptions = {}) {
    this.baseDelayMs = o.baseDelayMs ?? 5;
    this.maxDelayMs = o.maxDelayMs ?? 1000_000;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Add after `ms`; a key already scheduled keeps whichever due time is earlier. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const due = Date.now() + ms;
    const prior = this.delayed.get(key);
    if (prior !== undefined) {
      if (prior.due <= due) return;
      clearTimeout(prior.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.delayed.set(key, { due, timer });
  }

  /** Retry after this key's backoff (base × 2^failures, capped); the count grows until forget(). */
  addRateLimited(key: string): void {
    this.addAfter(key, this.backoffOf(key));
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  /** The delay the next addRateLimited(key) would use. */
  backoffOf(key: string): number {
    const n = this.failures.get(key) ?? 0;
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** n);
  }

  /** Reset the key's failure count (after a successful run). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** When a delayed add of `key` is due (epoch ms), if one is scheduled. */
  dueOf(key: string): number | undefined {
    return this.delayed.get(key)?.due;
  }

  /** The next key to handle; undefined once shut down. The caller must call done(key) afterwards. */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    return new Promise((resolve) => this.getters.push(resolve));
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
  }

  get length(): number {
    return this.queue.length;
  }

  isProcessing(key: string): boolean {
    return this.processing.has(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  private push(key: string): void {
    const getter = this.getters.shift();
    if (getter !== undefined) getter(this.take(key));
    else this.queue.push(key);
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }
}
