// The sync handler's control flow against an in-memory API (test/fake-kube.ts) and the real planner.
// The same behaviours are checked against kube-sim over HTTP in test/controller.kube-sim.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { apiError, fakeKube, makeAllReady, type FakeKube } from '../test/fake-kube.ts';
import {
  CLEANUP_FINALIZER,
  createController,
  ReconcileError,
  type ControllerDeps,
  type ControllerOptions,
} from './controller.ts';
import { createEventRecorder } from './events.ts';

const log = silentLogger;

function setup(createBurst = 4, extra: Pick<ControllerDeps, 'cleanup'> & Partial<ControllerOptions> = {}) {
  const f = fakeKube();
  const events = createEventRecorder({ kube: f.kube, log, instance: 'test' });
  const { cleanup, ...more } = extra;
  const controller = createController({
    kube: f.kube,
    planner,
    events,
    log,
    ...(cleanup !== undefined ? { cleanup } : {}),
    options: { createBurst, reconcile: { notReadyRequeueMs: 1000 }, ...more },
  });
  return { f, controller };
}

const podsOf = (f: FakeKube, uid: string) =>
  [...f.pods.values()].filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === uid));
const reasons = (f: FakeKube) => f.events.map((e) => e.reason);

test('a PodSet of 3 converges: finalizer, creates, status, then settled', async () => {
  const { f, controller } = setup();
  const ps = f.addPodSet('default', 'web', 3);
  const first = await controller.syncHandler('default/web');
  assert.equal(first.requeueAfterMs, 1000, 'pods not ready yet: look again');
  const stored = f.podsets.get('default/web')!;
  assert.deepEqual(stored.metadata.finalizers, [CLEANUP_FINALIZER]);
  const pods = podsOf(f, ps.metadata.uid!);
  assert.equal(pods.length, 3);
  for (const p of pods) {
    assert.equal(p.metadata.labels?.['podset.io/name'], 'web');
    assert.equal(p.metadata.ownerReferences?.[0]?.controller, true);
  }
  // Written after the creates, counting the pods the API now holds, as a ReplicaSet's status.
  assert.equal(stored.status?.replicas, 3, 'the pass that created the pods counts them');
  assert.deepEqual(stored.status?.podNames, pods.map((p) => p.metadata.name).sort());
  assert.equal(f.calls.filter((c) => c.resource === 'podsets/status').length, 1);
  await controller.syncHandler('default/web');
  // The pods as the first pass counted them, nothing ready yet: no second write of the same status.
  assert.equal(f.calls.filter((c) => c.resource === 'podsets/status').length, 1);
  assert.equal(
    f.podsets.get('default/web')!.status?.conditions?.find((c) => c.type === 'Progressing')?.reason,
    'WaitingForReady',
  );
  assert.equal(f.podsets.get('default/web')!.status?.replicas, 3);
  assert.equal(f.podsets.get('default/web')!.status?.readyReplicas, 0);
  assert.equal(f.pods.size, 3, 'no duplicate creates');
  assert.ok(reasons(f).includes('SuccessfulCreate'));

  makeAllReady(f);
  const second = await controller.syncHandler('default/web');
  assert.equal(second.requeueAfterMs, undefined, 'settled: no requeue');
  const settled = f.podsets.get('default/web')!;
  assert.equal(settled.status?.readyReplicas, 3);
  assert.deepEqual(settled.status?.podNames, pods.map((p) => p.metadata.name).sort());
  assert.equal(settled.status?.observedGeneration, 1);

  // Nothing changed: a third pass writes nothing.
  const before = f.calls.length;
  await controller.syncHandler('default/web');
  const writes = f.calls.slice(before).filter((c) => c.verb !== 'get' && c.verb !== 'list');
  assert.deepEqual(writes, []);
});

test('creates go in slow-start batches; a persistent error costs one call, then ReplicaFailure + FailedCreate', async () => {
  const { f, controller } = setup(8);
  f.addPodSet('default', 'web', 50);
  f.fault = (c) =>
    c.verb === 'create' && c.resource === 'pods'
      ? apiError(403, 'Forbidden', 'pods "web-" is forbidden: exceeded quota: pods')
      : undefined;
  await assert.rejects(controller.syncHandler('default/web'), (err: unknown) => {
    assert.ok(err instanceof ReconcileError);
    assert.equal(err.reason, 'FailedCreate');
    assert.equal(err.message, '1 of 50 pod creates rejected: 403 Forbidden');
    return true;
  });
  assert.equal(f.calls.filter((c) => c.verb === 'create' && c.resource === 'pods').length, 1);
  const cond = f.podsets.get('default/web')!.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(cond?.status, 'True');
  assert.equal(cond?.reason, 'FailedCreate');
  assert.equal(cond?.message, '1 of 50 pod creates rejected: 403 Forbidden');
  const failed = f.events.find((e) => e.reason === 'FailedCreate');
  assert.equal(failed?.type, 'Warning');
  assert.match(failed?.message ?? '', /exceeded quota/, "the API's own message is in the Event");
});

test('an error that starts mid-way stops at the failing batch (1, 2, 4 → 7 calls for 3 pods allowed)', async () => {
  const { f, controller } = setup(8);
  f.addPodSet('default', 'web', 50);
  f.fault = (c) =>
    c.verb === 'create' && c.resource === 'pods' && f.pods.size >= 3
      ? apiError(422, 'Invalid', 'admission webhook denied the request')
      : undefined;
  await assert.rejects(controller.syncHandler('default/web'), ReconcileError);
  assert.equal(f.pods.size, 3);
  assert.equal(f.calls.filter((c) => c.verb === 'create' && c.resource === 'pods').length, 7);

  // Once the error is gone, the next pass creates the rest and clears ReplicaFailure.
  f.fault = undefined;
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 50);
  const status = f.podsets.get('default/web')!.status;
  assert.equal(
    status?.conditions?.some((c) => c.type === 'ReplicaFailure'),
    false,
  );
});

test('scale down deletes the worst first (not ready before ready), with UID preconditions', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 4);
  await controller.syncHandler('default/web');
  makeAllReady(f);
  // One pod falls back to not ready; scaling to 3 must delete exactly that one.
  const [bad] = [...f.pods.values()];
  bad!.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
  const ps = f.podsets.get('default/web')!;
  ps.spec!.replicas = 3;
  ps.metadata.generation = 2;
  f.bump(ps);
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 3);
  assert.equal(f.pods.has(`default/${bad!.metadata.name}`), false);
  assert.equal(f.podsets.get('default/web')!.status?.observedGeneration, 2, 'written in the same pass');
  assert.equal(f.podsets.get('default/web')!.status?.replicas, 3);
  await controller.syncHandler('default/web');
  const del = f.calls.filter((c) => c.verb === 'delete');
  assert.deepEqual(
    del.map((c) => c.name),
    [bad!.metadata.name],
  );
  assert.ok(reasons(f).includes('SuccessfulDelete'));
  assert.equal(f.podsets.get('default/web')!.status?.observedGeneration, 2);
});

test('pods of another owner (a deleted namesake) are neither counted nor touched', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 1);
  f.pods.set('default/web-old', {
    metadata: {
      namespace: 'default',
      name: 'web-old',
      uid: 'old-pod',
      labels: { 'podset.io/name': 'web' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'gone-uid', controller: true },
      ],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  });
  await controller.syncHandler('default/web');
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 2, 'one created for us; the foreign one left alone');
  assert.ok(f.pods.has('default/web-old'));
  assert.equal(f.podsets.get('default/web')!.status?.replicas, 1);
  assert.equal(f.podsets.get('default/web')!.status?.podNames?.includes('web-old'), false);
  assert.equal(f.calls.filter((c) => c.verb === 'delete').length, 0);
});

test('409 on status → re-read and re-plan, never overwrite', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 2);
  await controller.syncHandler('default/web'); // creates the pods and writes the status
  makeAllReady(f); // news for the next pass's status write
  const callsBefore = f.calls.length;
  let conflicts = 1;
  f.beforeStatusWrite = () => {
    if (conflicts-- > 0) {
      // Someone else changes the PodSet between our GET and our PUT.
      const ps = f.podsets.get('default/web')!;
      ps.metadata.labels = { touched: 'yes' };
      f.bump(ps);
    }
  };
  await controller.syncHandler('default/web');
  const calls = f.calls.slice(callsBefore);
  const statusPuts = calls.filter((c) => c.resource === 'podsets/status');
  assert.equal(statusPuts.length, 2, 'one conflict, one write after re-reading');
  const gets = calls.filter((c) => c.verb === 'get' && c.resource === 'podsets');
  assert.equal(gets.length, 2);
  const ps = f.podsets.get('default/web')!;
  assert.equal(ps.metadata.labels?.touched, 'yes', 'the other change survived');
  assert.equal(ps.status?.replicas, 2);
  assert.equal(f.pods.size, 2, 'the re-plan did not create twice');
});

test('persistent 409s give up after a few rounds and throw for the queue to retry', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 1);
  await controller.syncHandler('default/web'); // creates the pod and writes the status
  makeAllReady(f); // news for the next pass's status write
  f.beforeStatusWrite = () => f.bump(f.podsets.get('default/web')!);
  await assert.rejects(controller.syncHandler('default/web'), /conflicts in a row/);
  assert.equal(f.pods.size, 1);
});

test('a deleted PodSet: its pods go, then the finalizer, then the PodSet', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 3);
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 3);
  const ps = f.podsets.get('default/web')!;
  ps.metadata.deletionTimestamp = new Date().toISOString();
  f.bump(ps);
  const result = await controller.syncHandler('default/web');
  assert.deepEqual(result, {});
  assert.equal(f.pods.size, 0);
  assert.equal(f.podsets.has('default/web'), false, 'finalizer removed, so the PodSet is gone');
  // And a later request for it is a no-op.
  assert.deepEqual(await controller.syncHandler('default/web'), {});
});

/** Marks the stored PodSet as being deleted (what the API server does on DELETE with a finalizer). */
function markDeleted(f: FakeKube, key: string): void {
  const ps = f.podsets.get(key)!;
  ps.metadata.deletionTimestamp = new Date().toISOString();
  f.bump(ps);
}

test('a deleted PodSet: once its pods are gone its queue and event-log entries go, and only then the finalizer', async () => {
  const seen: { key: string; pods: number; finalizers: string[] | undefined }[] = [];
  let callsAtCleanup = -1;
  const { f, controller } = setup(4, {
    cleanup: async (key) => {
      callsAtCleanup = f.calls.length;
      seen.push({ key, pods: f.pods.size, finalizers: f.podsets.get(key)?.metadata.finalizers });
      return { completed: 3, failed: 1, events: 12, truncated: false };
    },
  });
  f.addPodSet('default', 'web', 3);
  await controller.syncHandler('default/web');
  assert.deepEqual(seen, [], 'not while the PodSet lives');
  markDeleted(f, 'default/web');
  assert.deepEqual(await controller.syncHandler('default/web'), {});
  assert.deepEqual(seen, [{ key: 'default/web', pods: 0, finalizers: [CLEANUP_FINALIZER] }]);
  const after = f.calls.slice(callsAtCleanup);
  assert.deepEqual(
    after.map((c) => `${c.verb} ${c.resource}`),
    ['patch podsets'],
    'the finalizer is removed after the cleanup, nothing else',
  );
  assert.equal(f.podsets.has('default/web'), false);
  // A later request for the gone PodSet does not clean up again.
  await controller.syncHandler('default/web');
  assert.equal(seen.length, 1);
});

test('a deleted PodSet whose pod deletes fail keeps its finalizer and is not cleaned up yet', async () => {
  const cleaned: string[] = [];
  const { f, controller } = setup(4, { cleanup: async (key) => void cleaned.push(key) });
  f.addPodSet('default', 'web', 2);
  await controller.syncHandler('default/web');
  markDeleted(f, 'default/web');
  f.fault = (c) =>
    c.verb === 'delete' && c.resource === 'pods' ? apiError(500, 'InternalError', 'etcd timeout') : undefined;
  await assert.rejects(controller.syncHandler('default/web'), ReconcileError);
  assert.deepEqual(cleaned, []);
  assert.deepEqual(f.podsets.get('default/web')?.metadata.finalizers, [CLEANUP_FINALIZER]);
  f.fault = undefined;
  await controller.syncHandler('default/web');
  assert.deepEqual(cleaned, ['default/web']);
  assert.equal(f.podsets.has('default/web'), false);
});

test('a deleted PodSet whose pod changed since read (409): the finalizer waits for a fresh read', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 2);
  await controller.syncHandler('default/web');
  markDeleted(f, 'default/web');
  // Freed meanwhile (an orphaning delete's garbage collector), the pod answers the delete's precondition 409.
  let refused = 0;
  f.fault = (c) => {
    if (c.verb !== 'delete' || c.resource !== 'pods' || refused > 0) return undefined;
    refused++;
    return apiError(409, 'Conflict', 'the object has been modified');
  };
  assert.deepEqual(await controller.syncHandler('default/web'), { requeueAfterMs: 0, reason: 'MoreWork' });
  assert.deepEqual(f.podsets.get('default/web')?.metadata.finalizers, [CLEANUP_FINALIZER], 'kept');
  f.fault = undefined;
  assert.deepEqual(await controller.syncHandler('default/web'), {});
  assert.equal(f.pods.size, 0);
  assert.equal(f.podsets.has('default/web'), false, 'the next read shows no pod left: the finalizer goes');
});

test('cleanup is best effort: a failing or hanging one does not hold the deletion', async () => {
  const failing = setup(4, {
    cleanup: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')),
  });
  failing.f.addPodSet('default', 'web', 1);
  await failing.controller.syncHandler('default/web');
  markDeleted(failing.f, 'default/web');
  assert.deepEqual(await failing.controller.syncHandler('default/web'), {});
  assert.equal(failing.f.podsets.has('default/web'), false, 'finalizer removed despite the error');
  assert.equal(failing.f.pods.size, 0);

  let calls = 0;
  const hanging = setup(4, {
    cleanup: () => {
      calls++;
      return new Promise<never>(() => undefined);
    },
    cleanupTimeoutMs: 20,
  });
  hanging.f.addPodSet('default', 'web', 1);
  await hanging.controller.syncHandler('default/web');
  markDeleted(hanging.f, 'default/web');
  assert.deepEqual(await hanging.controller.syncHandler('default/web'), {});
  assert.equal(calls, 1);
  assert.equal(hanging.f.podsets.has('default/web'), false, 'finalizer removed after the timeout');
});

test('a gone PodSet is done without writes', async () => {
  const { f, controller } = setup();
  assert.deepEqual(await controller.syncHandler('default/nope'), {});
  assert.deepEqual(
    f.calls.map((c) => c.verb),
    ['get'],
  );
});

test('a key that is not exactly "namespace/name" is refused before anything is read', async () => {
  const { f, controller } = setup();
  for (const key of ['default/web/x', 'web', '/web', 'default/']) {
    await assert.rejects(controller.syncHandler(key), /is not "namespace\/name"/, key);
  }
  assert.deepEqual(f.calls, []);
});

test('final failure: ReplicaFailure with the reason and a Warning event', async () => {
  const { f, controller } = setup();
  f.addPodSet('default', 'web', 1);
  await controller.onFinalFailure('default/web', new ReconcileError('FailedCreate', 'quota exceeded'));
  const cond = f.podsets.get('default/web')!.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(cond?.reason, 'FailedCreate');
  assert.equal(cond?.message, 'quota exceeded');
  const ev = f.events.find((e) => e.reason === 'ReconcileFailed');
  assert.equal(ev?.type, 'Warning');
  assert.match(ev?.message ?? '', /quota exceeded/);
});

test('repeated identical events are aggregated into one with a count', async () => {
  const f = fakeKube();
  const events = createEventRecorder({ kube: f.kube, log, instance: 'test' });
  const ref = { namespace: 'default', name: 'web', uid: 'u' };
  await events.record(ref, 'Warning', 'FailedCreate', 'quota');
  await events.record(ref, 'Warning', 'FailedCreate', 'quota');
  await events.record(ref, 'Warning', 'FailedCreate', 'other');
  assert.equal(f.events.length, 2);
  assert.equal(f.events[0]?.count, 2);
  // A recording error never throws.
  f.fault = () => apiError(500, 'InternalError', 'boom');
  await events.record(ref, 'Normal', 'X', 'y');
});

test('EVENTS=warnings: a scale-up records no Normal Event (one write fewer); a failure still gets its Warning', async () => {
  const f = fakeKube();
  const events = createEventRecorder({ kube: f.kube, log, instance: 'test', types: 'warnings' });
  const controller = createController({
    kube: f.kube,
    planner,
    events,
    log,
    options: { createBurst: 4, reconcile: { notReadyRequeueMs: 1000 } },
  });
  f.addPodSet('default', 'web', 3);
  await controller.syncHandler('default/web');
  assert.equal(f.pods.size, 3);
  assert.deepEqual(reasons(f), [], 'no SuccessfulCreate');
  assert.equal(f.calls.filter((c) => c.resource === 'events').length, 0, 'no Event write at all');

  f.addPodSet('default', 'broken', 2);
  f.fault = (c) =>
    c.verb === 'create' && c.resource === 'pods' ? apiError(403, 'Forbidden', 'exceeded quota') : undefined;
  await assert.rejects(controller.syncHandler('default/broken'), ReconcileError);
  assert.deepEqual(reasons(f), ['FailedCreate']);
  assert.equal(f.events[0]?.type, 'Warning');
});

/** A controller with a clock the test moves, and pod creates that the API rejects (names vary per call). */
