import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HASH, pod, podSet, T0, UID } from '../test/fixtures.ts';
import { deepFreeze } from '../test/freeze.ts';
import { ORPHAN_FINALIZER } from './api.ts';
import { getCondition, withFailure } from './conditions.ts';
import { reconcile } from './plan.ts';
import type { Pod, PodSet } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);

function withStatus(ps: PodSet, status: PodSet['status']): PodSet {
  return { ...ps, status };
}

test('from nothing: create all missing pods, status counts them (3, none ready), requeue until ready', () => {
  const ps = deepFreeze(podSet({ replicas: 3, generation: 7 }));
  const plan = reconcile(ps, [], at(0));
  assert.equal(plan.mode, 'sync');
  assert.equal(plan.creates.length, 3);
  assert.equal(plan.creates[0]?.metadata.generateName, 'web-');
  assert.deepEqual(plan.deletes, []);
  assert.deepEqual(plan.status, {
    replicas: 3,
    readyReplicas: 0,
    updatedReplicas: 3,
    availableReplicas: 0,
    podNames: [],
    observedGeneration: 7,
    templateHash: HASH,
    selector: 'podset.io/name=web',
    conditions: [
      {
        type: 'Available',
        status: 'False',
        reason: 'MinimumReplicasUnavailable',
        message: '0/3 replicas ready, at least 3 needed',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
      {
        type: 'Progressing',
        status: 'True',
        reason: 'WaitingForReady',
        message: '3 pods not ready yet',
        lastTransitionTime: '2026-01-01T00:00:00Z',
        lastUpdateTime: '2026-01-01T00:00:00Z',
      },
    ],
  });
  assert.equal(plan.statusChanged, true);
  // Scaling is said by the Progressing condition and the executor's SuccessfulCreate, not a planned event.
  assert.deepEqual(plan.events, []);
  assert.deepEqual(plan.requeue, { afterMs: 30_000, reason: 'PodsNotReady' });
  assert.equal(plan.finalizer, null);
});

test('the finalizer is added when missing', () => {
  const ps = podSet();
  ps.metadata.finalizers = ['other'];
  assert.equal(reconcile(ps, [], at(0)).finalizer, 'add');
});

test('settled: nothing to do, status unchanged, no requeue; lastTransitionTime preserved', () => {
  const ps = podSet({ replicas: 2 });
  const pods = [pod({ name: 'web-a', node: 'n' }), pod({ name: 'web-b', node: 'n' })];
  const first = reconcile(ps, pods, at(0));
  assert.equal(first.statusChanged, true);
  const again = reconcile(withStatus(ps, first.status), pods, at(100));
  assert.deepEqual(again.creates, []);
  assert.deepEqual(again.deletes, []);
  assert.deepEqual(again.events, []);
  assert.equal(again.requeue, null);
  assert.equal(again.statusChanged, false);
  assert.deepEqual(again.status, first.status);
  assert.equal(getCondition(again.status, 'Available')?.status, 'True');
  assert.equal(getCondition(again.status, 'Progressing')?.status, 'True');
  assert.equal(getCondition(again.status, 'Progressing')?.reason, 'PodSetAvailable');
});

test('surplus: delete the worst first, with UIDs; count and names in status', () => {
  const ps = podSet({ replicas: 2 });
  const pods = [
    pod({ name: 'ready-old', node: 'n', created: 0 }),
    pod({ name: 'ready-young', node: 'n', created: 9 }),
    pod({ name: 'notready', node: 'n', ready: false }),
    pod({ name: 'pending', node: 'n', phase: 'Pending', ready: false }),
    pod({ name: 'unscheduled', phase: 'Pending', ready: false }),
  ];
  const plan = reconcile(ps, pods, at(0));
  assert.deepEqual(plan.creates, []);
  assert.deepEqual(plan.deletes, [
    { namespace: 'default', name: 'unscheduled', uid: 'uid-unscheduled', reason: 'Surplus' },
    { namespace: 'default', name: 'pending', uid: 'uid-pending', reason: 'Surplus' },
    { namespace: 'default', name: 'notready', uid: 'uid-notready', reason: 'Surplus' },
  ]);
  // Counted as the API holds them once the deletes went through.
  assert.equal(plan.status.replicas, 2);
  assert.equal(plan.status.readyReplicas, 2);
  assert.deepEqual(plan.status.podNames, ['ready-old', 'ready-young']);
  // Nothing left to delete after this pass: Progressing says what the pods left are.
  assert.equal(getCondition(plan.status, 'Progressing')?.reason, 'PodSetAvailable');
  assert.deepEqual(plan.events, []);
  assert.deepEqual(plan.requeue, { afterMs: 30_000, reason: 'PodsNotReady' });
});

test('pods of another PodSet UID (same name, label) are ignored entirely', () => {
  const ps = podSet({ replicas: 1 });
  const foreign = [pod({ name: 'old-1', owner: 'old-uid' }), pod({ name: 'orphan', owner: null })];
  const plan = reconcile(ps, [...foreign, pod({ name: 'mine', node: 'n' })], at(0));
  assert.deepEqual(plan.deletes, []);
  assert.equal(plan.creates.length, 0);
  assert.deepEqual(plan.status.podNames, ['mine']);
  const plan2 = reconcile(podSet({ replicas: 0 }), foreign, at(0));
  assert.deepEqual(plan2.deletes, []);
  assert.equal(plan2.status.replicas, 0);
});

test('terminating pods are neither counted nor deleted again; they are replaced', () => {
  const ps = podSet({ replicas: 2 });
  const pods = [pod({ name: 'a', node: 'n' }), pod({ name: 'gone', node: 'n', deleting: true })];
  const plan = reconcile(ps, pods, at(0));
  assert.equal(plan.creates.length, 1);
  assert.deepEqual(plan.deletes, []);
  assert.deepEqual(plan.status.podNames, ['a']);
  const down = reconcile(podSet({ replicas: 0 }), pods, at(0));
  assert.deepEqual(
    down.deletes.map((d) => d.name),
    ['a'],
  );
});

test('finished pods are replaced and only the youngest 3 are kept', () => {
  const ps = podSet({ replicas: 1 });
  const finished = [0, 1, 2, 3, 4].map((i) =>
    pod({ name: `f${i}`, node: 'n', phase: i % 2 ? 'Failed' : 'Succeeded', ready: false, created: i }),
  );
  const plan = reconcile(ps, finished, at(0));
  assert.equal(plan.creates.length, 1);
  assert.equal(plan.status.replicas, 1, 'the pod it creates; finished pods are not counted');
  assert.deepEqual(plan.deletes, [
    { namespace: 'default', name: 'f1', uid: 'uid-f1', reason: 'Finished' },
    { namespace: 'default', name: 'f0', uid: 'uid-f0', reason: 'Finished' },
  ]);
  const keepNone = reconcile(ps, finished, at(0), { finishedPodsToKeep: 0 });
  assert.equal(keepNone.deletes.length, 5);
});

test('a PodSet being deleted: delete all its pods, then remove the finalizer; status untouched', () => {
  const ps = podSet({ replicas: 3 });
  ps.metadata.deletionTimestamp = '2026-01-01T00:10:00Z';
  ps.status = { replicas: 3 };
  const pods = [
    pod({ name: 'a' }),
    pod({ name: 'b', phase: 'Failed' }),
    pod({ name: 'c', deleting: true }),
    pod({ name: 'x', owner: 'other' }),
  ];
  const plan = reconcile(deepFreeze(ps), deepFreeze(pods), at(0));
  assert.equal(plan.mode, 'cleanup');
  assert.deepEqual(plan.creates, []);
  assert.deepEqual(plan.deletes.map((d) => [d.name, d.reason]).sort(), [
    ['a', 'Cleanup'],
    ['b', 'Cleanup'],
  ]);
  assert.equal(plan.finalizer, 'remove');
  assert.equal(plan.statusChanged, false);
  assert.deepEqual(plan.status, { replicas: 3 });
  assert.equal(plan.requeue, null);
  const capped = reconcile(ps, pods, at(0), { maxDeletesPerPass: 1 });
  assert.equal(capped.deletes.length, 1);
  assert.equal(capped.finalizer, null, 'the finalizer stays until every pod is asked to go');
  assert.deepEqual(capped.requeue, { afterMs: 0, reason: 'MoreWork' });
  const noFinalizer = structuredClone(ps);
  noFinalizer.metadata.finalizers = [];
  const withoutOurs = reconcile(noFinalizer, [pod({ name: 'web-a', ready: true })], at(0));
  assert.equal(withoutOurs.finalizer, null);
  assert.deepEqual(withoutOurs.deletes, [], 'without our finalizer its pods are the garbage collector’s');
});

test('a name too long for the label: no pods, ReplicaFailure InvalidName, one Warning event', () => {
  const ps = podSet({ name: 'n'.repeat(64) });
  const plan = reconcile(ps, [], at(0));
  assert.deepEqual(plan.creates, []);
  const f = getCondition(plan.status, 'ReplicaFailure');
  assert.equal(f?.status, 'True');
  assert.equal(f?.reason, 'InvalidName');
  assert.equal(plan.events[0]?.type, 'Warning');
  assert.equal(plan.requeue, null);
  const again = reconcile(withStatus(ps, plan.status), [], at(30));
  assert.deepEqual(again.events, [], 'no repeated event');
  assert.equal(again.statusChanged, false);
});

test('InvalidSpec clears itself once fixed', () => {
  const bad = podSet({ replicas: 2 });
  bad.spec!.replicas = -3;
  const p1 = reconcile(bad, [], at(0));
  assert.equal(getCondition(p1.status, 'ReplicaFailure')?.reason, 'InvalidSpec');
  const p2 = reconcile(withStatus(podSet({ replicas: 2 }), p1.status), [], at(10));
  assert.equal(getCondition(p2.status, 'ReplicaFailure'), undefined);
  assert.equal(p2.creates.length, 2);
});

test('an executor failure stays while work remains (time kept by withFailure), goes once settled', () => {
  const ps = podSet({ replicas: 2 });
  const p1 = reconcile(ps, [], at(0));
  const failed = withFailure(p1.status, 'FailedCreate', 'pods "web-" is forbidden: exceeded quota', at(1));
  const p2 = reconcile(withStatus(ps, failed), [], at(20));
  const carried = getCondition(p2.status, 'ReplicaFailure');
  assert.equal(carried?.reason, 'FailedCreate');
  assert.equal(
    withFailure(p2.status, 'FailedCreate', 'again', at(40)).conditions?.at(-1)?.lastTransitionTime,
    '2026-01-01T00:00:01Z',
  );
  const pods = [pod({ name: 'a', node: 'n' }), pod({ name: 'b', node: 'n' })];
  const p3 = reconcile(withStatus(ps, failed), pods, at(60));
  assert.equal(getCondition(p3.status, 'ReplicaFailure'), undefined);
});

test('creates and deletes are capped per pass, with an immediate requeue', () => {
  const plan = reconcile(podSet({ replicas: 10 }), [], at(0), { maxCreatesPerPass: 4 });
  assert.equal(plan.creates.length, 4);
  assert.deepEqual(plan.requeue, { afterMs: 0, reason: 'MoreWork' });
  const pods = Array.from({ length: 6 }, (_, i) => pod({ name: `p${i}`, node: 'n' }));
  const down = reconcile(podSet({ replicas: 0 }), pods, at(0), { maxDeletesPerPass: 2 });
  assert.equal(down.deletes.length, 2);
  assert.deepEqual(down.requeue, { afterMs: 0, reason: 'MoreWork' });
  assert.throws(() => reconcile(podSet(), [], at(0), { maxCreatesPerPass: -1 }), RangeError);
  assert.throws(() => reconcile(podSet(), [], Number.NaN), RangeError);
});

test('pods as client-node returns them (Date timestamps) work the same', () => {
  const pods: Pod[] = [pod({ name: 'a', node: 'n', created: 1 }), pod({ name: 'b', node: 'n', created: 2 })];
  for (const p of pods) p.metadata!.creationTimestamp = new Date(p.metadata!.creationTimestamp as string);
  const plan = reconcile(podSet({ replicas: 1 }), pods, T0);
  assert.deepEqual(
    plan.deletes.map((d) => d.name),
    ['b'],
  );
});

test('the owner UID of created pods is the PodSet UID', () => {
  const plan = reconcile(podSet({ replicas: 1 }), [], at(0));
  assert.equal(plan.creates[0]?.metadata.ownerReferences[0]?.uid, UID);
});

test('a pass creating 10 pods makes one manifest, frozen, not a copy per pod (no structuredClone)', () => {
  let clones = 0;
  const real = globalThis.structuredClone;
  globalThis.structuredClone = ((...a: Parameters<typeof structuredClone>) => {
    clones++;
    return real(...a);
  }) as typeof structuredClone;
  let plan;
  try {
    plan = reconcile(deepFreeze(podSet({ replicas: 10 })), [], at(0));
  } finally {
    globalThis.structuredClone = real;
  }
  assert.equal(plan.creates.length, 10);
  assert.equal(new Set(plan.creates).size, 1, 'the same manifest ten times');
  assert.equal(clones, 1, "the template's spec, copied once into the manifest");
  const m = plan.creates[0]!;
  for (const part of [m, m.metadata, m.metadata.labels, m.metadata.ownerReferences, m.spec]) {
    assert.ok(Object.isFrozen(part), "frozen: a holder cannot change the others' pods");
  }
});

test('a PodSet deleted with orphan propagation: no pod is deleted, the finalizer goes; each cleanup delete is conditional on the pod as read', () => {
  const ps = podSet({ replicas: 2 });
  ps.metadata.deletionTimestamp = '2026-01-01T00:10:00Z';
  const pods = [pod({ name: 'a' }), pod({ name: 'b' })];
  pods.forEach((p, i) => (p.metadata!.resourceVersion = String(10 + i)));
  const orphaning = structuredClone(ps);
  orphaning.metadata.finalizers = [...(ps.metadata.finalizers ?? []), ORPHAN_FINALIZER];
  const plan = reconcile(deepFreeze(orphaning), deepFreeze(pods), at(0));
  assert.equal(plan.mode, 'cleanup');
  assert.deepEqual(plan.deletes, [], 'the garbage collector frees them; none is deleted');
  assert.equal(plan.finalizer, 'remove');
  assert.deepEqual(
    plan.events.map((e) => e.reason),
    ['Orphaning'],
  );
  // Once the collector freed them (the orphan finalizer gone), they are no longer controlled: none goes.
  const freed = pods.map((p) => pod({ name: p.metadata!.name!, owner: null }));
  const after = reconcile(ps, freed, at(0));
  assert.deepEqual(after.deletes, []);
  assert.equal(after.finalizer, 'remove');
  // A background delete: each pod goes only as it was read (a pod freed meanwhile answers 409).
  const background = reconcile(ps, pods, at(0));
  assert.deepEqual(background.deletes.map((d) => d.resourceVersion).sort(), ['10', '11']);
});
