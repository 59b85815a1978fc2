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

export function createPeer(o: PeerOptions): Peer {
  const { kube, namespace } = o;
  const queue = new WorkQueue();
  const expectations = new Expectations(
    o.expectationsTtlMs !== undefined ? { ttlMs: o.expectationsTtlMs } : {},
  );
  const nsPath = namespace !== undefined ? `/namespaces/${namespace}` : '';
  const podSets = makeInformer(
    o.kubeConfig,
    `/apis/podset.io/v1${nsPath}/podsets`,
    () => kube.podSets.listAll(namespace) as never,
  ) as unknown as Cached<PodSet>;
  const pods = makeInformer(
    o.kubeConfig,
    `/api/v1${nsPath}/pods`,
    () => kube.pods.listAll(namespace, { labelSelector: NAME_LABEL }) as never,
    NAME_LABEL,
  ) as unknown as Cached<WirePod>;
  // The PodSet as our own last write returned it, until the cache has caught up with that write: planning
  // from the cache before then would re-decide a status already written and PUT it with a stale
  // resourceVersion (a certain 409).
  const written = new Map<string, PodSet>();
  let reconciles = 0;
  let failures = 0;
  let stopped = false;
  const loops: Promise<void>[] = [];

  const keyOf = (obj: { metadata?: { namespace?: string; name?: string } }): string =>
    `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

  /** The key of the PodSet in the cache that controls `pod` (same UID), if any. */
  function ownerKey(pod: WirePod): string | undefined {
    const key = podSetKeyOf(pod as unknown as Pod);
    if (key === undefined) return undefined;
    const [ns, name] = splitKey(key);
    const ps = podSets.get(name, ns);
    if (ps === undefined || controllerRef(pod as unknown as Pod)?.uid !== ps.metadata.uid) return undefined;
    return key;
  }

  podSets.on('add', (ps) => queue.add(keyOf(ps)));
  podSets.on('update', (ps) => queue.add(keyOf(ps)));
  podSets.on('delete', (ps) => {
    expectations.delete(keyOf(ps));
    written.delete(keyOf(ps));
    queue.add(keyOf(ps));
  });
  pods.on('add', (pod) => {
    const key = ownerKey(pod);
    if (key === undefined) return;
    // A pod that shows up already terminating counts as its delete too (a relist can do that).
    expectations.creationObserved(key);
    if (pod.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, pod.metadata.uid!);
    queue.add(key);
  });
  pods.on('update', (pod) => {
    const key = ownerKey(pod);
    if (key === undefined) return;
    if (pod.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, pod.metadata.uid!);
    queue.add(key);
  });
  pods.on('delete', (pod) => {
    const key = podSetKeyOf(pod as unknown as Pod);
    if (key === undefined) return;
    expectations.deletionObserved(key, pod.metadata.uid!);
    queue.add(key);
  });
  // client-node's informer does not restart itself after a failed watch or list: do it, after a pause.
  for (const inf of [podSets, pods] as unknown as Informer<never>[]) {
    inf.on('error', () => {
      if (stopped) return;
      setTimeout(() => {
        if (!stopped) inf.start().catch(() => undefined);
      }, 1000).unref();
    });
  }

  async function loop(): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        reconciles++;
        const requeueAfterMs = await sync(key);
        queue.forget(key);
        if (requeueAfterMs !== undefined) queue.addAfter(key, requeueAfterMs);
      } catch (err) {
        failures++;
        o.onError?.(key, err);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  }

  /** One reconcile from the caches; returns when to look again (undefined: on the next event). */
  async function sync(key: string): Promise<number | undefined> {
    const [ns, name] = splitKey(key);
    let podset = podSets.get(name, ns);
    if (podset === undefined) {
      expectations.delete(key);
      written.delete(key);
      return undefined;
    }
    const mine = written.get(key);
    if (mine !== undefined) {
      const cachedRv = podset.metadata.resourceVersion;
      if (
        mine.metadata.uid === podset.metadata.uid &&
        rvMax(cachedRv, mine.metadata.resourceVersion) !== cachedRv
      ) {
        podset = mine;
      } else written.delete(key);
    }
    // Creates or deletes still in flight in the cache: wait for their events (which requeue the key),
    // or for the expectations to expire.
    const pending = expectations.pendingFor(key);
    if (pending > 0) return pending;
    const ps = podset as unknown as PodSet;
    const owned = pods.list(ns).filter((p) => isControlledBy(p as unknown as Pod, ps)) as unknown as Pod[];
    const plan = reconcile(ps, owned, new Date());
    if (plan.finalizer === 'add') podset = await setFinalizer(key, podset, true);
    const failure = await execute(key, involvedOf(podset), plan);
    for (const e of plan.events) await o.events.record(involvedOf(podset), e.type, e.reason, e.message);
    if (failure !== undefined) {
      const settled = settle(plan, ps.status, { failure }, new Date());
      if (settled.write) await writeStatus(key, podset, settled.status);
      throw new Error(`${failure.reason}: ${failure.message}`);
    }
    if (plan.mode === 'cleanup') {
      if (plan.finalizer === 'remove') await setFinalizer(key, podset, false);
      return plan.requeue?.afterMs;
    }
    const settled = settle(plan, ps.status, {}, new Date());
    if (settled.write) await writeStatus(key, podset, settled.status);
    return plan.requeue?.afterMs;
  }

  async function execute(
    key: string,
    involved: InvolvedPodSet,
    plan: Plan,
  ): Promise<{ reason: string; message: string } | undefined> {
    let failure: { reason: string; message: string } | undefined;
    if (plan.creates.length > 0) {
      expectations.expectCreations(key, plan.creates.length);
      const outcome = await executeCreates(
        kube,
        plan.creates,
        slowStartBatches(plan.creates.length, o.createBurst),
      );
      // Creates that failed or were not attempted will never show up in the cache.
      expectations.creationObserved(key, plan.creates.length - outcome.created.length);
      if (outcome.created.length > 0) {
        const names = outcome.created.map((p) => p.metadata.name).join(', ');
        await o.events.record(
          involved,
          'Normal',
          'SuccessfulCreate',
          `Created pod${plural(outcome.created.length)}: ${names}`,
        );
      }
      if (outcome.failure !== undefined) {
        failure = {
          reason: 'FailedCreate',
          message: `${outcome.failure.failed + outcome.skipped} of ${plan.creates.length} pod creates failed`,
        };
        await o.events.record(involved, 'Warning', 'FailedCreate', failure.message);
      }
    }
    if (plan.deletes.length > 0) {
      expectations.expectDeletions(
        key,
        plan.deletes.map((d) => d.uid),
      );
      const outcome = await executeDeletes(kube, plan.deletes, o.createBurst);
      // Already gone, or not deleted: no event will come for these.
      for (const d of outcome.alreadyGone) expectations.deletionObserved(key, d.uid);
      for (const f of outcome.failed) expectations.deletionObserved(key, f.deletion.uid);
      if (outcome.deleted.length > 0) {
        const names = outcome.deleted.map((d) => d.name).join(', ');
        await o.events.record(
          involved,
          'Normal',
          'SuccessfulDelete',
          `Deleted pod${plural(outcome.deleted.length)}: ${names}`,
        );
      }
      for (const f of outcome.failed.slice(0, 3))
        await o.events.record(involved, 'Warning', 'FailedDelete', `Error deleting pod ${f.deletion.name}`);
      if (outcome.failed.length > 0) {
        failure ??= {
          reason: 'FailedDelete',
          message: `${outcome.failed.length} of ${plan.deletes.length} pod deletes failed`,
        };
      }
    }
    return failure;
  }

  /** PUT status with the cached resourceVersion: a 409 means the cache is behind; the retry re-reads it. */
  async function writeStatus(key: string, podset: PodSet, status: PodSetStatus): Promise<void> {
    try {
      const out = await kube.podSets.replaceStatus(podset.metadata.namespace, podset.metadata.name!, {
        apiVersion: podset.apiVersion ?? 'podset.io/v1',
        kind: podset.kind ?? 'PodSet',
        metadata: { ...podset.metadata },
        ...(podset.spec !== undefined ? { spec: podset.spec } : {}),
        status: status as NonNullable<PodSet['status']>,
      });
      written.set(key, out);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  async function setFinalizer(key: string, podset: PodSet, present: boolean): Promise<PodSet> {
    const others = (podset.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
    try {
      const out = await kube.podSets.patch(podset.metadata.namespace, podset.metadata.name!, {
        metadata: {
          finalizers: present ? [...others, CLEANUP_FINALIZER] : others,
          resourceVersion: podset.metadata.resourceVersion,
        },
      });
      written.set(key, out);
      return out;
    } catch (err) {
      if (!present && isNotFound(err)) return podset;
      if (isConflict(err)) throw new Error('PodSet changed since the cache saw it', { cause: err });
      throw err;
    }
  }

  return {
    async start() {
      await Promise.all([podSets.start(), pods.start()]);
      for (let i = 0; i < o.concurrency; i++) loops.push(loop());
    },
    async stop() {
      stopped = true;
      queue.shutDown();
      await Promise.all([podSets.stop(), pods.stop()]);
      await Promise.all(loops);
    },
    stats: () => ({ reconciles, failures }),
  };
}

function splitKey(key: string): [string, string] {
  const ref = parseKey(key);
  if (ref === undefined) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  return [ref.namespace, ref.name];
}
