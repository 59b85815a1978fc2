// The peer: the controller a TypeScript user would write without an external queue. One process;
// client-node informers for PodSets and their Pods; an in-memory work queue (one reconcile per key at a
// time, collapse, requeue-after, per-key backoff); the same planner as the operator (libs/reconcile);
// reconciles read the informer caches, never the API; expectations keep a lagging cache from causing
// a second round of creates or deletes. It is the yardstick for the operator, so it is written to be
// correct under the same conditions, not merely fast — and it makes the same API writes, the Kubernetes
// Events included (the worker's own recorder), so that the two are compared on equal work.
import { makeInformer, type Informer, type KubeConfig, type ObjectCache } from '@kubernetes/client-node';
import { isConflict, isNotFound, type Kube, type Pod as WirePod } from '@podset/kube';
import {
  CLEANUP_FINALIZER,
  NAME_LABEL,
  controllerRef,
  isControlledBy,
  parseKey,
  podSetKeyOf,
  reconcile,
  settle,
  slowStartBatches,
  type Plan,
  type Pod,
  type PodSet,
  type PodSetStatus,
} from '@podset/reconcile';
import { executeCreates, executeDeletes } from '../../apps/worker/src/executor.ts';
import { involvedOf, plural, type EventRecorder, type InvolvedPodSet } from '../../apps/worker/src/events.ts';
import { rvMax } from '@podset/redis';
import { Expectations } from './expectations.ts';
import { WorkQueue } from './workqueue.ts';

export interface PeerOptions {
  kubeConfig: KubeConfig;
  kube: Kube;
  /** Watch one namespace; undefined: all namespaces. */
  namespace?: string;
  /** Reconciles in flight at once (the operator's workers × concurrency). */
  concurrency: number;
  /** Largest slow-start batch of creates; deletes run this many at a time. */
  createBurst: number;
  /** Records the Events the worker records (SuccessfulCreate, FailedCreate, …, and the planner's). */
  events: EventRecorder;
  expectationsTtlMs?: number;
  onError?: (key: string, err: unknown) => void;
}

export interface Peer {
  /** Lists, starts watching, and starts the reconcile loops. */
  start(): Promise<void>;
  /** Stops the informers and waits for the reconciles in flight. */
  stop(): Promise<void>;
  stats(): { reconciles: number; failures: number };
}

type Cached<T> = Informer<T & { metadata?: { name?: string; namespace?: string } }> & ObjectCache<T>;

type Failure = { reason: string; message: string };

export function createPeer(o: PeerOptions): Peer {
  return new PeerController(o);
}

/**
 * The peer's informers, work queue and expectations, and its reconcile loops: each takes a key off the
 * queue and syncs it from the caches.
 */
class PeerController implements Peer {
  readonly #o: PeerOptions;
  readonly #queue = new WorkQueue();
  readonly #expectations: Expectations;
  readonly #podSets: Cached<PodSet>;
  readonly #pods: Cached<WirePod>;
  // The PodSet as our own last write returned it, until the cache has caught up with that write: planning
  // from the cache before then would re-decide a status already written and PUT it with a stale
  // resourceVersion (a certain 409).
  readonly #written = new Map<string, PodSet>();
  #reconciles = 0;
  #failures = 0;
  #stopped = false;
  readonly #loops: Promise<void>[] = [];

  constructor(o: PeerOptions) {
    const { kube, namespace } = o;
    this.#o = o;
    this.#expectations = new Expectations(
      o.expectationsTtlMs !== undefined ? { ttlMs: o.expectationsTtlMs } : {},
    );
    const nsPath = namespace !== undefined ? `/namespaces/${namespace}` : '';
    this.#podSets = makeInformer(
      o.kubeConfig,
      `/apis/podset.io/v1${nsPath}/podsets`,
      () => kube.podSets.listAll(namespace) as never,
    ) as unknown as Cached<PodSet>;
    this.#pods = makeInformer(
      o.kubeConfig,
      `/api/v1${nsPath}/pods`,
      () => kube.pods.listAll(namespace, { labelSelector: NAME_LABEL }) as never,
      NAME_LABEL,
    ) as unknown as Cached<WirePod>;
    this.#onPodSetEvents();
    this.#onPodEvents();
    this.#restartOnError();
  }

  async start(): Promise<void> {
    await Promise.all([this.#podSets.start(), this.#pods.start()]);
    for (let i = 0; i < this.#o.concurrency; i++) this.#loops.push(this.#loop());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#queue.shutDown();
    await Promise.all([this.#podSets.stop(), this.#pods.stop()]);
    await Promise.all(this.#loops);
  }

  stats(): { reconciles: number; failures: number } {
    return { reconciles: this.#reconciles, failures: this.#failures };
  }

  /** The key of the PodSet in the cache that controls `pod` (same UID), if any. */
  #ownerKey(pod: WirePod): string | undefined {
    const key = podSetKeyOf(pod as unknown as Pod);
    if (key === undefined) return undefined;
    const [ns, name] = splitKey(key);
    const ps = this.#podSets.get(name, ns);
    if (ps === undefined || controllerRef(pod as unknown as Pod)?.uid !== ps.metadata.uid) return undefined;
    return key;
  }

  #onPodSetEvents(): void {
    const queue = this.#queue;
    this.#podSets.on('add', (ps) => queue.add(keyOf(ps)));
    this.#podSets.on('update', (ps) => queue.add(keyOf(ps)));
    this.#podSets.on('delete', (ps) => {
      this.#expectations.delete(keyOf(ps));
      this.#written.delete(keyOf(ps));
      queue.add(keyOf(ps));
    });
  }

  #onPodEvents(): void {
    const queue = this.#queue;
    const expectations = this.#expectations;
    this.#pods.on('add', (pod) => {
      const key = this.#ownerKey(pod);
      if (key === undefined) return;
      // A pod that shows up already terminating counts as its delete too (a relist can do that).
      expectations.creationObserved(key);
      if (pod.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, pod.metadata.uid!);
      queue.add(key);
    });
    this.#pods.on('update', (pod) => {
      const key = this.#ownerKey(pod);
      if (key === undefined) return;
      if (pod.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, pod.metadata.uid!);
      queue.add(key);
    });
    this.#pods.on('delete', (pod) => {
      const key = podSetKeyOf(pod as unknown as Pod);
      if (key === undefined) return;
      expectations.deletionObserved(key, pod.metadata.uid!);
      queue.add(key);
    });
  }

  /** client-node's informer does not restart itself after a failed watch or list: do it, after a pause. */
  #restartOnError(): void {
    for (const inf of [this.#podSets, this.#pods] as unknown as Informer<never>[]) {
      inf.on('error', () => {
        if (this.#stopped) return;
        setTimeout(() => {
          if (!this.#stopped) inf.start().catch(() => undefined);
        }, 1000).unref();
      });
    }
  }

  async #loop(): Promise<void> {
    const queue = this.#queue;
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        this.#reconciles++;
        const requeueAfterMs = await this.#sync(key);
        queue.forget(key);
        if (requeueAfterMs !== undefined) queue.addAfter(key, requeueAfterMs);
      } catch (err) {
        this.#failures++;
        this.#o.onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  /** One reconcile from the caches; returns when to look again (undefined: on the next event). */
  async #sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    let podset = this.#podSets.get(name, ns);
    if (podset === undefined) {
      this.#expectations.delete(key);
      this.#written.delete(key);
      return undefined;
    }
    const mine = this.#written.get(key);
    if (mine !== undefined) {
      const cachedRv = podset.metadata.resourceVersion;
      if (
        mine.metadata.uid === podset.metadata.uid &&
        rvMax(cachedRv, mine.metadata.resourceVersion) !== cachedRv
      ) {
        podset = mine;
      } else this.#written.delete(key);
    }
    // Creates or deletes still in flight in the cache: wait for their events (which requeue the key),
    // or for the expectations to expire.
    const pending = this.#expectations.pendingFor(key);
    if (pending > 0) return pending;
    const ps = podset as unknown as PodSet;
    const owned = this.#pods
      .list(ns)
      .filter((p) => isControlledBy(p as unknown as Pod, ps)) as unknown as Pod[];
    const plan = reconcile(ps, owned, new Date());
    if (plan.finalizer === 'add') podset = await this.#setFinalizer(key, podset, true);
    const failure = await this.#execute(key, involvedOf(podset), plan);
    for (const e of plan.events) await this.#o.events.record(involvedOf(podset), e.type, e.reason, e.message);
    if (failure !== undefined) {
      const settled = settle(plan, ps.status, { failure }, new Date());
      if (settled.write) await this.#writeStatus(key, podset, settled.status);
      throw new Error(`${failure.reason}: ${failure.message}`);
    }
    if (plan.mode === 'cleanup') {
      if (plan.finalizer === 'remove') await this.#setFinalizer(key, podset, false);
      return plan.requeue?.afterMs;
    }
    const settled = settle(plan, ps.status, {}, new Date());
    if (settled.write) await this.#writeStatus(key, podset, settled.status);
    return plan.requeue?.afterMs;
  }

  async #execute(key: string, involved: InvolvedPodSet, plan: Plan): Promise<Failure | undefined> {
    let failure: Failure | undefined;
    if (plan.creates.length > 0) failure = await this.#creates(key, involved, plan);
    if (plan.deletes.length > 0) {
      const deleteFailure = await this.#deletes(key, involved, plan);
      failure ??= deleteFailure;
    }
    return failure;
  }

  async #creates(key: string, involved: InvolvedPodSet, plan: Plan): Promise<Failure | undefined> {
    this.#expectations.expectCreations(key, plan.creates.length);
    const outcome = await executeCreates(
      this.#o.kube,
      plan.creates,
      slowStartBatches(plan.creates.length, this.#o.createBurst),
    );
    // Creates that failed or were not attempted will never show up in the cache.
    this.#expectations.creationObserved(key, plan.creates.length - outcome.created.length);
    if (outcome.created.length > 0) {
      const names = outcome.created.map((p) => p.metadata.name).join(', ');
      await this.#o.events.record(
        involved,
        'Normal',
        'SuccessfulCreate',
        `Created pod${plural(outcome.created.length)}: ${names}`,
      );
    }
    if (outcome.failure === undefined) return undefined;
    const failure = {
      reason: 'FailedCreate',
      message: `${outcome.failure.failed + outcome.skipped} of ${plan.creates.length} pod creates failed`,
    };
    await this.#o.events.record(involved, 'Warning', 'FailedCreate', failure.message);
    return failure;
  }

  async #deletes(key: string, involved: InvolvedPodSet, plan: Plan): Promise<Failure | undefined> {
    this.#expectations.expectDeletions(
      key,
      plan.deletes.map((d) => d.uid),
    );
    const outcome = await executeDeletes(this.#o.kube, plan.deletes, this.#o.createBurst);
    // Already gone, or not deleted: no event will come for these.
    for (const d of outcome.alreadyGone) this.#expectations.deletionObserved(key, d.uid);
    for (const f of outcome.failed) this.#expectations.deletionObserved(key, f.deletion.uid);
    if (outcome.deleted.length > 0) {
      const names = outcome.deleted.map((d) => d.name).join(', ');
      await this.#o.events.record(
        involved,
        'Normal',
        'SuccessfulDelete',
        `Deleted pod${plural(outcome.deleted.length)}: ${names}`,
      );
    }
    for (const f of outcome.failed.slice(0, 3))
      await this.#o.events.record(
        involved,
        'Warning',
        'FailedDelete',
        `Error deleting pod ${f.deletion.name}`,
      );
    if (outcome.failed.length === 0) return undefined;
    return {
      reason: 'FailedDelete',
      message: `${outcome.failed.length} of ${plan.deletes.length} pod deletes failed`,
    };
  }

  /** PUT status with the cached resourceVersion: a 409 means the cache is behind; the retry re-reads it. */
  async #writeStatus(key: string, podset: PodSet, status: PodSetStatus): Promise<void> {
    try {
      const out = await this.#o.kube.podSets.replaceStatus(podset.metadata.namespace, podset.metadata.name!, {
        apiVersion: podset.apiVersion ?? 'podset.io/v1',
        kind: podset.kind ?? 'PodSet',
        metadata: { ...podset.metadata },
        ...(podset.spec !== undefined ? { spec: podset.spec } : {}),
        status: status as NonNullable<PodSet['status']>,
      });
      this.#written.set(key, out);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  async #setFinalizer(key: string, podset: PodSet, present: boolean): Promise<PodSet> {
    const others = (podset.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    try {
      const out = await this.#o.kube.podSets.patch(podset.metadata.namespace, podset.metadata.name!, {
        metadata: {
          finalizers: present ? [...others, CLEANUP_FINALIZER] : others,
          resourceVersion: podset.metadata.resourceVersion,
        },
      });
      this.#written.set(key, out);
      return out;
    } catch (err) {
      if (!present && isNotFound(err)) return podset;
      if (isConflict(err)) throw new Error('PodSet changed since the cache saw it', { cause: err });
      throw err;
    }
  }
}

const keyOf = (obj: { metadata?: { namespace?: string; name?: string } }): string =>
  `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

function splitKey(key: string): [string, string] {
  const ref = parseKey(key);
  if (ref === undefined) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  return [ref.namespace, ref.name];
}
