// ResourceQuota controller, as kube-controller-manager's: keeps each quota's status.hard (its spec.hard)
// and status.used (the namespace's usage of every resource it limits that kube-sim can measure) up to
// date, on quota changes and as the objects it counts come, go or change phase. A terminating pod stops
// counting when its grace period has passed a second time: a timer re-syncs its namespace then. The sums
// are the ones quota admission checks against (../admission/quota-evaluators.ts), so the two agree.
import { formatQuantity, type Quantity } from '../apimachinery/quantity.ts';
import {
  IGNORED_RESOURCES,
  matchingResources,
  type NamespaceReader,
  namespaceUsage,
  podChargeEnds,
  type QuotaSpec,
  quotaSpecOf,
  type ResourceList,
} from '../admission/quota-evaluators.ts';
import type { ClusterAccess, JsonObject, KubeObject, StoreEvent } from '../apimachinery/types.ts';
import { WorkQueue, distinctResources, mutate, subscribeQueued, type ErrorReporter } from './util.ts';

const RQ = 'resourcequotas';
const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';
/** Measured by their own evaluators, whatever the discovery documents say. */
const CORE_EVALUATED = ['pods', 'services', 'persistentvolumeclaims'];
const LEGACY_COUNTED = ['configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas'];
/** A namespace sync taking this long (ms) or more delays the next one by SYNC_SPACING times its cost. */
const SLOW_SYNC_MS = 2;
const SYNC_SPACING = 4;

export interface ResourceQuotaController {
  stop(): void;
}

const byName = (list: ResourceList): JsonObject => {
  const out: JsonObject = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k) as Quantity);
  return out;
};

export function startResourceQuotaController(
  cluster: ClusterAccess,
  report: ErrorReporter,
): ResourceQuotaController {
  const controller = new QuotaController(cluster, report);
  return { stop: () => controller.stop() };
}

/** Recounts a namespace's quotas through one queue, on the events that may change what they count. */
class QuotaController {
  readonly #cluster: ClusterAccess;
  readonly #queue: WorkQueue;
  readonly #queued = new Set<string>();
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  #quotable: Set<string> | undefined;
  readonly #notBefore = new Map<string, number>();
  readonly #reader: NamespaceReader;
  readonly #unsubscribe: () => void;

  constructor(cluster: ClusterAccess, report: ErrorReporter) {
    this.#cluster = cluster;
    this.#queue = new WorkQueue('resourcequota controller', report);
    this.#reader = {
      list: (resource, namespace) => cluster.list(resource, namespace),
      count: (resource, namespace) => cluster.list(resource, namespace).length,
    };
    this.#unsubscribe = subscribeQueued(cluster, this.#queue, (event) => this.#handle(event));
    for (const rq of cluster.list(RQ)) this.#enqueue(rq.metadata.namespace ?? '');
  }

  stop(): void {
    this.#unsubscribe();
    this.#queue.stop();
    for (const t of this.#timers.values()) clearTimeout(t.timer);
    this.#timers.clear();
  }

  /** Namespaced resources with create, list, watch and delete: what the quota monitor would watch. */
  #quotableResources(): Set<string> {
    this.#quotable ??= new Set(
      distinctResources(this.#cluster.resourceTypes().filter((t) => t.namespaced && t.storage !== false))
        .filter((r) => ['create', 'list', 'watch', 'delete'].every((v) => r.verbs.includes(v)))
        .map((r) => r.resource)
        .filter((r) => !IGNORED_RESOURCES.has(r)),
    );
    return this.#quotable;
  }

  /** The resources whose evaluators measure some of the quota's names. */
  #resourcesFor(quota: QuotaSpec): string[] {
    const out = new Set<string>();
    const known = this.#quotableResources();
    for (const name of quota.hard.keys()) {
      if (name.startsWith('count/')) {
        const r = name.slice('count/'.length);
        if (known.has(r) || CORE_EVALUATED.includes(r)) out.add(r);
      } else if (LEGACY_COUNTED.includes(name)) out.add(name);
    }
    for (const r of CORE_EVALUATED) if (matchingResources(r, quota.hard.keys()).length) out.add(r);
    return [...out];
  }

  #enqueue(namespace: string): void {
    if (this.#queued.has(namespace)) return;
    this.#queued.add(namespace);
    const run = () =>
      this.#queue.push(() => {
        this.#queued.delete(namespace);
        const start = performance.now();
        this.#sync(namespace);
        const took = performance.now() - start;
        if (took >= SLOW_SYNC_MS) this.#notBefore.set(namespace, performance.now() + took * SYNC_SPACING);
        else this.#notBefore.delete(namespace);
      });
    // A namespace whose recount is slow (thousands of pods) is recounted at most every few times its cost,
    // so a burst of creates there is not counted twice over (admission already sums it on every create).
    const wait = (this.#notBefore.get(namespace) ?? 0) - performance.now();
    if (wait > 0) setTimeout(run, wait).unref();
    else run();
  }

  /** Re-syncs the namespace when its next terminating pod stops counting. */
  #wakeAt(namespace: string, at: number): void {
    const current = this.#timers.get(namespace);
    if (current && current.at <= at) return;
    if (current) clearTimeout(current.timer);
    const timer = setTimeout(
      () => {
        this.#timers.delete(namespace);
        this.#enqueue(namespace);
      },
      Math.max(0, at - Date.now()) + 1,
    );
    timer.unref();
    this.#timers.set(namespace, { at, timer });
  }

  #sync(namespace: string): void {
    const now = Date.now();
    let tracksPods = false;
    for (const rq of this.#cluster.list(RQ, namespace)) {
      if (rq.metadata.deletionTimestamp !== undefined) continue;
      if (this.#syncQuota(rq, namespace, now)) tracksPods = true;
    }
    if (tracksPods) this.#wakeForPods(namespace, now);
  }

  /** Writes one quota's status.hard and status.used; whether it counts pods. */
  #syncQuota(rq: KubeObject, namespace: string, now: number): boolean {
    const quota = quotaSpecOf(rq);
    const used: ResourceList = new Map();
    let tracksPods = false;
    for (const r of this.#resourcesFor(quota)) {
      if (r === 'pods') tracksPods = true;
      const names = matchingResources(r, quota.hard.keys());
      for (const [k, v] of namespaceUsage(this.#reader, r, namespace, quota, names, now)) used.set(k, v);
    }
    const status: JsonObject = { hard: byName(quota.hard), used: byName(used) };
    if (JSON.stringify(rq.status ?? {}) === JSON.stringify(status)) return tracksPods;
    mutate(this.#cluster, 'updateStatus', RQ, namespace, quota.name, rq.metadata.uid, (o) => ({
      ...o,
      status,
    }));
    return tracksPods;
  }

  /** The next time a terminating pod of the namespace stops counting, a re-sync. */
  #wakeForPods(namespace: string, now: number): void {
    let next: number | undefined;
    for (const pod of this.#cluster.list('pods', namespace)) {
      const end = podChargeEnds(pod);
      if (end !== undefined && end >= now && (next === undefined || end < next)) next = end;
    }
    if (next !== undefined) this.#wakeAt(namespace, next);
  }

  #concerns(resource: string, namespace: string): boolean {
    for (const rq of this.#cluster.list(RQ, namespace)) {
      if (this.#resourcesFor(quotaSpecOf(rq)).includes(resource)) return true;
    }
    return false;
  }

  #handle(event: StoreEvent): void {
    const o: KubeObject = event.object;
    if (event.resource === CRDS) {
      // A kind served or withdrawn: its count/… names gain or lose their usage.
      this.#quotable = undefined;
      for (const rq of this.#cluster.list(RQ)) this.#enqueue(rq.metadata.namespace ?? '');
      return;
    }
    const namespace = o.metadata.namespace;
    if (!namespace) return;
    if (event.resource === RQ || this.#concerns(event.resource, namespace)) this.#enqueue(namespace);
  }
}
