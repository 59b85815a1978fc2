// ReplicaSet-controller-style expectations: after issuing creates and deletes for a PodSet, the
// controller waits to see them in its informer cache before planning more, so a lagging cache never
// makes it create (or delete) twice. Creates are counted; deletes are tracked by pod UID, so the
// terminating update and the final delete event of one pod count once. Expectations expire (5 min, as
// in kube-controller-manager) so a lost event cannot block a PodSet for ever.

export const EXPECTATIONS_TTL_MS = 5 * 60_000;

interface Expectation {
  adds: number;
  deletes: Set<string>;
  since: number;
}

export class Expectations {
  private readonly byKey = new Map<string, Expectation>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(o: { ttlMs?: number; now?: () => number } = {}) {
    this.ttlMs = o.ttlMs ?? EXPECTATIONS_TTL_MS;
    this.now = o.now ?? Date.now;
  }

  /** Before issuing `n` creates. */
  expectCreations(key: string, n: number): void {
    const e = this.entry(key);
    e.adds += n;
    e.since = this.now();
  }

  /** Before deleting the pods with these UIDs. */
  expectDeletions(key: string, uids: readonly string[]): void {
    const e = this.entry(key);
    for (const u of uids) e.deletes.add(u);
    e.since = this.now();
  }

  /** A pod of this PodSet appeared in the cache (or a create that failed will never appear). */
  creationObserved(key: string, n = 1): void {
    const e = this.byKey.get(key);
    if (e !== undefined) e.adds = Math.max(0, e.adds - n);
  }

  /** The pod is terminating or gone in the cache (or its delete failed and it will not go). */
  deletionObserved(key: string, uid: string): void {
    this.byKey.get(key)?.deletes.delete(uid);
  }

  /** Plan creates and deletes only when everything expected was seen, or the wait expired. */
  satisfied(key: string): boolean {
    return this.pendingFor(key) === 0;
  }

  /** ms until the key's expectations expire; 0 when satisfied. */
  pendingFor(key: string): number {
    const e = this.byKey.get(key);
    if (e === undefined || (e.adds === 0 && e.deletes.size === 0)) return 0;
    return Math.max(0, e.since + this.ttlMs - this.now());
  }

  delete(key: string): void {
    this.byKey.delete(key);
  }

  private entry(key: string): Expectation {
    let e = this.byKey.get(key);
    if (e === undefined) {
      e = { adds: 0, deletes: new Set(), since: this.now() };
      this.byKey.set(key, e);
    }
    return e;
  }
}
