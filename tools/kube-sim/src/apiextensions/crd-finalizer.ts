// The CRD finalizer, as apiextensions-apiserver runs it inside the API server (so it runs without kube-sim's
// controllers too): a deleted CRD carries the `customresourcecleanup.apiextensions.k8s.io` finalizer and the
// condition Terminating; this deletes each of its custom resources through the normal delete path (each gets
// a deletionTimestamp and stays while finalizers of its own remain, so an operator's cleanup runs), and once
// none is left marks the deletion complete and removes the finalizer, which lets the store remove the CRD.
import {
  ApiError,
  type ClusterAccess,
  type Json,
  type JsonObject,
  type KubeObject,
  type StoreEvent,
} from '../apimachinery/types.ts';
import { isObject } from '../apimachinery/json.ts';

export const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** While a CRD is terminating, its instances are looked at again at least this often (ms). */
const RECHECK_MS = 1000;

export interface CrdFinalizer {
  stop(): void;
}

/** The resource id (`plural.group`) of a CRD's custom resources. */
export function customResourceId(crd: KubeObject): string {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  return `${String(names.plural)}.${String(spec.group)}`;
}

/** Whether the CRD's Terminating condition is True (creates of its resources are refused meanwhile). */
export function isTerminating(crd: KubeObject): boolean {
  return conditionsOf(crd).some((c) => c.type === 'Terminating' && c.status === 'True');
}

function conditionsOf(crd: KubeObject): JsonObject[] {
  const status = isObject(crd.status) ? crd.status : {};
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

/** The CRD's status with the Terminating condition set (its lastTransitionTime kept unless status changes). */
export function withTerminatingCondition(
  crd: KubeObject,
  condition: { status: 'True' | 'False'; reason: string; message: string },
  now: string,
): JsonObject {
  const status = isObject(crd.status) ? crd.status : {};
  const conditions = conditionsOf(crd);
  const prev = conditions.find((c) => c.type === 'Terminating');
  const since =
    prev?.status === condition.status && typeof prev.lastTransitionTime === 'string'
      ? prev.lastTransitionTime
      : now;
  const next: JsonObject = { type: 'Terminating', ...condition, lastTransitionTime: since };
  const rest = conditions.filter((c) => c.type !== 'Terminating');
  return { ...status, conditions: [...rest, next] as Json[] };
}

const nowIso = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

function ignoreGone(err: unknown): void {
  if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
  throw err;
}

export function startCrdFinalizer(
  cluster: ClusterAccess,
  report: (err: unknown, context: string) => void,
): CrdFinalizer {
  const finalizer = new Finalizer(cluster, report);
  return { stop: () => finalizer.stop() };
}

class Finalizer {
  readonly #cluster: ClusterAccess;
  readonly #report: (err: unknown, context: string) => void;
  /** Terminating CRDs by the resource id of their custom resources → the CRD's name. */
  readonly #terminating = new Map<string, string>();
  readonly #due = new Set<string>();
  #scheduled: NodeJS.Immediate | undefined;
  #interval: NodeJS.Timeout | undefined;
  readonly #unsubscribe: () => void;

  constructor(cluster: ClusterAccess, report: (err: unknown, context: string) => void) {
    this.#cluster = cluster;
    this.#report = report;
    this.#unsubscribe = cluster.subscribe((e) => this.#onEvent(e));
    for (const crd of cluster.list(CRD_RESOURCE))
      this.#onEvent({ type: 'ADDED', resource: CRD_RESOURCE, object: crd });
  }

  stop(): void {
    this.#unsubscribe();
    if (this.#scheduled) clearImmediate(this.#scheduled);
    if (this.#interval) clearInterval(this.#interval);
    this.#scheduled = undefined;
    this.#interval = undefined;
  }

  #onEvent(e: StoreEvent): void {
    if (e.resource === CRD_RESOURCE) {
      const id = customResourceId(e.object);
      const m = e.object.metadata;
      if (
        e.type !== 'DELETED' &&
        m.deletionTimestamp &&
        (m.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)
      ) {
        this.#terminating.set(id, m.name ?? '');
        this.#mark(id);
      } else this.#terminating.delete(id);
      this.#updateInterval();
      return;
    }
    if (e.type === 'DELETED' && this.#terminating.has(e.resource)) this.#mark(e.resource);
  }

  #updateInterval(): void {
    if (this.#terminating.size > 0 && !this.#interval) {
      this.#interval = setInterval(() => {
        for (const id of this.#terminating.keys()) this.#mark(id);
      }, RECHECK_MS);
      this.#interval.unref();
    } else if (this.#terminating.size === 0 && this.#interval) {
      clearInterval(this.#interval);
      this.#interval = undefined;
    }
  }

  /** Runs the CRD's pass soon, outside the write that caused it; many events make one pass. */
  #mark(id: string): void {
    this.#due.add(id);
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      const due = [...this.#due];
      this.#due.clear();
      for (const d of due) {
        const name = this.#terminating.get(d);
        if (name === undefined) continue;
        try {
          this.#sync(name);
        } catch (err) {
          // A write that raced another is tried again at the next re-check.
          if (!(err instanceof ApiError && (err.code === 404 || err.code === 409)))
            this.#report(err, `CRD finalizer ${name}`);
        }
      }
    });
  }

  #sync(name: string): void {
    let crd = this.#cluster.get(CRD_RESOURCE, undefined, name);
    if (!crd?.metadata.deletionTimestamp || !(crd.metadata.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER))
      return;
    const reason = conditionsOf(crd).find((c) => c.type === 'Terminating')?.reason;
    if (reason !== 'InstanceDeletionInProgress') {
      const status = withTerminatingCondition(
        crd,
        {
          status: 'True',
          reason: 'InstanceDeletionInProgress',
          message: 'CustomResource deletion is in progress',
        },
        nowIso(),
      );
      crd = this.#cluster.updateStatus(CRD_RESOURCE, { ...crd, status });
    }
    const id = customResourceId(crd);
    const left = this.#deleteInstances(id);
    if (left > 0) return;
    const status = withTerminatingCondition(
      crd,
      { status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
      nowIso(),
    );
    crd = this.#cluster.updateStatus(CRD_RESOURCE, { ...crd, status });
    const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
    this.#cluster.update(CRD_RESOURCE, { ...crd, metadata: { ...crd.metadata, finalizers } });
  }

  /** Deletes every instance not yet being deleted; how many instances there still are. */
  #deleteInstances(id: string): number {
    for (const cr of this.#cluster.list(id)) {
      if (cr.metadata.deletionTimestamp) continue;
      try {
        this.#cluster.delete(id, cr.metadata.namespace, cr.metadata.name ?? '', {
          preconditions: { uid: cr.metadata.uid ?? '' },
        });
      } catch (err) {
        ignoreGone(err);
      }
    }
    return this.#cluster.list(id).length;
  }
}
