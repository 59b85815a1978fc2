// STATE_SOURCE=projection on the worker, against kube-sim and a real Redis: a reconcile reads the key's
// state from the projection (no GET, no LIST), and a projection that does not show the worker's own
// creates yet (a stalled watch) never makes it create twice — the expectations hold it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProjectedPod, ProjectedPodSet } from '@podset/state';
import { ProjectionPair as Projection } from '../../../libs/state/test/support/projection-pair.ts';
import { waitFor } from '@podset/testkit';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { projectionState, type StateProjection } from '../src/projection-state.ts';
import { apiReads, createPodSet, testController, testTags } from './kube-sim-setup.ts';

const { sim, kube, client } = useSimCluster({ sim: { controllers: false }, redis: true });
let seq = 0;

/** The controller on `projection`; `k` is the API it writes through (its fallback reads the real one). */
function controllerWith(projection: StateProjection, k = kube) {
  return testController(k, {
    state: projectionState(projection, apiReads(kube)),
    notReadyRequeueMs: 200,
    warningsOnly: true,
  });
}

/** A PodSet in the API and, as the watcher would have folded it, in a fresh ready projection. */
async function setUp(replicas: number) {
  const name = `proj-${++seq}`;
  const projection = new Projection({
    client,
    prefix: '{podset}',
    queueName: `worker-proj-${seq}`,
    tags: testTags,
  });
  const ps = await createPodSet(kube, 'default', name, replicas, { finalized: true });
  await projection.foldPodSet(`default/${name}`, 'ADDED', ps as unknown as ProjectedPodSet, 1);
  await projection.markReady();
  return { name, key: `default/${name}`, projection };
}

const podsOf = async (name: string) =>
  (await kube.pods.list('default', { labelSelector: `podset.io/name=${name}` })).items;

/** The watcher's part: fold the pods as the API has them now. */
async function foldPods(projection: Projection, key: string, name: string): Promise<void> {
  for (const pod of await podsOf(name)) {
    await projection.foldPod(key, 'ADDED', pod as unknown as ProjectedPod, 1);
  }
}

/** The reads since `mark` (sim.audit.mark(): exact, where a clock reading is not within a millisecond). */
function readsAfter(mark: number): string[] {
  return sim.audit
    .query({ namespace: 'default', after: mark })
    .filter((e) => e.verb === 'get' || e.verb === 'list')
    .map((e) => `${e.verb} ${e.resource}`);
}

test('a reconcile decides from the projection; the one that creates plans again from one API read', async () => {
  const { name, key, projection } = await setUp(3);
  const controller = controllerWith(projection);
  let mark = sim.audit.mark();
  await controller.syncHandler(key);
  // A new PodSet: its first revision is created without reading the history.
  assert.deepEqual(readsAfter(mark), ['get podsets', 'list pods'], 'one read pair: the plan acts');
  assert.equal((await podsOf(name)).length, 3);
  assert.equal((await projection.read(key))?.pending.length, 3, 'its 3 creates are expected');

  // The watch is stalled: the projection shows no pod. Planning on it would create 3 more.
  mark = sim.audit.mark();
  assert.deepEqual(await controller.syncHandler(key), {
    requeueAfterMs: 1_000,
    reason: 'Expectations',
  });
  assert.deepEqual(readsAfter(mark), [], 'a reconcile that waits reads nothing');
  assert.equal((await podsOf(name)).length, 3, 'nothing created twice');

  // The watcher catches up: the creates show, the expectations are met, the reconcile plans again.
  await foldPods(projection, key, name);
  assert.deepEqual((await projection.read(key))?.pending, []);
  mark = sim.audit.mark();
  await controller.syncHandler(key);
  assert.deepEqual(readsAfter(mark), [], 'a reconcile that creates and deletes nothing reads no API');
  assert.equal((await podsOf(name)).length, 3, 'the 3 pods it sees are the 3 it wants');
});

test('without its expectations a stale projection still creates nothing twice: the API read decides', async () => {
  const { name, key, projection } = await setUp(3);
  const forgetful: StateProjection = {
    read: (k) => projection.read(k),
    expect: async () => 0,
    reserveCreates: async () => {},
    recordCreates: async () => ({ recorded: 0, overReleased: false }),
    dropRefused: async () => 0,
    forgetExpectations: async () => 0,
    forget: (k) => projection.forget(k),
  };
  const controller = controllerWith(forgetful);
  await controller.syncHandler(key);
  const mark = sim.audit.mark();
  await controller.syncHandler(key);
  // No status written yet, but a PodSet never changed whose revision is annotated: the history is current.
  assert.deepEqual(readsAfter(mark), ['get podsets', 'list pods'], 'one read pair before acting');
  assert.equal((await podsOf(name)).length, 3, 'the API shows the 3 pods the projection does not');
});

test('a projected PodSet the API no longer has: no pod is created, the key ends, its expectations go', async () => {
  const { name, key, projection } = await setUp(2);
  await kube.podSets.patch('default', name, { metadata: { finalizers: [] } });
  await kube.podSets.delete('default', name);
  const forgotten: string[] = [];
  const spied: StateProjection = {
    read: (k) => projection.read(k),
    expect: (k, what, names) => projection.expect(k, what, names),
    reserveCreates: (k, count, opts) => projection.reserveCreates(k, count, opts),
    recordCreates: (k, names, opts) => projection.recordCreates(k, names, opts),
    dropRefused: async () => 0,
    forgetExpectations: (k) => {
      forgotten.push(k);
      return projection.forgetExpectations(k);
    },
    forget: (k) => projection.forget(k),
  };
  const ended: string[] = [];
  const controller = testController(kube, {
    state: projectionState(spied, apiReads(kube)),
    warningsOnly: true,
    onKeyEnded: (reason) => ended.push(reason),
  });
  for (let i = 0; i < 3; i++) assert.deepEqual(await controller.syncHandler(key), {}, 'done, no retry');
  assert.deepEqual(ended, ['NotFound', 'NotFound', 'NotFound']);
  assert.deepEqual(forgotten, [key, key, key]);
  assert.deepEqual(await podsOf(name), [], 'nothing created for a PodSet the API no longer has');
});

test('a projection that is not ready yet (no complete relist): the reconcile reads the API', async () => {
  const name = `proj-${++seq}`;
  const projection = new Projection({
    client,
    prefix: '{podset}',
    queueName: `worker-proj-${seq}`,
    tags: testTags,
  });
  await createPodSet(kube, 'default', name, 2, { finalized: true });
  const mark = sim.audit.mark();
  await controllerWith(projection).syncHandler(`default/${name}`);
  assert.deepEqual(readsAfter(mark).sort(), ['get podsets', 'list pods']);
  assert.equal((await podsOf(name)).length, 2);
});

test("a new PodSet's first pass: its revision by one create, no history read, one metadata patch", async () => {
  const name = `proj-${++seq}`;
  const projection = new Projection({
    client,
    prefix: '{podset}',
    queueName: `worker-proj-${seq}`,
    tags: testTags,
  });
  const ps = await createPodSet(kube, 'default', name, 2);
  await projection.foldPodSet(`default/${name}`, 'ADDED', ps as unknown as ProjectedPodSet, 1);
  await projection.markReady();
  const mark = sim.audit.mark();
  await controllerWith(projection).syncHandler(`default/${name}`);
  // The PodSet's own object (not its status) and its revisions: the reads and writes a revision costs.
  const calls = sim.audit
    .query({ namespace: 'default', after: mark })
    .filter((e) => e.resource === 'controllerrevisions' || (e.resource === 'podsets' && !e.subresource))
    .map((e) => `${e.verb} ${e.resource}`);
  assert.deepEqual(calls, ['get podsets', 'create controllerrevisions', 'patch podsets']);
  const after = await kube.podSets.get('default', name);
  assert.deepEqual(after.metadata.finalizers, ['podset.io/cleanup']);
  assert.equal(after.metadata.annotations?.['podset.io/revision'], '1', 'in the finalizer patch');
});

test("the worker's own status write is folded at once: the next reconcile writes against it, no 409", async () => {
  const { name, key, projection } = await setUp(2);
  const controller = controllerWith(projection);
  // The pass that creates the pods writes the status counting them; no watcher folds that write here.
  await controller.syncHandler(key);
  await foldPods(projection, key, name);
  // One pod comes ready (as the watcher folds it): news for the next pass's status.
  const [first] = await podsOf(name);
  const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  await projection.foldPod(key, 'MODIFIED', { ...first, status: ready } as unknown as ProjectedPod, 1);
  const written = await kube.podSets.get('default', name);
  assert.equal(written.status?.replicas, 2);
  assert.notEqual(
    (await projection.read(key))?.podset?.metadata.resourceVersion,
    written.metadata.resourceVersion,
    'the projection still shows the PodSet from before the write',
  );
  const since = new Date().toISOString();
  await controller.syncHandler(key);
  const audited = sim.audit.query({ namespace: 'default', since });
  assert.deepEqual(
    audited.filter((e) => e.code === 409),
    [],
  );
  assert.equal(
    audited.filter((e) => e.verb === 'update' && e.resource === 'podsets').length,
    1,
    "the next status (a pod ready) written against the worker's own write",
  );
});

test('a failed finalizer removal is retried: the projection still shows the PodSet being deleted', async () => {
  const { name, key, projection } = await setUp(0);
  await kube.podSets.delete('default', name);
  const deleting = await kube.podSets.get('default', name);
  assert.ok(deleting.metadata.deletionTimestamp, 'held by the finalizer');
  await projection.foldPodSet(key, 'MODIFIED', deleting as unknown as ProjectedPodSet, 1);
  // The API fails the finalizer PATCH once (the chaos run's injected 500s do this).
  let failed = false;
  const podSets = new Proxy(kube.podSets, {
    get(target, prop) {
      if (prop === 'patch' && !failed)
        return () => {
          failed = true;
          return Promise.reject(new Error('500 InternalError: injected'));
        };
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const controller = controllerWith(projection, { ...kube, podSets });
  await assert.rejects(controller.syncHandler(key), /injected/);
  await controller.syncHandler(key);
  await waitFor('the PodSet gone from the API', async () => {
    try {
      await kube.podSets.get('default', name);
      return false;
    } catch {
      return true;
    }
  });
});

test('a deleted PodSet: one reconcile deletes its pods, forgets its kept state, removes the finalizer', async () => {
  const { name, key, projection } = await setUp(1);
  const controller = controllerWith(projection);
  await controller.syncHandler(key);
  await foldPods(projection, key, name);
  const k = projection.keys(key);
  assert.equal(await client.exists(k.pods), 1);

  await kube.podSets.delete('default', name);
  const deleting = await kube.podSets.get('default', name);
  await projection.foldPodSet(key, 'MODIFIED', deleting as unknown as ProjectedPodSet, 1);
  await controller.syncHandler(key);
  assert.deepEqual(await podsOf(name), [], 'its pod deleted');
  await assert.rejects(kube.podSets.get('default', name), /404|NotFound/, 'its finalizer removed');
  assert.equal(await client.exists(k.pods, k.expect, k.requested), 0, 'its pods, expectations and requests');
  assert.equal(await client.exists(k.podset), 1, 'its entry stays until its DELETED event');
});
