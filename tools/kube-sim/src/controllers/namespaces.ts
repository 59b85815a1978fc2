// Namespace controller: a namespace being deleted (deletionTimestamp set, finalizer `kubernetes` in
// spec.finalizers — or metadata.finalizers) gets all its namespaced content deleted; once nothing is left,
// the `kubernetes` finalizer is removed so the store removes the namespace. Refusing to delete `default` and
// `kube-system` is the server's admission, not this controller's.
import type { ClusterAccess, JsonObject, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import {
  WorkQueue,
  distinctResources,
  isApiError,
  mutate,
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
  const queue = new WorkQueue('namespace controller', report);
  /** Terminating namespaces → uid; `dirty` holds those to look at on the next queue run. */
  const terminating = new Map<string, string>();
  const dirty = new Set<string>();
  const soonTimers = new Map<string, NodeJS.Timeout>();
  let interval: NodeJS.Timeout | undefined;

  /** Coalesces the re-checks caused by a stream of DELETED events (each re-check lists what is left). */
  function soon(name: string): void {
    if (soonTimers.has(name)) return;
    soonTimers.set(
      name,
      setTimeout(() => {
        soonTimers.delete(name);
        markDirty(name);
      }, 50),
    );
  }

  function markDirty(name: string): void {
    if (dirty.has(name)) return;
    dirty.add(name);
    queue.push(() => {
      dirty.delete(name);
      sync(name);
    });
  }

  function updateInterval(): void {
    if (terminating.size > 0 && !interval) {
      interval = setInterval(() => {
        for (const name of terminating.keys()) markDirty(name);
      }, options.recheckMs);
      interval.unref();
    } else if (terminating.size === 0 && interval) {
      clearInterval(interval);
      interval = undefined;
    }
  }

  function handle(event: StoreEvent): void {
    const o = event.object;
    if (event.resource === 'namespaces') {
      const name = o.metadata.name ?? '';
      if (event.type === 'DELETED' || !o.metadata.deletionTimestamp) {
        if (terminating.get(name) === o.metadata.uid || event.type !== 'DELETED') terminating.delete(name);
      } else {
        terminating.set(name, o.metadata.uid ?? '');
        markDirty(name);
      }
      updateInterval();
      return;
    }
    const ns = o.metadata.namespace;
    if (event.type === 'DELETED' && ns && terminating.has(ns)) soon(ns);
  }

  /** Deletes what is left in the namespace; when nothing is, removes the finalizer. */
  function sync(name: string): void {
    const uid = terminating.get(name);
    if (uid === undefined) return;
    const ns = cluster.get('namespaces', undefined, name);
    if (!ns || ns.metadata.uid !== uid || !ns.metadata.deletionTimestamp) {
      terminating.delete(name);
      updateInterval();
      return;
    }
    let remaining = 0;
    for (const r of distinctResources(cluster.resourceTypes())) {
      if (!r.namespaced || !r.verbs.includes('list')) continue;
      for (const o of cluster.list(r.resource, name)) {
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        try {
          cluster.delete(r.resource, name, o.metadata.name ?? '', {
            preconditions: { uid: o.metadata.uid ?? '' },
          });
        } catch (err) {
          if (!isApiError(err, 404) && !isApiError(err, 409)) throw err;
        }
      }
    }
    if (remaining > 0 || !hasNamespaceFinalizer(ns)) return;
    mutate(cluster, 'update', 'namespaces', undefined, name, uid, (n) => {
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

  const unsubscribe = subscribeQueued(cluster, queue, handle);
  queue.push(() => {
    for (const ns of cluster.list('namespaces')) {
      if (ns.metadata.deletionTimestamp) handle({ type: 'MODIFIED', resource: 'namespaces', object: ns });
    }
  });

  return {
    stop() {
      unsubscribe();
      queue.stop();
      if (interval) clearInterval(interval);
      interval = undefined;
      for (const t of soonTimers.values()) clearTimeout(t);
      soonTimers.clear();
    },
  };
}
