// Small helpers shared by the in-process controllers: a deferred work queue, a seeded RNG, conflict-safe
// read-modify-write, and resource-type lookups by owner kind.
import {
  ApiError,
  type ClusterAccess,
  type KubeObject,
  type ResourceType,
  type StoreEvent,
} from '../apimachinery/types.ts';

/** Reports an unexpected error from a controller (never a 404/409, which are handled). */
export type ErrorReporter = (err: unknown, context: string) => void;

export const defaultErrorReporter: ErrorReporter = (err, context) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`kube-sim controllers: ${context}: ${message}\n`);
};

export function isApiError(err: unknown, code: number): boolean {
  return err instanceof ApiError && err.code === code;
}

/**
 * A FIFO of jobs run outside the caller's stack (store listeners may be called inside a write), in batches
 * with a yield to the event loop in between so a burst of 100k events doesn't starve the HTTP server.
 */
export class WorkQueue {
  private jobs: (() => void)[] = [];
  private head = 0;
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;
  private readonly batch: number;
  private readonly report: ErrorReporter;
  private readonly name: string;

  constructor(name: string, report: ErrorReporter, batch = 500) {
    this.name = name;
    this.report = report;
    this.batch = batch;
  }

  push(job: () => void): void {
    if (this.stopped) return;
    this.jobs.push(job);
    this.schedule();
  }

  /** Number of jobs not yet run. */
  get pending(): number {
    return this.jobs.length - this.head;
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.jobs = [];
    this.head = 0;
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.drain();
    });
  }

  private drain(): void {
    let n = 0;
    while (this.head < this.jobs.length && n < this.batch && !this.stopped) {
      const job = this.jobs[this.head]!;
      this.head++;
      n++;
      try {
        job();
      } catch (err) {
        this.report(err, this.name);
      }
    }
    if (this.head >= this.jobs.length) {
      this.jobs = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.jobs.length) {
      this.jobs = this.jobs.slice(this.head);
      this.head = 0;
    }
    if (this.pending > 0) this.schedule();
  }
}

/** Subscribes to the store, running `handle` for each event from the queue. Returns the unsubscribe function. */
export function subscribeQueued(
  cluster: ClusterAccess,
  queue: WorkQueue,
  handle: (event: StoreEvent) => void,
): () => void {
  return cluster.subscribe((event) => queue.push(() => handle(event)));
}

/** mulberry32: a small, fast, seedable PRNG giving floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Read-modify-write with optimistic concurrency: reads the object, checks its uid, lets `mutate` change a
 * copy (return undefined for "nothing to do"), writes it with the resourceVersion just read; a 409 re-reads
 * and tries again, a 404 or a different uid gives undefined (the object is gone). `change` gets a copy whose
 * top level and metadata may be modified; anything deeper must be replaced, not mutated.
 */
export function mutate(
  cluster: ClusterAccess,
  verb: 'update' | 'updateStatus',
  resource: string,
  namespace: string | undefined,
  name: string,
  uid: string | undefined,
  change: (obj: KubeObject) => KubeObject | undefined,
  attempts = 8,
): KubeObject | undefined {
  for (let i = 0; i < attempts; i++) {
    const current = cluster.get(resource, namespace, name);
    if (!current || (uid !== undefined && current.metadata.uid !== uid)) return undefined;
    // A shallow copy: stored objects may be frozen and shared, so `change` replaces nested values
    // (status, spec, metadata fields) instead of mutating them.
    const next = change({ ...current, metadata: { ...current.metadata } });
    if (!next) return undefined;
    next.metadata.resourceVersion = current.metadata.resourceVersion;
    try {
      return verb === 'update' ? cluster.update(resource, next) : cluster.updateStatus(resource, next);
    } catch (err) {
      if (isApiError(err, 409)) continue;
      if (isApiError(err, 404)) return undefined;
      throw err;
    }
  }
  throw new ApiError(
    409,
    'Conflict',
    `${resource} ${namespace ?? ''}/${name}: still conflicting after ${attempts} attempts`,
  );
}

export function resourceId(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return t.group === '' ? t.plural : `${t.plural}.${t.group}`;
}

export interface ResourceRef {
  resource: string;
  namespaced: boolean;
}

/** Distinct served resources (one entry per id even when a CRD serves several versions). */
export function distinctResources(types: ResourceType[]): (ResourceRef & { verbs: string[] })[] {
  const seen = new Map<string, ResourceRef & { verbs: string[] }>();
  for (const t of types) {
    const id = resourceId(t);
    if (!seen.has(id)) seen.set(id, { resource: id, namespaced: t.namespaced, verbs: t.verbs });
  }
  return [...seen.values()];
}

/**
 * Maps an owner reference's apiVersion + kind to a resource id. Caches; a miss re-reads resourceTypes() at
 * most once until `invalidate()` (called when CRDs change), so unknown kinds stay cheap.
 */
export class KindMapper {
  private byKind = new Map<string, ResourceRef>();
  private fresh = false;
  private readonly cluster: ClusterAccess;

  constructor(cluster: ClusterAccess) {
    this.cluster = cluster;
  }

  invalidate(): void {
    this.fresh = false;
  }

  lookup(apiVersion: string, kind: string): ResourceRef | undefined {
    const key = `${groupOf(apiVersion)}/${kind}`;
    const hit = this.byKind.get(key);
    if (hit || this.fresh) return hit;
    this.refresh();
    return this.byKind.get(key);
  }

  private refresh(): void {
    this.byKind.clear();
    for (const t of this.cluster.resourceTypes()) {
      const key = `${t.group}/${t.kind}`;
      if (!this.byKind.has(key)) this.byKind.set(key, { resource: resourceId(t), namespaced: t.namespaced });
    }
    this.fresh = true;
  }
}

export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

let lastSecond = -1;
let lastIso = '';

/** The current time as Kubernetes writes it (RFC 3339, whole seconds). */
export function nowIso(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastIso = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastIso;
}
