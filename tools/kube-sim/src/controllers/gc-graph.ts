// The garbage collector's dependency graph (its graph builder's part), kept from store events: owner uid →
// dependents, each with its blockOwnerDeletion flag, and a count of the blocking ones. Each event costs
// O(its references); what to do about an owner or dependent is the collector's (gc.ts).
import type { KubeObject, OwnerReference } from '../apimachinery/types.ts';

export interface Ident {
  resource: string;
  namespace: string | undefined;
  name: string;
  uid: string;
}

export interface DepNode extends Ident {
  owners: OwnerReference[];
}

export interface OwnerEntry {
  /** dependent uid → blockOwnerDeletion */
  deps: Map<string, boolean>;
  blocking: number;
  /** Set while the owner is being deleted in the foreground. */
  foreground?: Ident;
}

export function identOf(resource: string, o: KubeObject): Ident {
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

export class OwnerGraph {
  /** Objects with ownerReferences, by uid. */
  readonly deps = new Map<string, DepNode>();
  /** Referenced owners (and owners being deleted in the foreground), by uid. */
  readonly owners = new Map<string, OwnerEntry>();
  /** Owner uids verified to exist (cleared when their DELETED event is seen). */
  readonly present = new Set<string>();
  /** Called when a foreground-deleted owner's last blocking dependent goes. */
  readonly #unblocked: (ownerUid: string) => void;

  constructor(unblocked: (ownerUid: string) => void) {
    this.#unblocked = unblocked;
  }

  entry(uid: string): OwnerEntry {
    let e = this.owners.get(uid);
    if (!e) {
      e = { deps: new Map(), blocking: 0 };
      this.owners.set(uid, e);
    }
    return e;
  }

  dropIfEmpty(uid: string, e: OwnerEntry): void {
    if (e.deps.size === 0 && !e.foreground) this.owners.delete(uid);
  }

  unlink(ownerUid: string, depUid: string): void {
    const e = this.owners.get(ownerUid);
    if (!e) return;
    const blocking = e.deps.get(depUid);
    if (blocking === undefined) return;
    e.deps.delete(depUid);
    if (blocking) {
      e.blocking--;
      if (e.blocking === 0 && e.foreground) this.#unblocked(ownerUid);
    }
    this.dropIfEmpty(ownerUid, e);
  }

  /** Updates the graph for an object's current ownerReferences; returns true when it needs a check. */
  link(resource: string, o: KubeObject): boolean {
    const uid = o.metadata.uid!;
    const refs = (o.metadata.ownerReferences ?? []).filter((r) => r && typeof r.uid === 'string');
    const old = this.deps.get(uid);
    if (refs.length === 0) {
      if (old) this.#forget(old);
      return false;
    }
    if (old && sameRefs(old.owners, refs)) {
      // The common case (a status update): same owners, nothing to relink.
      for (const r of refs) if (!this.present.has(r.uid) || this.owners.get(r.uid)?.foreground) return true;
      return false;
    }
    const newUids = new Set(refs.map((r) => r.uid));
    if (old) for (const r of old.owners) if (!newUids.has(r.uid)) this.unlink(r.uid, uid);
    this.deps.set(uid, { ...identOf(resource, o), owners: refs });
    let check = false;
    for (const r of refs) {
      const e = this.entry(r.uid);
      this.#setBlocking(e, r.uid, uid, r.blockOwnerDeletion === true);
      if (!this.present.has(r.uid) || e.foreground) check = true;
    }
    return check;
  }

  /**
   * An object is gone: it is no one's dependent any more, and no owner known to exist. Its entry as an
   * owner, if it has one, is returned with the foreground mark cleared (its dependents need a check).
   */
  removed(uid: string): OwnerEntry | undefined {
    this.present.delete(uid);
    const node = this.deps.get(uid);
    if (node) this.#forget(node);
    const e = this.owners.get(uid);
    if (e) e.foreground = undefined;
    return e;
  }

  #forget(node: DepNode): void {
    this.deps.delete(node.uid);
    for (const r of node.owners) this.unlink(r.uid, node.uid);
  }

  #setBlocking(e: OwnerEntry, ownerUid: string, depUid: string, blocking: boolean): void {
    const prev = e.deps.get(depUid);
    if (prev === blocking) return;
    if (prev === true) e.blocking--;
    if (blocking) e.blocking++;
    e.deps.set(depUid, blocking);
    if (prev === true && e.blocking === 0 && e.foreground) this.#unblocked(ownerUid);
  }
}
