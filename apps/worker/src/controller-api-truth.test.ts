// Redis decides whether to act; the API decides what. The controller against an in-memory API and a
// state source whose reads are not authoritative (as the projection's are not): a plan that would create
// or delete is made again from one API read (`confirm`) and only that plan acts; a plan that does neither
// reads nothing more; a 404 or another UID there, or a 404 on a write, ends the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Pod, PodSet } from '@podset/kube';
import { fakeController } from '../test/fake-controller.ts';
import { fakeKube, makeAllReady, apiError, type FakeKube } from '../test/fake-kube.ts';
import type { ProjectedState } from '@podset/state';
import { apiState } from './api-state.ts';
import { CLEANUP_FINALIZER, type KeyEndReason } from './controller.ts';
import { projectionState, type StateProjection } from './projection-state.ts';
import type { ConfirmReason, KeyState, StateSource } from './state-source.ts';

/** What the stand-in for the projection shows: a PodSet and pods, changed by the test at will. */
interface Shown {
  podset: PodSet;
  pods: Pod[];
}

function setup(shown: () => Shown | undefined) {
  const f = fakeKube();
  const api = apiState(f.kube);
  const confirms: string[] = [];
  const confirmedWhy: ConfirmReason[] = [];
  const ended: string[] = [];
  const endedReasons: KeyEndReason[] = [];
  const state: StateSource = {
    ...api,
    read: async (): Promise<KeyState> => {
      const s = shown();
      if (s === undefined) return { kind: 'gone' };
      return {
        kind: 'found',
        podset: structuredClone(s.podset),
        authoritative: false,
        pods: async () => s.pods,
      };
    },
    confirm: async (ref, why, signal) => {
      confirms.push(ref.key);
      confirmedWhy.push(why);
      return api.read(ref, signal);
    },
    ended: async (key) => {
      ended.push(key);
    },
  };
  const controller = fakeController(f, state, (reason) => endedReasons.push(reason));
  return { f, controller, confirms, confirmedWhy, ended, endedReasons };
}

const apiPods = (f: FakeKube) => [...f.pods.values()];
const writes = (f: FakeKube) => f.calls.filter((c) => c.verb !== 'get' && c.verb !== 'list');

/** A PodSet of `replicas` converged in the fake API (finalizer, ready pods), as the projection would show it. */
async function converged(replicas: number) {
  let shown: Shown | undefined;
  const t = setup(() => shown);
  const ps = t.f.addPodSet('default', 'web', replicas, { finalizers: [CLEANUP_FINALIZER] });
  shown = { podset: ps, pods: [] };
  await t.controller.syncHandler('default/web'); // acts from the API: creates
  makeAllReady(t.f);
  shown = { podset: t.f.podsets.get('default/web')!, pods: apiPods(t.f) };
  await t.controller.syncHandler('default/web'); // status
  shown = { podset: structuredClone(t.f.podsets.get('default/web')!), pods: structuredClone(apiPods(t.f)) };
  t.confirms.length = 0;
  t.confirmedWhy.length = 0;
  t.f.calls.length = 0;
  return { ...t, set: (s: Shown | undefined) => (shown = s), shown: () => shown! };
}

test('a plan that neither creates nor deletes reads nothing from the API', async () => {
  const t = await converged(3);
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirms, []);
  assert.deepEqual(t.f.calls, [], 'no read, no write');
});

test('a stale projection that shows too few pods: the API read shows them all, nothing is created', async () => {
  const t = await converged(3);
  t.set({ ...t.shown(), pods: t.shown().pods.slice(1) });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirms, ['default/web'], 'one API read, because the plan would create');
  assert.deepEqual(writes(t.f), [], 'the API plan creates nothing');
  assert.equal(apiPods(t.f).length, 3);
});

test('a pod the last status listed that the projection lacks (relabelled out of a surplus): the API read releases it', async () => {
  // Three pods for two replicas (a scale-down or a rollout about to delete one), and the surplus pod
  // relabelled out: the projection, which lists pods by label, shows two pods for two replicas — a plan
  // that acts on nothing. Only the API read, which looks up the names the status listed, can release it.
  const t = await converged(3);
  const taken = apiPods(t.f)[0]!;
  const name = taken.metadata?.name as string;
  delete taken.metadata!.labels!['podset.io/name'];
  const api = t.f.podsets.get('default/web')!;
  api.spec = { ...api.spec!, replicas: 2 };
  const shown = structuredClone(api);
  t.set({ podset: shown, pods: t.shown().pods.filter((p) => p.metadata?.name !== name) });
  assert.ok(shown.status?.podNames?.includes(name), 'the last status lists the pod');
  await t.controller.syncHandler('default/web');
  assert.deepEqual(
    t.confirms,
    ['default/web'],
    'one API read, though the plan from the projection acts on nothing',
  );
  assert.equal(
    t.f.pods.get(`default/${name}`)?.metadata?.ownerReferences?.length ?? 0,
    0,
    `${name} released`,
  );
  assert.deepEqual(
    writes(t.f).filter((c) => c.verb === 'create' || c.verb === 'delete'),
    [],
    'two pods for two replicas: nothing created or deleted',
  );
  const names = t.f.podsets.get('default/web')!.status?.podNames ?? [];
  assert.ok(!names.includes(name), `the status no longer lists it: ${names.join(', ')}`);
});

test('a pod shown that the API no longer has: no real pod is deleted, the status is the API read', async () => {
  const t = await converged(3);
  const ghost = structuredClone(t.shown().pods[0]!);
  ghost.metadata.name = 'web-ghost';
  ghost.metadata.uid = 'ghost-uid';
  t.set({ ...t.shown(), pods: [...t.shown().pods, ghost] });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirms, ['default/web']);
  assert.deepEqual(
    writes(t.f).filter((c) => c.verb === 'delete'),
    [],
    'four pods shown for three replicas, three in the API: nothing deleted',
  );
  assert.equal(apiPods(t.f).length, 3);
  const names = t.f.podsets.get('default/web')!.status?.podNames ?? [];
  assert.ok(!names.includes('web-ghost'), `status names only the API's pods: ${names.join(', ')}`);
});

test('creates are made from the API template, UID and namespace, not the projection', async () => {
  const t = await converged(2);
  const forged = structuredClone(t.shown().podset);
  forged.spec!.template!.spec!.containers![0]!.image = 'evil.example/forged:1';
  forged.spec!.replicas = 4;
  t.set({ podset: forged, pods: t.shown().pods });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirms, ['default/web']);
  assert.deepEqual(writes(t.f), [], 'the API says 2 replicas, 2 pods: nothing to create');
  // A real scale-up: the projection shows it with a forged image, the pods come from the API's template.
  t.f.podsets.get('default/web')!.spec!.replicas = 3;
  await t.controller.syncHandler('default/web');
  const images = apiPods(t.f).map((p) => (p.spec?.containers?.[0] as { image?: string } | undefined)?.image);
  assert.deepEqual(images, ['busybox', 'busybox', 'busybox']);
});

test('a projected PodSet the API no longer has (404): no pod created, the key ends, no retry', async () => {
  const t = await converged(2);
  t.f.podsets.delete('default/web');
  t.f.pods.clear();
  // What is left in Redis (or written back): the PodSet with no pod, a plan that would create.
  t.set({ ...t.shown(), pods: [] });
  for (let i = 0; i < 3; i++) assert.deepEqual(await t.controller.syncHandler('default/web'), {});
  assert.deepEqual(writes(t.f), [], 'nothing created');
  assert.deepEqual(t.ended, ['default/web', 'default/web', 'default/web']);
  assert.deepEqual(t.endedReasons, ['NotFound', 'NotFound', 'NotFound']);
});

test('another object under the name (UID mismatch): the key ends, nothing is created for the old one', async () => {
  const t = await converged(2);
  t.f.podsets.delete('default/web');
  t.f.pods.clear();
  t.f.addPodSet('default', 'web', 0, { finalizers: [CLEANUP_FINALIZER] });
  t.set({ ...t.shown(), pods: [] });
  assert.deepEqual(await t.controller.syncHandler('default/web'), {});
  assert.deepEqual(writes(t.f), []);
  assert.deepEqual(t.endedReasons, ['UIDMismatch']);
});

test('a 404 on the status write ends the key (no "done, retry on the next event")', async () => {
  const t = await converged(2);
  t.f.fault = (c) => (c.resource === 'podsets/status' ? apiError(404, 'NotFound', 'gone') : undefined);
  t.f.podsets.get('default/web')!.metadata.generation = 2;
  t.set({ ...t.shown(), podset: t.f.podsets.get('default/web')! });
  assert.deepEqual(await t.controller.syncHandler('default/web'), {});
  assert.deepEqual(t.endedReasons, ['NotFound']);
  assert.deepEqual(t.ended, ['default/web']);
});

test("a PodSet being deleted: its pods are deleted only from the API's list", async () => {
  const t = await converged(2);
  const deleting = structuredClone(t.f.podsets.get('default/web')!);
  deleting.metadata.deletionTimestamp = new Date().toISOString();
  t.f.podsets.set('default/web', structuredClone(deleting));
  const ghost = structuredClone(t.shown().pods[0]!);
  ghost.metadata.name = 'web-ghost';
  t.set({ podset: deleting, pods: [ghost] });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirms, ['default/web'], 'the finalizer deletes read the API first');
  assert.deepEqual(t.confirmedWhy, ['acting']);
  const deleted = writes(t.f)
    .filter((c) => c.verb === 'delete')
    .map((c) => c.name)
    .sort();
  assert.equal(deleted.length, 2, 'the API pods went');
  assert.ok(!deleted.includes('web-ghost'), 'not the ghost');
});

/** The PodSet in the fake API marked as being deleted (its finalizer holds it); a copy as the projection shows it. */
function markDeleting(f: FakeKube): PodSet {
  const ps = f.podsets.get('default/web')!;
  ps.metadata.deletionTimestamp = new Date().toISOString();
  f.bump(ps);
  return structuredClone(ps);
}

const finalizerPatches = (f: FakeKube) =>
  f.calls.filter((c) => c.verb === 'patch' && c.resource === 'podsets');

test("a PodSet being deleted whose pods the projection hides: the finalizer stays until the API's pods are deleted", async () => {
  const t = await converged(2);
  const deleting = markDeleting(t.f);
  const real = apiPods(t.f)
    .map((p) => p.metadata.name)
    .sort();
  t.set({ podset: deleting, pods: [] }); // pod entries deleted from Redis
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirmedWhy, ['finalizer'], 'one API read before letting the PodSet go');
  const deleted = writes(t.f)
    .filter((c) => c.verb === 'delete')
    .map((c) => c.name)
    .sort();
  assert.deepEqual(deleted, real, "the API's pods are deleted, by this pass");
  const order = writes(t.f).map((c) => c.verb);
  assert.ok(
    order.lastIndexOf('delete') < order.indexOf('patch'),
    `every delete before the finalizer goes: ${order.join(', ')}`,
  );
});

test('a forged "being deleted" entry of a live PodSet: its finalizer stays, no pod is deleted', async () => {
  const t = await converged(2);
  const forged = structuredClone(t.f.podsets.get('default/web')!);
  forged.metadata.deletionTimestamp = new Date().toISOString();
  t.set({ podset: forged, pods: [] });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirmedWhy, ['finalizer']);
  assert.deepEqual(finalizerPatches(t.f), [], 'no finalizer patch');
  assert.deepEqual(
    writes(t.f).filter((c) => c.verb === 'delete'),
    [],
  );
  assert.deepEqual(t.f.podsets.get('default/web')!.metadata.finalizers, [CLEANUP_FINALIZER]);
  assert.equal(apiPods(t.f).length, 2);
});

test('a PodSet being deleted with no pod left in the API: the finalizer goes after the API read', async () => {
  const t = await converged(2);
  const deleting = markDeleting(t.f);
  t.f.pods.clear();
  t.set({ podset: deleting, pods: [] });
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.confirmedWhy, ['finalizer']);
  assert.equal(finalizerPatches(t.f).length, 1, 'the finalizer removed');
  assert.deepEqual(t.f.podsets.get('default/web')?.metadata.finalizers ?? [], []);
});

test('a PodSet being deleted and made again under its name (another UID): the old finalizer is not removed from the new one', async () => {
  const t = await converged(2);
  const deleting = markDeleting(t.f);
  t.f.podsets.delete('default/web');
  t.f.pods.clear();
  t.f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  t.set({ podset: deleting, pods: [] });
  assert.deepEqual(await t.controller.syncHandler('default/web'), {});
  assert.deepEqual(t.endedReasons, ['UIDMismatch']);
  assert.deepEqual(writes(t.f), []);
  assert.deepEqual(t.f.podsets.get('default/web')!.metadata.finalizers, [CLEANUP_FINALIZER]);
});

/**
 * The controller on the projection's own state source (projection-state.ts: the read after a 409 is the
 * API's), over a stand-in for Redis that shows what the test sets.
 */
function onProjection(f: FakeKube, shown: () => Shown | undefined) {
  const forgotten: string[] = [];
  const reads: string[] = [];
  const projection: StateProjection = {
    read: async (): Promise<ProjectedState | undefined> => {
      const s = shown();
      if (s === undefined) return undefined;
      return {
        podset: structuredClone(s.podset),
        pods: structuredClone(s.pods),
        pending: [],
        refused: [],
      } as unknown as ProjectedState;
    },
    expect: async () => 0,
    reserveCreates: async () => {},
    recordCreates: async () => ({ recorded: 0, overReleased: false }),
    dropRefused: async () => 0,
    forgetExpectations: async (key) => {
      forgotten.push(key);
      return 0;
    },
    forget: async () => 0,
  };
  const api = apiState(f.kube);
  const state = projectionState(projection, {
    fallback: (ref, signal) => {
      reads.push('fallback');
      return api.read(ref, signal);
    },
    confirm: (ref, why, signal) => {
      reads.push(why);
      return api.read(ref, signal);
    },
    refused: () => undefined,
  });
  const endedReasons: KeyEndReason[] = [];
  const controller = fakeController(f, state, (reason) => endedReasons.push(reason));
  return { controller, forgotten, reads, endedReasons };
}

const ownerOf = (p: Pod) => p.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;

test('a 409 whose re-read shows another UID (deleted and made again): the old key ends, nothing is created in that pass', async () => {
  const f = fakeKube();
  const old = f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  // Two passes from the API (another worker's): the creates, then the status for this generation, so the
  // revision history is known current from the PodSet alone and the next pass reads no API for it.
  const fromApi = fakeController(f, apiState(f.kube));
  await fromApi.syncHandler('default/web');
  await fromApi.syncHandler('default/web');
  makeAllReady(f);
  // The projection shows the old PodSet and its pods now ready: a status-only plan, no API read.
  let shown: Shown | undefined = { podset: structuredClone(f.podsets.get('default/web')!), pods: apiPods(f) };
  const t = onProjection(f, () => shown);
  let fresh: PodSet | undefined;
  // Behind the writer's back, before its status PUT lands: the PodSet is deleted and made again.
  f.beforeStatusWrite = () => {
    f.beforeStatusWrite = undefined;
    f.podsets.delete('default/web');
    f.pods.clear();
    fresh = f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  };
  f.calls.length = 0;
  assert.deepEqual(await t.controller.syncHandler('default/web'), {});
  assert.deepEqual(t.reads, ['fallback'], "the read after the 409 is the API's");
  assert.deepEqual(t.endedReasons, ['UIDMismatch'], 'the old key ended');
  assert.deepEqual(t.forgotten, ['default/web'], "the old key's expectations forgotten");
  assert.deepEqual(
    f.calls.filter((c) => c.verb === 'create' && c.resource === 'pods'),
    [],
    'no pod created in the pass that wrote to the old object',
  );
  // The new object's own event: its pods, owned by its UID, from the API's read.
  shown = { podset: structuredClone(fresh!), pods: [] };
  await t.controller.syncHandler('default/web');
  const owners = apiPods(f).map(ownerOf);
  assert.deepEqual(owners, [fresh!.metadata.uid, fresh!.metadata.uid]);
  assert.ok(!owners.includes(old.metadata.uid), 'none owned by the old UID');
});

test('a 409 whose re-read shows the same UID: re-planned from the API read and written', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 2, { finalizers: [CLEANUP_FINALIZER] });
  // Two passes from the API (another worker's): the creates, then the status for this generation, so the
  // revision history is known current from the PodSet alone and the next pass reads no API for it.
  const fromApi = fakeController(f, apiState(f.kube));
  await fromApi.syncHandler('default/web');
  await fromApi.syncHandler('default/web');
  makeAllReady(f);
  const shown: Shown = { podset: structuredClone(f.podsets.get('default/web')!), pods: apiPods(f) };
  const t = onProjection(f, () => shown);
  f.beforeStatusWrite = () => {
    f.beforeStatusWrite = undefined;
    f.bump(f.podsets.get('default/web')!); // someone else's write: a newer version of the same object
  };
  await t.controller.syncHandler('default/web');
  assert.deepEqual(t.reads, ['fallback']);
  assert.deepEqual(t.endedReasons, []);
  assert.equal(f.podsets.get('default/web')!.status?.readyReplicas, 2, 'written on the second round');
});
