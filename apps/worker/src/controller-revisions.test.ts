// The revision history as the controller keeps it (revisions.ts) on the in-memory API: written from the
// API's read, only when the spec moved on, and a paused PodSet keeping its current revision's template.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { templateHash, type PodSet } from '@podset/reconcile';

import { fakeController } from '../test/fake-controller.ts';
import { apiError, fakeKube, makeAllReady, type FakeKube } from '../test/fake-kube.ts';
import { apiState } from './api-state.ts';

function setup() {
  const f = fakeKube();
  f.addPodSet('default', 'web', 2);
  return { f, controller: fakeController(f, apiState(f.kube)) };
}

/** Reconciles until a pass writes nothing (the pods made ready between passes). */
async function converge(f: FakeKube, sync: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const before = f.calls.length;
    await sync();
    makeAllReady(f);
    if (f.calls.slice(before).every((c) => c.verb === 'get' || c.verb === 'list')) return;
  }
  assert.fail('did not converge in 10 passes');
}

const revisionCalls = (f: FakeKube) => f.calls.filter((c) => c.resource === 'controllerrevisions');
const stored = (f: FakeKube) => f.podsets.get('default/web')!;
const history = (f: FakeKube) =>
  [...f.revisions.values()]
    .map((r) => [r.revision, r.metadata.labels?.['podset.io/template-hash']])
    .sort((a, b) => Number(a[0]) - Number(b[0]));
const podHashes = (f: FakeKube) =>
  [...new Set([...f.pods.values()].map((p) => p.metadata.labels?.['podset.io/template-hash']))].sort();

/** A spec change as the API server makes it: the new spec, the generation bumped. */
function changeSpec(f: FakeKube, change: (ps: PodSet) => void): string {
  const ps = stored(f);
  change(ps);
  ps.metadata.generation = (ps.metadata.generation ?? 1) + 1;
  f.bump(ps);
  return templateHash(ps as PodSet);
}
const setImage = (image: string) => (ps: PodSet) => {
  ps.spec!.template!.spec.containers[0]!.image = image;
};

test('one revision per template, numbered in order; nothing read once the history is current', async () => {
  const { f, controller } = setup();
  const sync = () => controller.syncHandler('default/web');
  const first = templateHash(stored(f) as PodSet);
  await converge(f, sync);
  assert.deepEqual(history(f), [[1, first]]);
  assert.equal(stored(f).metadata.annotations?.['podset.io/revision'], '1');
  const [made] = f.revisions.values();
  assert.equal(made?.metadata.ownerReferences?.[0]?.uid, stored(f).metadata.uid);

  f.calls.length = 0;
  await sync();
  assert.deepEqual(revisionCalls(f), [], 'a pass with nothing new reads no revision');

  const second = changeSpec(f, setImage('busybox:2'));
  await converge(f, sync);
  assert.deepEqual(history(f), [
    [1, first],
    [2, second],
  ]);
  assert.deepEqual(podHashes(f), [second]);

  // The first template back: its revision renumbered, no second one.
  changeSpec(f, setImage('busybox'));
  await converge(f, sync);
  assert.deepEqual(history(f), [
    [2, second],
    [3, first],
  ]);
  assert.equal(stored(f).metadata.annotations?.['podset.io/revision'], '3');
});

test('paused: a new template gets no revision and no pod; a scale makes pods of the current revision', async () => {
  const { f, controller } = setup();
  const sync = () => controller.syncHandler('default/web');
  const first = templateHash(stored(f) as PodSet);
  await converge(f, sync);
  changeSpec(f, (ps) => {
    ps.spec!.paused = true;
    ps.spec!.replicas = 3;
    setImage('busybox:2')(ps);
  });
  await converge(f, sync);
  assert.deepEqual(history(f), [[1, first]]);
  assert.equal(f.pods.size, 3);
  assert.deepEqual(podHashes(f), [first]);
  const progressing = stored(f).status?.conditions?.find((c) => c.type === 'Progressing');
  assert.equal(progressing?.reason, 'PodSetPaused');

  const second = changeSpec(f, (ps) => {
    ps.spec!.paused = false;
  });
  await converge(f, sync);
  assert.deepEqual(podHashes(f), [second]);
  assert.equal(stored(f).metadata.annotations?.['podset.io/revision'], '2');
});

test('a revision name held by a deleted namesake’s leftover: the new one takes the UID in its name', async () => {
  const f = fakeKube();
  const ps = f.addPodSet('default', 'web', 1);
  const hash = templateHash(ps as PodSet);
  f.revisions.set(`default/web-${hash}`, {
    metadata: {
      name: `web-${hash}`,
      namespace: 'default',
      uid: 'old-cr',
      labels: { 'podset.io/name': 'web', 'podset.io/template-hash': hash },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'gone', controller: true },
      ],
    },
    revision: 7,
  });
  await converge(f, () => fakeController(f, apiState(f.kube)).syncHandler('default/web'));
  const names = [...f.revisions.values()].map((r) => [r.metadata.name, r.revision]).sort();
  assert.deepEqual(names, [
    [`web-${hash}`, 7],
    [`web-${hash}-${(ps.metadata.uid ?? '').slice(0, 8)}`, 1],
  ]);
});

test('a first revision made by a pass whose metadata patch failed: the next pass finds it, no second one', async () => {
  const { f, controller } = setup();
  const sync = () => controller.syncHandler('default/web');
  const hash = templateHash(stored(f) as PodSet);
  f.fault = (c) =>
    c.verb === 'patch' && c.resource === 'podsets' ? apiError(500, 'InternalError', 'x') : undefined;
  await assert.rejects(sync());
  assert.deepEqual(history(f), [[1, hash]]);
  assert.equal(stored(f).metadata.annotations?.['podset.io/revision'], undefined);
  f.fault = undefined;
  f.calls.length = 0;
  await converge(f, sync);
  assert.deepEqual(
    revisionCalls(f).map((c) => c.verb),
    ['create', 'list'],
    'its create meets the one made (409), then the list decides',
  );
  assert.deepEqual(history(f), [[1, hash]]);
  assert.equal(stored(f).metadata.annotations?.['podset.io/revision'], '1');
  assert.deepEqual(stored(f).metadata.finalizers, ['podset.io/cleanup']);
});
