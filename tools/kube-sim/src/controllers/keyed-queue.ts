// A work queue of object keys for the workload controllers: a key queued twice before it runs syncs once,
// and a key may ask to be synced again later (minReadySeconds, progress deadlines, Job back-off).
import { WorkQueue, type ErrorReporter } from './util.ts';

export class KeyedQueue {
  readonly #queue: WorkQueue;
  readonly #queued = new Set<string>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #sync: (namespace: string, name: string) => void;

  constructor(name: string, report: ErrorReporter, sync: (namespace: string, name: string) => void) {
    this.#queue = new WorkQueue(name, report);
    this.#sync = sync;
  }

  get queue(): WorkQueue {
    return this.#queue;
  }

  add(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(() => {
      this.#queued.delete(key);
      this.#sync(namespace, name);
    });
  }

  /** Syncs the key again in `ms` (an earlier pending recheck wins). */
  addAfter(namespace: string, name: string, ms: number): void {
    const key = `${namespace}/${name}`;
    const at = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(namespace, name);
    }, ms);
    timer.unref?.();
    this.#timers.set(key, { at, timer });
  }

  stop(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.stop();
  }
}
