// Garbage collector: ownerReferences semantics as in Kubernetes.
//
// - Background: when an owner is gone (deleted, or no object of that kind/name has the referenced uid),
//   a dependent whose ownerReferences all point to vanished owners is deleted. References to vanished
//   owners of a dependent that still has a live owner are removed from it instead.
// - Foreground: an owner being deleted with the `foregroundDeletion` finalizer gets its dependents deleted;
//   once no dependent with blockOwnerDeletion=true remains, the finalizer is removed (so the owner goes).
// - Orphan: an owner being deleted with the `orphan` finalizer → its ownerReference is removed from each
//   dependent, then the finalizer.
// Owners are matched by uid, looked up by kind + name in the dependent's namespace (namespaced owner) or
// cluster-wide (cluster-scoped owner). A cluster-scoped dependent naming a namespaced owner kind, or an
// owner of a kind the server doesn't serve, is unresolvable: the dependent is left alone.
//
// The graph is kept from store events (gc-graph.ts), so each event costs O(its references), an owner's
// deletion O(its dependents).
import type { ClusterAccess, KubeObject, OwnerReference, StoreEvent } from '../apimachinery/types.ts';
import { identOf, OwnerGraph, type DepNode, type Ident } from './gc-graph.ts';
import {
  KindMapper,
  WorkQueue,
  distinctResources,
  isApiError,
  mutate,
  subscribeQueued,
  type ErrorReporter,
} from './util.ts';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';
const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';

export interface GarbageCollector {
  stop(): void;
  /** For tests and metrics: number of objects with ownerReferences and of owners referenced. */
  graphSize(): { dependents: number; owners: number };
}

type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolvable';

export function startGarbageCollector(cluster: ClusterAccess, report: ErrorReporter): GarbageCollector {
  const gc = new Collector(cluster, report);
  return {
    stop: () => gc.stop(),
    graphSize: () => ({ dependents: gc.graph.deps.size, owners: gc.graph.owners.size }),
  };
}

/** The collector: store events update the graph and queue the checks; the checks act on the store. */
class Collector {
  readonly graph: OwnerGraph;
  readonly #cluster: ClusterAccess;
  readonly #report: ErrorReporter;
  readonly #queue: WorkQueue;
  readonly #kinds: KindMapper;
  readonly #unsubscribe: () => void;

  constructor(cluster: ClusterAccess, report: ErrorReporter) {
    this.#cluster = cluster;
    this.#report = report;
    this.#queue = new WorkQueue('garbage collector', report);
    this.#kinds = new KindMapper(cluster);
    this.graph = new OwnerGraph((ownerUid) => this.#queue.push(() => this.#finishForeground(ownerUid)));
    this.#unsubscribe = subscribeQueued(cluster, this.#queue, (event) => this.#handle(event));
    this.#queue.push(() => this.#listAll());
  }

  stop(): void {
    this.#unsubscribe();
    this.#queue.stop();
  }

  /** The objects stored before the start that have owners or are being deleted. */
  #listAll(): void {
    for (const r of distinctResources(this.#cluster.resourceTypes())) {
      if (!r.verbs.includes('list')) continue;
      let objects: KubeObject[];
      try {
        objects = this.#cluster.list(r.resource);
      } catch (err) {
        this.#report(err, `garbage collector: initial list of ${r.resource}`);
        continue;
      }
      for (const o of objects) {
        if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) {
          this.#handle({ type: 'ADDED', resource: r.resource, object: o });
        }
      }
    }
  }

  #handle(event: StoreEvent): void {
    const o = event.object;
    const uid = o.metadata.uid;
    if (event.resource === CRD_RESOURCE) this.#kinds.invalidate();
    if (!uid) return;
    if (event.type === 'DELETED') return this.#deleted(uid);
    if (this.graph.owners.has(uid)) this.graph.present.add(uid);
    if (this.graph.link(event.resource, o)) this.#queue.push(() => this.#attemptToDelete(uid));
    if (o.metadata.deletionTimestamp) this.#beingDeleted(event.resource, o);
  }

  /** An object gone: its dependents, if it owned any, are checked. */
  #deleted(uid: string): void {
    const e = this.graph.removed(uid);
    if (!e) return;
    for (const depUid of e.deps.keys()) this.#queue.push(() => this.#attemptToDelete(depUid));
    this.graph.dropIfEmpty(uid, e);
  }

  /** An owner being deleted with the orphan or foreground finalizer. */
  #beingDeleted(resource: string, o: KubeObject): void {
    const uid = o.metadata.uid ?? '';
    const finalizers = o.metadata.finalizers ?? [];
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      const ident = identOf(resource, o);
      this.#queue.push(() => this.#orphanDependents(ident));
    }
    if (!finalizers.includes(FOREGROUND_FINALIZER)) return;
    const e = this.graph.entry(uid);
    if (e.foreground) return;
    e.foreground = identOf(resource, o);
    for (const depUid of e.deps.keys()) this.#queue.push(() => this.#attemptToDelete(depUid));
    this.#queue.push(() => this.#finishForeground(uid));
  }

  #resolve(ref: OwnerReference, dependent: KubeObject): OwnerState {
    const mapping = this.#kinds.lookup(ref.apiVersion ?? '', ref.kind ?? '');
    if (!mapping) return 'unresolvable';
    const dependentNamespaced =
      dependent.metadata.namespace !== undefined && dependent.metadata.namespace !== '';
    if (mapping.namespaced && !dependentNamespaced) return 'unresolvable';
    const owner = this.#cluster.get(
      mapping.resource,
      mapping.namespaced ? dependent.metadata.namespace : undefined,
      ref.name,
    );
    if (!owner || owner.metadata.uid !== ref.uid) {
      this.graph.present.delete(ref.uid);
      return 'dangling';
    }
    if (this.graph.owners.has(ref.uid)) this.graph.present.add(ref.uid);
    if (owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER))
      return 'waiting';
    return 'solid';
  }

  /** A dependent whose owners may be gone: deleted when all are, else freed of the vanished ones. */
  #attemptToDelete(uid: string): void {
    const node = this.graph.deps.get(uid);
    if (!node) return;
    const live = this.#cluster.get(node.resource, node.namespace, node.name);
    if (!live || live.metadata.uid !== uid) return;
    if (live.metadata.deletionTimestamp) return; // already being deleted
    const refs = live.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    let solid = 0;
    const gone = new Set<string>(); // dangling or waiting for dependents' deletion
    let waiting = false;
    for (const ref of refs) {
      const state = this.#resolve(ref, live);
      if (state === 'solid' || state === 'unresolvable') solid++;
      else {
        gone.add(ref.uid);
        if (state === 'waiting') waiting = true;
      }
    }
    if (solid > 0) {
      // Keep the dependent, drop the references that would keep it (or block its owners) forever.
      if (gone.size > 0) this.#dropReferences(node, (r) => gone.has(r.uid), false);
      return;
    }
    this.#delete(node, live, waiting);
  }

  /** Deletes a dependent whose owners are all gone, with the policy its own dependents need. */
  #delete(node: DepNode, live: KubeObject, waiting: boolean): void {
    const uid = node.uid;
    let policy: 'Background' | 'Foreground' | 'Orphan';
    const finalizers = live.metadata.finalizers ?? [];
    if (waiting && (this.graph.owners.get(uid)?.deps.size ?? 0) > 0) policy = 'Foreground';
    else if (finalizers.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (finalizers.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    try {
      this.#cluster.delete(node.resource, node.namespace, node.name, {
        propagationPolicy: policy,
        preconditions: { uid },
      });
    } catch (err) {
      if (isApiError(err, 404) || isApiError(err, 409)) return;
      throw err;
    }
  }

  /**
   * Removes the references `drop` picks from a dependent; `removeEmpty`: an emptied list goes (else it
   * stays, empty).
   */
  #dropReferences(node: Ident, drop: (r: OwnerReference) => boolean, removeEmpty: boolean): void {
    mutate(this.#cluster, 'update', node.resource, node.namespace, node.name, node.uid, (d) => {
      const before = d.metadata.ownerReferences ?? [];
      const after = before.filter((r) => !drop(r));
      if (after.length === before.length) return undefined;
      if (after.length || !removeEmpty) d.metadata.ownerReferences = after;
      else delete d.metadata.ownerReferences;
      return d;
    });
  }

  #removeFinalizer(owner: Ident, finalizer: string): void {
    mutate(this.#cluster, 'update', owner.resource, owner.namespace, owner.name, owner.uid, (o) => {
      const finalizers = o.metadata.finalizers ?? [];
      if (!o.metadata.deletionTimestamp || !finalizers.includes(finalizer)) return undefined;
      o.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
      return o;
    });
  }

  #finishForeground(ownerUid: string): void {
    const e = this.graph.owners.get(ownerUid);
    const owner = e?.foreground;
    if (!e || !owner || e.blocking > 0) return;
    this.#removeFinalizer({ ...owner, uid: ownerUid }, FOREGROUND_FINALIZER);
  }

  #orphanDependents(owner: Ident): void {
    const e = this.graph.owners.get(owner.uid);
    for (const depUid of e ? [...e.deps.keys()] : []) {
      const node = this.graph.deps.get(depUid);
      if (node) this.#dropReferences({ ...node, uid: depUid }, (r) => r.uid === owner.uid, true);
    }
    this.#removeFinalizer(owner, ORPHAN_FINALIZER);
  }
}
