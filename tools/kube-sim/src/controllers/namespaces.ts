// Namespace controller: a namespace being deleted (deletionTimestamp set, finalizer `kubernetes` in
// spec.finalizers — or metadata.finalizers) gets all its namespaced content deleted, `deletionDelayMs` after
// the deletion was seen (kube-controller-manager waits 5 s, so the clients that delete a manifest's objects
// one by one — `kubectl delete -k` — find them still there); each pass writes the deletion conditions
// (namespace-conditions.ts); once nothing is left, the `kubernetes` finalizer is removed so the store removes
// the namespace. Refusing to delete `default` and `kube-system` is the server's admission, not this
// controller's.
import type { ClusterAccess, JsonObject, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { namespaceDeletionConditions, type RemainingContent } from './namespace-conditions.ts';
import {
  WorkQueue,
  distinctResources,
  isApiError,
  mutate,
  nowIso,
  subscribeQueued,
  type ErrorReporter,
} from './util.ts';

export const NAMESPACE_FINALIZER = 'kubernetes';

export interface NamespaceController {
  stop(): void;
}

export interface NamespaceControllerOptions {
  /** While a namespace is terminating, re-check it at least this often (ms) besides on DELETED events. */
  recheckMs: number;
  /** How long after a namespace's deletion is seen its content starts to be deleted (ms). */
  deletionDelayMs: number;
}

function hasNamespaceFinalizer(ns: KubeObject): boolean {
  const spec = ns.spec as { finalizers?: string[] } | undefined;
  return (
    (Array.isArray(spec?.finalizers) && spec.finalizers.includes(NAMESPACE_FINALIZER)) ||
    (ns.metadata.finalizers ?? []).includes(NAMESPACE_FINALIZER)
  );
}

export function startNamespaceController(
  cluster: ClusterAccess,
  options: NamespaceControllerOptions,
  report: ErrorReporter,
): NamespaceController {
  const controller = new NamespaceDeleter(cluster, options, report);
  return { stop: () => controller.stop() };
}

/** Empties terminating namespaces, re-checked on their content's DELETED events and every recheckMs. */
class NamespaceDeleter {
  readonly #cluster: ClusterAccess;
  readonly #options: NamespaceControllerOptions;
  readonly #queue: WorkQueue;
  /** Terminating namespaces → uid; `#dirty` holds those to look at on the next queue run. */
  readonly #terminating = new Map<string, string>();
  readonly #dirty = new Set<string>();
  readonly #soonTimers = new Map<string, NodeJS.Timeout>();
  /** Terminating namespaces whose deletion delay has not passed yet → the moment it does. */
  readonly #notBefore = new Map<string, number>();
  readonly #delayTimers = new Map<string, NodeJS.Timeout>();
  #interval: NodeJS.Timeout | undefined;
  readonly #unsubscribe: () => void;

  constructor(cluster: ClusterAccess, options: NamespaceControllerOptions, report: ErrorReporter) {
    this.#cluster = cluster;
    this.#options = options;
    this.#queue = new WorkQueue('namespace controller', report);
    this.#unsubscribe = subscribeQueued(cluster, this.#queue, (event) => this.#handle(event));
    this.#queue.push(() => {
      for (const ns of cluster.list('namespaces')) {
        if (ns.metadata.deletionTimestamp)
          this.#handle({ type: 'MODIFIED', resource: 'namespaces', object: ns });
      }
    });
  }

  stop(): void {
    this.#unsubscribe();
    this.#queue.stop();
    if (this.#interval) clearInterval(this.#interval);
    this.#interval = undefined;
    for (const t of this.#soonTimers.values()) clearTimeout(t);
    this.#soonTimers.clear();
    for (const t of this.#delayTimers.values()) clearTimeout(t);
    this.#delayTimers.clear();
  }

  /** A namespace whose deletion was just seen waits deletionDelayMs before its first pass. */
  #delayFirstPass(name: string): void {
    const delay = this.#options.deletionDelayMs;
    if (delay <= 0) return;
    this.#notBefore.set(name, Date.now() + delay);
    this.#delayTimers.set(
      name,
      setTimeout(() => {
        this.#delayTimers.delete(name);
        this.#notBefore.delete(name);
        this.#markDirty(name);
      }, delay),
    );
  }

  #forgetDelay(name: string): void {
    const t = this.#delayTimers.get(name);
    if (t) clearTimeout(t);
    this.#delayTimers.delete(name);
    this.#notBefore.delete(name);
  }

  /** Coalesces the re-checks caused by a stream of DELETED events (each re-check lists what is left). */
  #soon(name: string): void {
    if (this.#soonTimers.has(name)) return;
    this.#soonTimers.set(
      name,
      setTimeout(() => {
        this.#soonTimers.delete(name);
        this.#markDirty(name);
      }, 50),
    );
  }

  #markDirty(name: string): void {
    if (this.#dirty.has(name)) return;
    this.#dirty.add(name);
    this.#queue.push(() => {
      this.#dirty.delete(name);
      this.#sync(name);
    });
  }

  #updateInterval(): void {
    if (this.#terminating.size > 0 && !this.#interval) {
      this.#interval = setInterval(() => {
        for (const name of this.#terminating.keys()) this.#markDirty(name);
      }, this.#options.recheckMs);
      this.#interval.unref();
    } else if (this.#terminating.size === 0 && this.#interval) {
      clearInterval(this.#interval);
      this.#interval = undefined;
    }
  }

  #handle(event: StoreEvent): void {
    const o = event.object;
    if (event.resource === 'namespaces') {
      const name = o.metadata.name ?? '';
      if (event.type === 'DELETED' || !o.metadata.deletionTimestamp) {
        if (this.#terminating.get(name) === o.metadata.uid || event.type !== 'DELETED') {
          this.#terminating.delete(name);
          this.#forgetDelay(name);
        }
      } else {
        const uid = o.metadata.uid ?? '';
        if (this.#terminating.get(name) !== uid) {
          this.#forgetDelay(name);
          this.#delayFirstPass(name);
        }
        this.#terminating.set(name, uid);
        this.#markDirty(name);
      }
      this.#updateInterval();
      return;
    }
    const ns = o.metadata.namespace;
    if (event.type === 'DELETED' && ns && this.#terminating.has(ns)) this.#soon(ns);
  }

  /** Deletes what is left in the namespace and says what remains; when nothing does, removes the finalizer. */
  #sync(name: string): void {
    const uid = this.#terminating.get(name);
    if (uid === undefined) return;
    const ns = this.#cluster.get('namespaces', undefined, name);
    if (!ns || ns.metadata.uid !== uid || !ns.metadata.deletionTimestamp) {
      this.#terminating.delete(name);
      this.#forgetDelay(name);
      this.#updateInterval();
      return;
    }
    if ((this.#notBefore.get(name) ?? 0) > Date.now()) return;
    const remaining = this.#deleteContent(name);
    this.#writeConditions(name, uid, remaining);
    if (remaining.resources.size > 0 || !hasNamespaceFinalizer(ns)) return;
    this.#removeFinalizer(name, uid);
  }

  /**
   * Deletes every namespaced object of the namespace not yet being deleted; what is left right after (the
   * objects still there per resource, and per finalizer the objects that hold it), as the real controller
   * counts it after its delete calls.
   */
  #deleteContent(name: string): RemainingContent {
    const remaining: RemainingContent = { resources: new Map(), finalizers: new Map() };
    for (const r of distinctResources(this.#cluster.resourceTypes())) {
      if (!r.namespaced || !r.verbs.includes('list')) continue;
      for (const o of this.#cluster.list(r.resource, name)) {
        if (o.metadata.deletionTimestamp) continue;
        try {
          this.#cluster.delete(r.resource, name, o.metadata.name ?? '', {
            preconditions: { uid: o.metadata.uid ?? '' },
          });
        } catch (err) {
          if (!isApiError(err, 404) && !isApiError(err, 409)) throw err;
        }
      }
      const left = this.#cluster.list(r.resource, name);
      if (left.length === 0) continue;
      remaining.resources.set(r.resource, left.length);
      for (const o of left) {
        for (const f of o.metadata.finalizers ?? [])
          remaining.finalizers.set(f, (remaining.finalizers.get(f) ?? 0) + 1);
      }
    }
    return remaining;
  }

  /** The namespace's deletion conditions, written when they changed. */
  #writeConditions(name: string, uid: string, remaining: RemainingContent): void {
    const now = nowIso();
    mutate(this.#cluster, 'updateStatus', 'namespaces', undefined, name, uid, (n) => {
      const status = (n.status ?? {}) as JsonObject;
      const conditions = namespaceDeletionConditions(status.conditions, remaining, now);
      if (conditions === undefined) return undefined;
      n.status = { ...status, conditions };
      return n;
    });
  }

  #removeFinalizer(name: string, uid: string): void {
    mutate(this.#cluster, 'update', 'namespaces', undefined, name, uid, (n) => {
      if (!hasNamespaceFinalizer(n)) return undefined;
      const spec = { ...((n.spec ?? {}) as JsonObject) };
      if (Array.isArray(spec.finalizers))
        spec.finalizers = spec.finalizers.filter((f) => f !== NAMESPACE_FINALIZER);
      n.spec = spec;
      if (n.metadata.finalizers)
        n.metadata.finalizers = n.metadata.finalizers.filter((f) => f !== NAMESPACE_FINALIZER);
      return n;
    });
  }
}
