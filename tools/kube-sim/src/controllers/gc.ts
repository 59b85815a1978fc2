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
// The graph is kept from store events: owner uid → dependents (with their blockOwnerDeletion flag and a
// count of blocking ones), so each event costs O(its references), an owner's deletion O(its dependents).
import type { ClusterAccess, KubeObject, OwnerReference, StoreEvent } from '../apimachinery/types.ts';
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

interface Ident {
  resource: string;
  namespace: string | undefined;
  name: string;
  uid: string;
}

interface DepNode extends Ident {
  owners: OwnerReference[];
}

interface OwnerEntry {
  /** dependent uid → blockOwnerDeletion */
  deps: Map<string, boolean>;
  blocking: number;
  /** Set while the owner is being deleted in the foreground. */
  foreground?: Ident;
}

export interface GarbageCollector {
  stop(): void;
  /** For tests and metrics: number of objects with ownerReferences and of owners referenced. */
  graphSize(): { dependents: number; owners: number };
}

function identOf(resource: string, o: KubeObject): Ident {
  return {
    resource,
    namespace: o.metadata.namespace,
    name: o.metadata.name ?? '',
    uid: o.metadata.uid ?? '',
  };
}

function sameRefs(a: OwnerReference[], b: OwnerReference[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (
      a[i]!.uid !== b[i]!.uid ||
      (a[i]!.blockOwnerDeletion === true) !== (b[i]!.blockOwnerDeletion === true)
    )
      return false;
  }
  return true;
}

export function startGarbageCollector(cluster: ClusterAccess, report: ErrorReporter): GarbageCollector {
  const queue = new WorkQueue('garbage collector', report);
  const kinds = new KindMapper(cluster);
  const deps = new Map<string, DepNode>();
  const owners = new Map<string, OwnerEntry>();
  /** Owner uids verified to exist (cleared when their DELETED event is seen). */
  const present = new Set<string>();

  function entry(uid: string): OwnerEntry {
    let e = owners.get(uid);
    if (!e) {
      e = { deps: new Map(), blocking: 0 };
      owners.set(uid, e);
    }
    return e;
  }

  function dropIfEmpty(uid: string, e: OwnerEntry): void {
    if (e.deps.size === 0 && !e.foreground) owners.delete(uid);
  }

  function unlink(ownerUid: string, depUid: string): void {
    const e = owners.get(ownerUid);
    if (!e) return;
    const blocking = e.deps.get(depUid);
    if (blocking === undefined) return;
    e.deps.delete(depUid);
    if (blocking) {
      e.blocking--;
      if (e.blocking === 0 && e.foreground) {
        const ownerUid2 = ownerUid;
        queue.push(() => finishForeground(ownerUid2));
      }
    }
    dropIfEmpty(ownerUid, e);
  }

  /** Updates the graph for an object's current ownerReferences; returns true when it needs a check. */
  function link(resource: string, o: KubeObject): boolean {
    const uid = o.metadata.uid!;
    const refs = (o.metadata.ownerReferences ?? []).filter((r) => r && typeof r.uid === 'string');
    const old = deps.get(uid);
    if (refs.length === 0) {
      if (old) {
        deps.delete(uid);
        for (const r of old.owners) unlink(r.uid, uid);
      }
      return false;
    }
    if (old && sameRefs(old.owners, refs)) {
      // The common case (a status update): same owners, nothing to relink.
      for (const r of refs) if (!present.has(r.uid) || owners.get(r.uid)?.foreground) return true;
      return false;
    }
    const newUids = new Set(refs.map((r) => r.uid));
    if (old) for (const r of old.owners) if (!newUids.has(r.uid)) unlink(r.uid, uid);
    deps.set(uid, { ...identOf(resource, o), owners: refs });
    let check = false;
    for (const r of refs) {
      const e = entry(r.uid);
      const blocking = r.blockOwnerDeletion === true;
      const prev = e.deps.get(uid);
      if (prev !== blocking) {
        if (prev === true) e.blocking--;
        if (blocking) e.blocking++;
        e.deps.set(uid, blocking);
        if (prev === true && e.blocking === 0 && e.foreground) {
          const ownerUid = r.uid;
          queue.push(() => finishForeground(ownerUid));
        }
      }
      if (!present.has(r.uid) || e.foreground) check = true;
    }
    return check;
  }

  function handle(event: StoreEvent): void {
    const o = event.object;
    const uid = o.metadata.uid;
    if (event.resource === CRD_RESOURCE) kinds.invalidate();
    if (!uid) return;
    if (event.type === 'DELETED') {
      present.delete(uid);
      const node = deps.get(uid);
      if (node) {
        deps.delete(uid);
        for (const r of node.owners) unlink(r.uid, uid);
      }
      const e = owners.get(uid);
      if (e) {
        e.foreground = undefined;
        for (const depUid of e.deps.keys()) queue.push(() => attemptToDelete(depUid));
        dropIfEmpty(uid, e);
      }
      return;
    }
    if (owners.has(uid)) present.add(uid);
    if (link(event.resource, o)) queue.push(() => attemptToDelete(uid));
    if (o.metadata.deletionTimestamp) {
      const finalizers = o.metadata.finalizers ?? [];
      if (finalizers.includes(ORPHAN_FINALIZER)) {
        const ident = identOf(event.resource, o);
        queue.push(() => orphanDependents(ident));
      }
      if (finalizers.includes(FOREGROUND_FINALIZER)) {
        const e = entry(uid);
        if (!e.foreground) {
          e.foreground = identOf(event.resource, o);
          for (const depUid of e.deps.keys()) queue.push(() => attemptToDelete(depUid));
          queue.push(() => finishForeground(uid));
        }
      }
    }
  }

  type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolvable';

  function resolve(ref: OwnerReference, dependent: KubeObject): OwnerState {
    const mapping = kinds.lookup(ref.apiVersion ?? '', ref.kind ?? '');
    if (!mapping) return 'unresolvable';
    const dependentNamespaced =
      dependent.metadata.namespace !== undefined && dependent.metadata.namespace !== '';
    if (mapping.namespaced && !dependentNamespaced) return 'unresolvable';
    const owner = cluster.get(
      mapping.resource,
      mapping.namespaced ? dependent.metadata.namespace : undefined,
      ref.name,
    );
    if (!owner || owner.metadata.uid !== ref.uid) {
      present.delete(ref.uid);
      return 'dangling';
    }
    if (owners.has(ref.uid)) present.add(ref.uid);
    if (owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER))
      return 'waiting';
    return 'solid';
  }

  function attemptToDelete(uid: string): void {
    const node = deps.get(uid);
    if (!node) return;
    const live = cluster.get(node.resource, node.namespace, node.name);
    if (!live || live.metadata.uid !== uid) return;
    if (live.metadata.deletionTimestamp) return; // already being deleted
    const refs = live.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const gone = new Set<string>(); // dangling or waiting for dependents' deletion
    let waiting = false;
    for (const ref of refs) {
      const state = resolve(ref, live);
      if (state === 'solid' || state === 'unresolvable') solid.push(ref);
      else {
        gone.add(ref.uid);
        if (state === 'waiting') waiting = true;
      }
    }
    if (solid.length > 0) {
      if (gone.size === 0) return;
      // Keep the dependent, drop the references that would keep it (or block its owners) forever.
      mutate(cluster, 'update', node.resource, node.namespace, node.name, uid, (d) => {
        const before = d.metadata.ownerReferences ?? [];
        const after = before.filter((r) => !gone.has(r.uid));
        if (after.length === before.length) return undefined;
        d.metadata.ownerReferences = after;
        return d;
      });
      return;
    }
    let policy: 'Background' | 'Foreground' | 'Orphan';
    const finalizers = live.metadata.finalizers ?? [];
    if (waiting && (owners.get(uid)?.deps.size ?? 0) > 0) policy = 'Foreground';
    else if (finalizers.includes(ORPHAN_FINALIZER)) policy = 'Orphan';
    else if (finalizers.includes(FOREGROUND_FINALIZER)) policy = 'Foreground';
    else policy = 'Background';
    try {
      cluster.delete(node.resource, node.namespace, node.name, {
        propagationPolicy: policy,
        preconditions: { uid },
      });
    } catch (err) {
      if (isApiError(err, 404) || isApiError(err, 409)) return;
      throw err;
    }
  }

  function finishForeground(ownerUid: string): void {
    const e = owners.get(ownerUid);
    const owner = e?.foreground;
    if (!e || !owner || e.blocking > 0) return;
    mutate(cluster, 'update', owner.resource, owner.namespace, owner.name, ownerUid, (o) => {
      const finalizers = o.metadata.finalizers ?? [];
      if (!o.metadata.deletionTimestamp || !finalizers.includes(FOREGROUND_FINALIZER)) return undefined;
      o.metadata.finalizers = finalizers.filter((f) => f !== FOREGROUND_FINALIZER);
      return o;
    });
  }

  function orphanDependents(owner: Ident): void {
    const e = owners.get(owner.uid);
    for (const depUid of e ? [...e.deps.keys()] : []) {
      const node = deps.get(depUid);
      if (!node) continue;
      mutate(cluster, 'update', node.resource, node.namespace, node.name, depUid, (d) => {
        const before = d.metadata.ownerReferences ?? [];
        const after = before.filter((r) => r.uid !== owner.uid);
        if (after.length === before.length) return undefined;
        if (after.length) d.metadata.ownerReferences = after;
        else delete d.metadata.ownerReferences;
        return d;
      });
    }
    mutate(cluster, 'update', owner.resource, owner.namespace, owner.name, owner.uid, (o) => {
      const finalizers = o.metadata.finalizers ?? [];
      if (!o.metadata.deletionTimestamp || !finalizers.includes(ORPHAN_FINALIZER)) return undefined;
      o.metadata.finalizers = finalizers.filter((f) => f !== ORPHAN_FINALIZER);
      return o;
    });
  }

  const unsubscribe = subscribeQueued(cluster, queue, handle);
  queue.push(() => {
    for (const r of distinctResources(cluster.resourceTypes())) {
      if (!r.verbs.includes('list')) continue;
      let objects: KubeObject[];
      try {
        objects = cluster.list(r.resource);
      } catch (err) {
        report(err, `garbage collector: initial list of ${r.resource}`);
        continue;
      }
      for (const o of objects) {
        if (o.metadata.ownerReferences?.length || o.metadata.deletionTimestamp) {
          handle({ type: 'ADDED', resource: r.resource, object: o });
        }
      }
    }
  });

  return {
    stop() {
      unsubscribe();
      queue.stop();
    },
    graphSize() {
      return { dependents: deps.size, owners: owners.size };
    },
  };
}
