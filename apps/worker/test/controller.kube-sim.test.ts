// The sync handler against kube-sim over HTTP (real REST, pod lifecycle, faults, audit log) and, for the
// full path, the queue on a real Redis.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { createKube, loadKubeConfig, type Kube, type Pod } from '@podset/kube';
import { DEFAULT_PREFIX, ReconcileQueue } from '@podset/queue';
import * as planner from '@podset/reconcile';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { startRedis, type RedisServer, waitFor } from '@podset/testkit';
import { CLEANUP_FINALIZER, ReconcileError, type Controller } from '../src/controller.ts';
import { startWorker } from '../src/worker.ts';
import { createNamespace, createPodSet as createPodSetIn, log, testController } from './kube-sim-setup.ts';

let controller: Controller;
let nsSeq = 0;

const { sim, kube, ready } = useSimCluster();
before(async () => {
  await ready;
  controller = newController(kube);
});

function newController(k: Kube, createBurst = 8): Controller {
  return testController(k, { createBurst, notReadyRequeueMs: 200 });
}

/** A fresh namespace per test, so tests don't see each other's pods or audit entries. */
const namespace = () => createNamespace(kube, `t${++nsSeq}-${process.pid}`);

const createPodSet = (ns: string, name: string, replicas: number) => createPodSetIn(kube, ns, name, replicas);

async function podsOf(ns: string, name: string): Promise<Pod[]> {
  return (await kube.pods.list(ns, { labelSelector: `podset.io/name=${name}` })).items;
}

/** Reconcile until settled (no requeue) or the condition holds, as the queue would. */
async function converge(key: string, done: () => Promise<boolean>, c = controller): Promise<void> {
  await waitFor(`${key} converged`, async () => {
    await c.syncHandler(key);
    return done();
  });
}

test('a PodSet of 3 converges: pods created, Ready via the lifecycle, status complete', async () => {
  const ns = await namespace();
  const ps = await createPodSet(ns, 'web', 3);
  await converge(`${ns}/web`, async () => {
    const cur = await kube.podSets.get(ns, 'web');
    return cur.status?.readyReplicas === 3;
  });
  const cur = await kube.podSets.get(ns, 'web');
  const pods = await podsOf(ns, 'web');
  assert.equal(pods.length, 3);
  for (const p of pods) {
    const ref = p.metadata.ownerReferences?.[0];
    assert.equal(ref?.uid, ps.metadata.uid);
    assert.equal(ref?.controller, true);
    assert.equal(ref?.blockOwnerDeletion, true);
    assert.equal(p.metadata.labels?.['app.kubernetes.io/managed-by'], 'podset-operator');
  }
  assert.deepEqual(cur.metadata.finalizers, [CLEANUP_FINALIZER]);
  assert.equal(cur.status?.replicas, 3);
  assert.deepEqual(cur.status?.podNames, pods.map((p) => p.metadata.name).sort());
  assert.equal(cur.status?.observedGeneration, cur.metadata.generation);
  assert.equal(cur.status?.selector, 'podset.io/name=web');
  const events = (await kube.events.list(ns)).items;
  assert.ok(events.some((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.uid === ps.metadata.uid));
  // Settled: one more pass writes nothing and asks for no requeue.
  const since = new Date().toISOString();
  assert.deepEqual(await controller.syncHandler(`${ns}/web`), {});
  const writes = sim.audit.query({ namespace: ns, since }).filter((e) => !['get', 'list'].includes(e.verb));
  assert.deepEqual(writes, []);
});

test('scale down deletes the worst first, with UID preconditions', async () => {
  const ns = await namespace();
  await createPodSet(ns, 'web', 4);
  await converge(`${ns}/web`, async () => (await kube.podSets.get(ns, 'web')).status?.readyReplicas === 4);
  // The youngest of equally ready pods goes first: remember the creation order.
  const before = await podsOf(ns, 'web');
  await kube.podSets.patch(ns, 'web', { spec: { replicas: 1 } });
  await converge(`${ns}/web`, async () => {
    const cur = await kube.podSets.get(ns, 'web');
    return (
      cur.status?.replicas === 1 &&
      (await podsOf(ns, 'web')).filter((p) => !p.metadata.deletionTimestamp).length === 1
    );
  });
  const left = (await podsOf(ns, 'web')).filter((p) => !p.metadata.deletionTimestamp);
  const oldest = [...before].sort((a, b) =>
    String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')),
  )[0]!;
  assert.equal(
    left[0]?.metadata.creationTimestamp,
    oldest.metadata.creationTimestamp,
    'an oldest pod is kept',
  );
  const deletes = sim.audit.query({ namespace: ns, verb: 'delete', resource: 'pods' });
  assert.equal(deletes.length, 3);
  const events = (await kube.events.list(ns)).items;
  assert.ok(events.some((e) => e.reason === 'SuccessfulDelete'));
});

test('409 on status → re-read and re-plan (no duplicate pods, no overwrite)', async () => {
  const ns = await namespace();
  await createPodSet(ns, 'web', 2);
  const since = new Date().toISOString();
  // One conflict on the status subresource, as if another writer won the race: the pass that created the
  // pods re-reads, sees them, creates none again and writes the status it plans then.
  sim.faults.addError({ verb: 'update', resource: 'podsets', code: 409, reason: 'Conflict', times: 1 });
  await controller.syncHandler(`${ns}/web`);
  const puts = sim.audit.query({ namespace: ns, verb: 'update', resource: 'podsets' });
  assert.equal(puts.length, 2, 'one 409, then one write after re-reading');
  assert.equal(puts[0]?.code, 409);
  const gets = sim.audit.query({ namespace: ns, verb: 'get', resource: 'podsets', since });
  assert.equal(gets.length, 2, 'the PodSet was read again');
  assert.equal((await podsOf(ns, 'web')).length, 2, 'the re-plan saw the pods already created');
});

test('create errors: slow start limits the calls; ReplicaFailure and FailedCreate', async () => {
  const ns = await namespace();
  await createPodSet(ns, 'web', 40);
  sim.faults.addError({
    verb: 'create',
    resource: 'pods',
    code: 403,
    reason: 'Forbidden',
    message:
      'pods "web-" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=0, limited: pods=0',
  });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      await assert.rejects(controller.syncHandler(`${ns}/web`), (err: unknown) => {
        assert.ok(err instanceof ReconcileError);
        assert.equal(err.reason, 'FailedCreate');
        return true;
      });
    }
  } finally {
    sim.faults.reset();
  }
  const creates = sim.audit.query({ namespace: ns, verb: 'create', resource: 'pods' });
  assert.equal(creates.length, 3, '40 missing pods, 3 attempts: one call each');
  assert.ok(creates.every((e) => e.code === 403));
  const cur = await kube.podSets.get(ns, 'web');
  const cond = cur.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(cond?.status, 'True');
  assert.equal(cond?.reason, 'FailedCreate');
  assert.equal(cond?.message, '1 of 40 pod creates rejected: 403 Forbidden');
  const events = (await kube.events.list(ns)).items.filter((e) => e.reason === 'FailedCreate');
  assert.equal(events.length, 1, 'repeats aggregated into one Event');
  assert.equal(events[0]?.type, 'Warning');
  assert.match(events[0]?.message ?? '', /exceeded quota/, "the API's message is in the Event");
  assert.equal(events[0]?.count, 3);

  // The fault gone, the next passes create everything and clear ReplicaFailure.
  await converge(`${ns}/web`, async () => (await podsOf(ns, 'web')).length === 40);
  await controller.syncHandler(`${ns}/web`);
  const healed = await kube.podSets.get(ns, 'web');
  assert.equal(
    healed.status?.conditions?.some((c) => c.type === 'ReplicaFailure'),
    false,
  );
  // 40 pods in batches of 1, 2, 4, 8, 8, 8, 8, 1 (burst 8): still one create call per pod.
  assert.equal(sim.audit.query({ namespace: ns, verb: 'create', resource: 'pods', code: 201 }).length, 40);
});

test('a deleted PodSet: its pods go and the finalizer is removed', async () => {
  const ns = await namespace();
  await createPodSet(ns, 'web', 3);
  await converge(`${ns}/web`, async () => (await podsOf(ns, 'web')).length === 3);
  await kube.podSets.delete(ns, 'web');
  const held = await kube.podSets.get(ns, 'web');
  assert.ok(held.metadata.deletionTimestamp, 'held by our finalizer');
  await controller.syncHandler(`${ns}/web`);
  await waitFor('PodSet gone', async () => {
    try {
      await kube.podSets.get(ns, 'web');
      return false;
    } catch {
      return true;
    }
  });
  const deletes = sim.audit.query({ namespace: ns, verb: 'delete', resource: 'pods' });
  assert.equal(deletes.length, 3);
  await waitFor('pods gone', async () => (await podsOf(ns, 'web')).length === 0);
});

test('the rate limiter paces the controller (QPS 20, burst 1): waits are reported', async () => {
  const ns = await namespace();
  await createPodSet(ns, 'web', 5);
  const slow = createKube(loadKubeConfig({ kubeconfig: sim.kubeconfigPath }), { qps: 20, burst: 1 });
  await newController(slow).syncHandler(`${ns}/web`);
  const stats = slow.client.limiter.stats();
  assert.equal(stats.acquired, slow.client.requestTotal());
  assert.ok(stats.waited > 0, 'with burst 1 every request after the first waits');
  assert.equal(slow.client.requestTotal('create') >= 5, true);
});

test('end to end on Redis: a request through the queue converges the PodSet', async () => {
  const redis: RedisServer = await startRedis();
  const ns = await namespace();
  await createPodSet(ns, 'web', 3);
  const worker = await startWorker(
    {
      kubeConfig: loadKubeConfig({ kubeconfig: sim.kubeconfigPath }),
      redisUrl: redis.url,
      queueName: 'kube-sim-e2e',
      queuePrefix: DEFAULT_PREFIX,
      concurrency: 4,
      kubeQps: 0,
      kubeBurst: 100,
      createBurst: 8,
      requeuePendingMs: 200,
      maxAttempts: 3,
      finishedPodsToKeep: 3,
      shutdownTimeoutMs: 5000,
      httpPort: 0,
      instance: 'e2e',
    },
    { planner, log },
  );
  const q = new ReconcileQueue({ connection: redis.url, queueName: 'kube-sim-e2e' });
  try {
    await q.request(`${ns}/web`, { source: 'live' });
    // No watcher here: the worker's own requeue-after drives it to Ready.
    await waitFor(
      'ready through the queue',
      async () => (await kube.podSets.get(ns, 'web')).status?.readyReplicas === 3,
    );
    assert.match(
      await worker.metrics.metrics(),
      /podset_kube_requests_total\{verb="create",resource="pods",code="201"\} 3/,
    );
  } finally {
    await worker.close();
    await q.close();
    await redis.close();
  }
});

test('end to end on Redis: a persistent create error ends in a failed job, ReplicaFailure and a Warning', async () => {
  const redis: RedisServer = await startRedis();
  const ns = await namespace();
  await createPodSet(ns, 'web', 10);
  sim.faults.addError({
    verb: 'create',
    resource: 'pods',
    code: 422,
    reason: 'Invalid',
    message: 'denied by admission webhook "policy"',
  });
  const worker = await startWorker(
    {
      kubeConfig: loadKubeConfig({ kubeconfig: sim.kubeconfigPath }),
      redisUrl: redis.url,
      queueName: 'kube-sim-fail',
      queuePrefix: DEFAULT_PREFIX,
      concurrency: 2,
      kubeQps: 0,
      kubeBurst: 100,
      createBurst: 8,
      requeuePendingMs: 200,
      maxAttempts: 3,
      finishedPodsToKeep: 3,
      shutdownTimeoutMs: 5000,
      httpPort: 0,
      instance: 'e2e-fail',
      backoff: { baseMs: 20, maxMs: 100 },
    },
    { planner, log },
  );
  const q = new ReconcileQueue({ connection: redis.url, queueName: 'kube-sim-fail', attempts: 3 });
  try {
    const { jobId } = await q.request(`${ns}/web`, { source: 'live' });
    await waitFor('job failed for good', async () => (await q.queue.getJob(jobId))?.finishedOn !== undefined);
    const job = await q.queue.getJob(jobId);
    assert.equal(job?.attemptsMade, 3);
    assert.equal(job?.failedReason, '1 of 10 pod creates rejected: 422 Invalid');
    const creates = sim.audit.query({ namespace: ns, verb: 'create', resource: 'pods' });
    assert.equal(creates.length, 3, 'one create call per attempt');
    const cur = await kube.podSets.get(ns, 'web');
    const cond = cur.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.reason, 'FailedCreate');
    const warn = (await kube.events.list(ns)).items.find((e) => e.reason === 'ReconcileFailed');
    assert.equal(warn?.type, 'Warning');
    assert.match(warn?.message ?? '', /admission webhook/);
  } finally {
    sim.faults.reset();
    await worker.close();
    await q.close();
    await redis.close();
  }
});
