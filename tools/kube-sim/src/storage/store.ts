// The object store: every object once (frozen), one global resourceVersion counter (as etcd), a bounded
// history of committed events (for watch resume and reads at an older resourceVersion), sorted views for lists
// and a label index (key=value → objects) for lists by label, both kept up to date on every write.
import { deepFreeze } from '../apimachinery/json.ts';
import { ApiError, type KubeObject, type WatchEventType } from '../apimachinery/types.ts';

/** A stored object and its cached JSON text and protobuf encoding (each filled on first serialization). */
export interface Rec {
  readonly obj: KubeObject;
  json: string | undefined;
  /** The object as a protobuf watch carries it (`k8s\0` and runtime.Unknown), for the watches that ask. */
  pb: Buffer | undefined;
}

/** One committed change. `rv` is its resourceVersion; `prev` the object before (undefined for ADDED). */
export interface HistEvent {
  readonly rv: number;
  readonly type: WatchEventType;
  readonly resource: string;
  readonly rec: Rec;
  readonly prev: Rec | undefined;
  /** `{"type":...,"object":...}\n`, serialized once and shared by all watchers that see it unchanged. */
  line: string | undefined;
}

export function recJson(rec: Rec): string {
  rec.json ??= JSON.stringify(rec.obj);
  return rec.json;
}

export function eventLine(ev: HistEvent): string {
  ev.line ??= `{"type":"${ev.type}","object":${recJson(ev.rec)}}\n`;
  return ev.line;
}

/** The order of every list: by namespace, then by name (not by the `namespace/name` string: "a-b" < "a/"). */
export function compareKeys(na: string, ma: string, nb: string, mb: string): number {
  if (na !== nb) return na < nb ? -1 : 1;
  return ma < mb ? -1 : ma > mb ? 1 : 0;
}

function keyCompare(a: Rec, b: Rec): number {
  const ma = a.obj.metadata;
  const mb = b.obj.metadata;
  return compareKeys(ma.namespace ?? '', ma.name ?? '', mb.namespace ?? '', mb.name ?? '');
}

/**
 * After this many changes without a read, a sorted view stops being kept up to date and is rebuilt by a sort
 * when next read. Keeping it costs a binary search and an O(n) move per change, a rebuild one O(n log n) sort:
 * about a thousand moves of a 10,000-object array cost what one sort of it does.
 */
const UNREAD_CHANGES_BEFORE_DROP = 1000;

function lowerBound(a: readonly Rec[], rec: Rec): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyCompare(a[mid] as Rec, rec) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A set of records as an array sorted by namespace/name, built by a sort on first read and then kept up to
 * date by binary-searched inserts, replacements and deletes (no re-sort). The array is changed in place until
 * `view()` hands it out; after that the next change works on a copy (copy-on-write), so an array a caller
 * holds (across the awaits of a paged list, a watch's initial events) never changes under it.
 */
class SortedRecs {
  private arr: Rec[] | undefined;
  private shared = false;
  private unread = 0;
  private readonly source: () => Iterable<Rec>;
  private readonly sourceSorted: boolean;

  /** `source` gives the current records (all of them, in any order unless `sourceSorted`). */
  constructor(source: () => Iterable<Rec>, sourceSorted = false) {
    this.source = source;
    this.sourceSorted = sourceSorted;
  }

  /** The current records, sorted; the caller must not modify the array, and it will not change afterwards. */
  view(): readonly Rec[] {
    if (!this.arr) {
      this.arr = [...this.source()];
      if (!this.sourceSorted) this.arr.sort(keyCompare);
    }
    this.shared = true;
    this.unread = 0;
    return this.arr;
  }

  /**
   * The array before a change, or undefined when it isn't kept (not built, or now dropped: too many changes
   * without a read).
   */
  private changing(): Rec[] | undefined {
    if (!this.arr) return undefined;
    if (++this.unread > UNREAD_CHANGES_BEFORE_DROP) {
      this.arr = undefined;
      this.shared = false;
      return undefined;
    }
    return this.arr;
  }

  /** Replaces the record with the same namespace/name (same position), or inserts it in order. */
  upsert(rec: Rec): void {
    const a = this.changing();
    if (!a) return;
    const i = lowerBound(a, rec);
    const at = a[i];
    const replace = at !== undefined && keyCompare(at, rec) === 0;
    if (this.shared) {
      // copy-on-write: one new array with the change (toSpliced/with copy once; cheaper than slice + splice)
      this.arr = replace ? a.with(i, rec) : a.toSpliced(i, 0, rec);
      this.shared = false;
    } else if (replace) a[i] = rec;
    else a.splice(i, 0, rec);
  }

  /** Removes the record with the namespace/name of `rec`, if present. */
  delete(rec: Rec): void {
    const a = this.changing();
    if (!a) return;
    const i = lowerBound(a, rec);
    const at = a[i];
    if (at === undefined || keyCompare(at, rec) !== 0) return;
    if (this.shared) {
      this.arr = a.toSpliced(i, 1);
      this.shared = false;
    } else a.splice(i, 1);
  }
}

/** The objects of one namespace carrying one label key=value: by name, and sorted when asked for. */
class LabelEntry {
  readonly members = new Map<string, Rec>();
  readonly sorted = new SortedRecs(() => this.members.values());

  set(rec: Rec): void {
    this.members.set(rec.obj.metadata.name as string, rec);
    this.sorted.upsert(rec);
  }

  delete(rec: Rec): void {
    this.members.delete(rec.obj.metadata.name as string);
    this.sorted.delete(rec);
  }
}

/** One namespace's label index: label key → label value → the objects carrying that label. */
type LabelIndex = Map<string, Map<string, LabelEntry>>;

function labelsOf(rec: Rec | undefined): Record<string, string> | undefined {
  return rec?.obj.metadata.labels;
}

class Bucket {
  readonly byNs = new Map<string, Map<string, Rec>>();
  count = 0;
  /** rv of the last change in this resource. */
  lastRv = 0;
  /** Sorted views: all namespaces, and per namespace (created on first read). */
  readonly sortedAll = new SortedRecs(() => this.allSorted(), true);
  readonly sortedNs = new Map<string, SortedRecs>();
  /** Per namespace, built on the first label lookup there and then kept up to date on every put/remove. */
  readonly labels = new Map<string, LabelIndex>();

  /** The sorted view of one namespace; undefined when it has no objects. */
  nsView(namespace: string): SortedRecs | undefined {
    let v = this.sortedNs.get(namespace);
    if (!v) {
      const m = this.byNs.get(namespace);
      if (!m) return undefined;
      v = new SortedRecs(() => m.values());
      this.sortedNs.set(namespace, v);
    }
    return v;
  }

  private *allSorted(): Generator<Rec> {
    for (const ns of [...this.byNs.keys()].sort()) {
      const v = this.nsView(ns);
      if (v) yield* v.view();
    }
  }

  /** The label index of one namespace, built on first use; undefined when it has no objects. */
  labelIndex(namespace: string): LabelIndex | undefined {
    let index = this.labels.get(namespace);
    if (!index) {
      const m = this.byNs.get(namespace);
      if (!m) return undefined;
      index = new Map();
      for (const rec of m.values()) updateLabelIndex(index, undefined, rec);
      this.labels.set(namespace, index);
    }
    return index;
  }
}

/** Updates a namespace's label index for one change: `prev` (absent for a create) became `next` (absent for a delete). */
function updateLabelIndex(index: LabelIndex, prev: Rec | undefined, next: Rec | undefined): void {
  const before = labelsOf(prev);
  const after = labelsOf(next);
  if (before) {
    for (const k of Object.keys(before)) {
      const v = before[k] as string;
      if (after && Object.hasOwn(after, k) && after[k] === v) continue; // replaced below
      const byValue = index.get(k);
      const entry = byValue?.get(v);
      if (!byValue || !entry) continue;
      entry.delete(prev as Rec);
      if (entry.members.size === 0) {
        byValue.delete(v);
        if (byValue.size === 0) index.delete(k);
      }
    }
  }
  if (after) {
    for (const k of Object.keys(after)) {
      const v = after[k] as string;
      let byValue = index.get(k);
      if (!byValue) index.set(k, (byValue = new Map()));
      let entry = byValue.get(v);
      if (!entry) byValue.set(v, (entry = new LabelEntry()));
      entry.set(next as Rec);
    }
  }
}

export class Store {
  private rvCounter = 0;
  private readonly buckets = new Map<string, Bucket>();
  // History ring: events with rv in (compacted, rvCounter], contiguous (one event per commit).
  private ring: (HistEvent | undefined)[];
  private ringStart = 0;
  private ringSize = 0;
  private compacted = 0;
  private readonly listeners = new Set<(ev: HistEvent) => void>();
  private readonly snapshotCache = new Map<string, Rec[]>();

  constructor(historyLimit = 20000) {
    this.ring = new Array<HistEvent | undefined>(Math.max(1, historyLimit));
  }

  get resourceVersion(): number {
    return this.rvCounter;
  }

  /** The oldest resourceVersion a watch may resume from (events strictly after it are retained). */
  get oldestResourceVersion(): number {
    return this.compacted;
  }

  get historyLimit(): number {
    return this.ring.length;
  }

  /** Changes how many events are retained; shrinking forgets the oldest at once. */
  setHistoryLimit(limit: number): void {
    const events = this.historyEvents(this.compacted);
    const n = Math.max(1, Math.floor(limit));
    const keep = events.slice(Math.max(0, events.length - n));
    if (keep.length < events.length) this.compacted = (keep[0]?.rv ?? this.rvCounter + 1) - 1;
    if (keep.length === 0) this.compacted = this.rvCounter;
    this.ring = new Array<HistEvent | undefined>(n);
    keep.forEach((e, i) => (this.ring[i] = e));
    this.ringStart = 0;
    this.ringSize = keep.length;
    this.snapshotCache.clear();
  }

  /** Forgets all history: any watch or read at an older resourceVersion now gets 410. */
  compact(): void {
    this.setHistoryLimit(this.ring.length);
    this.ring.fill(undefined);
    this.ringSize = 0;
    this.ringStart = 0;
    this.compacted = this.rvCounter;
  }

  onCommit(listener: (ev: HistEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private bucket(resource: string): Bucket {
    let b = this.buckets.get(resource);
    if (!b) this.buckets.set(resource, (b = new Bucket()));
    return b;
  }

  get(resource: string, namespace: string | undefined, name: string): Rec | undefined {
    return this.buckets
      .get(resource)
      ?.byNs.get(namespace ?? '')
      ?.get(name);
  }

  count(resource: string, namespace?: string): number {
    const b = this.buckets.get(resource);
    if (!b) return 0;
    if (namespace === undefined) return b.count;
    return b.byNs.get(namespace)?.size ?? 0;
  }

  /** rv of the last change to a resource (0 when never changed). */
  lastChange(resource: string): number {
    return this.buckets.get(resource)?.lastRv ?? 0;
  }

  /** Current objects of a resource, sorted by namespace/name. The array is shared: don't modify it. */
  list(resource: string, namespace?: string): readonly Rec[] {
    const b = this.buckets.get(resource);
    if (!b) return [];
    if (namespace !== undefined) return b.nsView(namespace)?.view() ?? [];
    return b.sortedAll.view();
  }

  /**
   * Current objects of a resource (in `namespace`, or in all namespaces) carrying a label, sorted by
   * namespace/name (so a subsequence of `list`), from the label index. Of the `[key, value]` pairs given, the
   * one carried by the fewest objects is used: for a label selector with these equality requirements the
   * result holds every object it can match (the caller still applies the whole selector). The array is
   * shared: don't modify it. With no pairs, this is `list`.
   */
  listByLabel(
    resource: string,
    namespace: string | undefined,
    pairs: readonly (readonly [key: string, value: string])[],
  ): readonly Rec[] {
    if (pairs.length === 0) return this.list(resource, namespace);
    const b = this.buckets.get(resource);
    if (!b) return [];
    const namespaces = namespace !== undefined ? [namespace] : [...b.byNs.keys()].sort();
    const indexes: LabelIndex[] = [];
    for (const ns of namespaces) {
      const index = b.labelIndex(ns);
      if (index) indexes.push(index);
    }
    let best: readonly [string, string] | undefined;
    let bestSize = Infinity;
    for (const pair of pairs) {
      let size = 0;
      for (const index of indexes) size += index.get(pair[0])?.get(pair[1])?.members.size ?? 0;
      if (size < bestSize) [best, bestSize] = [pair, size];
    }
    if (!best || bestSize === 0) return [];
    const [k, v] = best;
    if (indexes.length === 1) return indexes[0]?.get(k)?.get(v)?.sorted.view() ?? [];
    const out: Rec[] = [];
    for (const index of indexes) {
      const entry = index.get(k)?.get(v);
      if (entry) for (const r of entry.sorted.view()) out.push(r);
    }
    return out;
  }

  /** The objects of a resource as they were at resourceVersion `rv`; 410 when that is older than the history. */
  listAt(resource: string, namespace: string | undefined, rv: number): readonly Rec[] {
    if (rv >= this.rvCounter || rv >= this.lastChange(resource)) return this.list(resource, namespace);
    if (rv < this.compacted) {
      throw new ApiError(410, 'Expired', `The resourceVersion for the provided list is too old.`);
    }
    const cacheKey = `${resource}|${namespace ?? '*'}|${rv}`;
    const cached = this.snapshotCache.get(cacheKey);
    if (cached) return cached;
    const state = new Map<string, Rec>();
    for (const r of this.list(resource, namespace)) {
      state.set(`${r.obj.metadata.namespace ?? ''}/${r.obj.metadata.name}`, r);
    }
    for (let i = this.ringSize - 1; i >= 0; i--) {
      const ev = this.ring[(this.ringStart + i) % this.ring.length] as HistEvent;
      if (ev.rv <= rv) break;
      if (ev.resource !== resource) continue;
      const meta = ev.rec.obj.metadata;
      if (namespace !== undefined && (meta.namespace ?? '') !== namespace) continue;
      const key = `${meta.namespace ?? ''}/${meta.name}`;
      if (ev.type === 'ADDED') state.delete(key);
      else if (ev.prev) state.set(key, ev.prev);
    }
    const out = [...state.values()].sort(keyCompare);
    if (this.snapshotCache.size >= 8) {
      const first = this.snapshotCache.keys().next().value;
      if (first !== undefined) this.snapshotCache.delete(first);
    }
    this.snapshotCache.set(cacheKey, out);
    return out;
  }

  /** Retained events with rv > `after`, oldest first; 410 when `after` is older than the retained window. */
  historyEvents(after: number): HistEvent[] {
    if (after < this.compacted) {
      throw new ApiError(410, 'Expired', `too old resource version: ${after} (${this.compacted})`);
    }
    const out: HistEvent[] = [];
    const skip = Math.max(0, after - this.compacted);
    for (let i = skip; i < this.ringSize; i++) {
      out.push(this.ring[(this.ringStart + i) % this.ring.length] as HistEvent);
    }
    return out;
  }

  /**
   * Stores a new or changed object, giving it the next resourceVersion. The object must not be shared with
   * anyone who will modify it: it is frozen here.
   */
  put(resource: string, input: KubeObject): KubeObject {
    const b = this.bucket(resource);
    const ns = input.metadata.namespace ?? '';
    const name = input.metadata.name as string;
    let m = b.byNs.get(ns);
    if (!m) b.byNs.set(ns, (m = new Map()));
    const prev = m.get(name);
    const rv = ++this.rvCounter;
    const obj = deepFreeze({ ...input, metadata: { ...input.metadata, resourceVersion: String(rv) } });
    const rec: Rec = { obj, json: undefined, pb: undefined };
    if (!prev) b.count++;
    m.set(name, rec);
    this.touch(b, ns, rv, prev, rec);
    this.record({ rv, type: prev ? 'MODIFIED' : 'ADDED', resource, rec, prev, line: undefined });
    return obj;
  }

  /**
   * Puts back an object read from a data-dir snapshot as it was (its resourceVersion kept), with no event:
   * the store is being rebuilt before anyone can read or watch it. Call `resumeAt` once all are back.
   */
  restore(resource: string, obj: KubeObject): void {
    const b = this.bucket(resource);
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name as string;
    let m = b.byNs.get(ns);
    if (!m) b.byNs.set(ns, (m = new Map()));
    if (m.has(name)) throw new Error(`${resource} ${ns ? `${ns}/` : ''}${name} appears twice`);
    const rec: Rec = { obj: deepFreeze(obj), json: undefined, pb: undefined };
    b.count++;
    m.set(name, rec);
    this.touch(b, ns, Math.max(b.lastRv, Number(obj.metadata.resourceVersion)), undefined, rec);
  }

  /**
   * After a restore: the counter continues from `rv` (never below a restored object's), and the history starts
   * empty, as a restarted API server's watch cache does: a watch or an exact read at an older resourceVersion
   * gets 410 Gone.
   */
  resumeAt(rv: number): void {
    let highest = rv;
    for (const b of this.buckets.values()) highest = Math.max(highest, b.lastRv);
    this.rvCounter = Math.max(this.rvCounter, highest);
    this.compact();
  }

  /** Removes an object; the DELETED event carries its last state with a new resourceVersion. */
  remove(resource: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const b = this.buckets.get(resource);
    const ns = namespace ?? '';
    const m = b?.byNs.get(ns);
    const prev = m?.get(name);
    if (!b || !m || !prev) return undefined;
    const rv = ++this.rvCounter;
    const obj = deepFreeze({
      ...prev.obj,
      metadata: { ...prev.obj.metadata, resourceVersion: String(rv) },
    });
    m.delete(name);
    b.count--;
    this.touch(b, ns, rv, prev, undefined);
    if (m.size === 0) {
      b.byNs.delete(ns);
      b.sortedNs.delete(ns);
      b.labels.delete(ns);
    }
    this.record({
      rv,
      type: 'DELETED',
      resource,
      rec: { obj, json: undefined, pb: undefined },
      prev,
      line: undefined,
    });
    return obj;
  }

  /** Keeps the bucket's sorted views and label index up to date: `prev` became `next` (undefined: none). */
  private touch(b: Bucket, ns: string, rv: number, prev: Rec | undefined, next: Rec | undefined): void {
    b.lastRv = rv;
    for (const view of [b.sortedAll, b.sortedNs.get(ns)]) {
      if (next) view?.upsert(next);
      else if (prev) view?.delete(prev);
    }
    const index = b.labels.get(ns);
    if (index) updateLabelIndex(index, prev, next);
  }

  private record(ev: HistEvent): void {
    const cap = this.ring.length;
    if (this.ringSize < cap) {
      this.ring[(this.ringStart + this.ringSize) % cap] = ev;
      this.ringSize++;
    } else {
      const dropped = this.ring[this.ringStart] as HistEvent;
      this.compacted = dropped.rv;
      this.ring[this.ringStart] = ev;
      this.ringStart = (this.ringStart + 1) % cap;
    }
    for (const l of this.listeners) l(ev);
  }

  resources(): string[] {
    return [...this.buckets.keys()];
  }
}
