// The object store: every object once (frozen), one global resourceVersion counter (as etcd), a bounded
// history of committed events (for watch resume and reads at an older resourceVersion), sorted views for lists.
import { ApiError, type KubeObject, type WatchEventType } from './types.ts';

/** A stored object and its cached JSON text (filled on first serialization). */
export interface Rec {
  readonly obj: KubeObject;
  json: string | undefined;
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

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

function keyCompare(a: Rec, b: Rec): number {
  const na = a.obj.metadata.namespace ?? '';
  const nb = b.obj.metadata.namespace ?? '';
  if (na !== nb) return na < nb ? -1 : 1;
  const ma = a.obj.metadata.name ?? '';
  const mb = b.obj.metadata.name ?? '';
  return ma < mb ? -1 : ma > mb ? 1 : 0;
}

class Bucket {
  readonly byNs = new Map<string, Map<string, Rec>>();
  count = 0;
  /** rv of the last change in this resource. */
  lastRv = 0;
  sortedAll: Rec[] | undefined;
  readonly sortedNs = new Map<string, Rec[]>();
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
    if (namespace !== undefined) {
      let s = b.sortedNs.get(namespace);
      if (!s) {
        const m = b.byNs.get(namespace);
        if (!m) return [];
        s = [...m.values()].sort(keyCompare);
        b.sortedNs.set(namespace, s);
      }
      return s;
    }
    if (!b.sortedAll) {
      const out: Rec[] = [];
      for (const ns of [...b.byNs.keys()].sort()) out.push(...this.list(resource, ns));
      b.sortedAll = out;
    }
    return b.sortedAll;
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
    const rec: Rec = { obj, json: undefined };
    if (!prev) b.count++;
    m.set(name, rec);
    this.touch(b, ns, rv);
    this.record({ rv, type: prev ? 'MODIFIED' : 'ADDED', resource, rec, prev, line: undefined });
    return obj;
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
    if (m.size === 0) b.byNs.delete(ns);
    b.count--;
    this.touch(b, ns, rv);
    this.record({ rv, type: 'DELETED', resource, rec: { obj, json: undefined }, prev, line: undefined });
    return obj;
  }

  private touch(b: Bucket, ns: string, rv: number): void {
    b.lastRv = rv;
    b.sortedAll = undefined;
    b.sortedNs.delete(ns);
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
