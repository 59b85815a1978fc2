// A work queue of object keys for the workload controllers: a key queued twice before it runs syncs once,
// and a key may ask to be synced again later (minReadySeconds, progress deadlines, Job back-off).
import type { ClusterAccess, StoreEvent } from '../apimachinery/types.ts';
import { subscribeQueued, WorkQueue, type ErrorReporter } from './util.ts';

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

  /**
   * Runs the controller of `resource`: every stored object of it is synced now and again on each change (a
   * deleted one needs no sync: the garbage collector takes what it owned); events of other resources (its
   * pods, its ReplicaSets) go to `related`, which maps them to keys. Events are handled through the queue.
   */
  run(cluster: ClusterAccess, resource: string, related: (event: StoreEvent) => void): { stop(): void } {
    const unsubscribe = subscribeQueued(cluster, this.#queue, (event) => {
      if (event.resource !== resource) related(event);
      else if (event.type !== 'DELETED')
        this.add(event.object.metadata.namespace ?? '', event.object.metadata.name ?? '');
    });
    for (const o of cluster.list(resource)) this.add(o.metadata.namespace ?? '', o.metadata.name ?? '');
    return {
      stop: () => {
        unsubscribe();
        this.stop();
      },
    };
  }

  stop(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.stop();
  }
}
