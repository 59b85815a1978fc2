import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod, podSet, T0 } from '../test/fixtures.ts';
import { getCondition } from './conditions.ts';
import { reconcile } from './plan.ts';
import { settle } from './settle.ts';
import type { PodSet } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);
const ready = (n: number) => Array.from({ length: n }, (_, i) => pod({ name: `web-${i}`, ready: true }));
const withStatus = (ps: PodSet, status: PodSet['status']): PodSet => ({ ...ps, status });

test('a scale-up is written after its creates, counting the pods made, with their names', () => {
  const ps = podSet({ replicas: 3 });
  const plan = reconcile(ps, [], at(0));
  assert.equal(plan.creates.length, 3);
  const made = ['web-x', 'web-a', 'web-m'];
  const done = settle(plan, undefined, { created: made, deleted: [] }, at(0));
  assert.equal(done.write, true);
  assert.equal(done.status.replicas, 3);
  assert.equal(done.status.updatedReplicas, 3);
  assert.equal(done.status.readyReplicas, 0);
  assert.deepEqual(done.status.podNames, ['web-a', 'web-m', 'web-x']);
  // The next pass sees those pods (not ready yet): it has nothing new to write but the reason.
  const seen = made.map((name) => pod({ name, node: 'n', ready: false }));
  const next = reconcile(withStatus(ps, done.status), seen, at(1));
  const written = settle(next, done.status, {}, at(1));
  assert.deepEqual(
    [written.status.replicas, written.status.podNames],
    [done.status.replicas, done.status.podNames],
  );
  assert.equal(getCondition(written.status, 'Progressing')?.reason, 'WaitingForReady');
  assert.equal(
    getCondition(written.status, 'Progressing')?.lastTransitionTime,
    getCondition(done.status, 'Progressing')?.lastTransitionTime,
    'True all along',
  );
  const after = reconcile(withStatus(ps, written.status), seen, at(2));
  assert.equal(settle(after, written.status, {}, at(2)).write, false);
});

test('creates not made are not counted; a pod whose delete failed is counted back', () => {
  const failure = { reason: 'FailedCreate', message: '2 of 3 pod creates rejected: 403 Forbidden' };
  const up = settle(
    reconcile(podSet({ replicas: 3 }), [], at(0)),
    undefined,
    { failure, created: ['web-a'] },
    at(0),
  );
  assert.deepEqual([up.status.replicas, up.status.updatedReplicas, up.status.podNames], [1, 1, ['web-a']]);

  const down = reconcile(podSet({ replicas: 1 }), ready(3), at(0));
  assert.equal(down.status.replicas, 1);
  const gone = down.deletes.map((d) => d.name);
  const oneFailed = settle(
    down,
    undefined,
    { failure: { reason: 'FailedDelete', message: '1 of 2 pod deletes failed' }, deleted: gone.slice(1) },
    at(0),
  );
  assert.equal(oneFailed.status.replicas, 2);
  assert.equal(oneFailed.status.readyReplicas, 2);
  assert.equal(oneFailed.status.availableReplicas, 2);
  assert.ok(oneFailed.status.podNames?.includes(gone[0]!));
});

test('a failed create writes ReplicaFailure at once; the same failure again writes nothing', () => {
  const ps = podSet({ replicas: 3 });
  const failure = { reason: 'FailedCreate', message: '1 of 3 pod creates rejected: 422 Invalid' };
  const first = settle(reconcile(ps, [], at(0)), undefined, { failure }, at(0));
  assert.equal(first.write, true);
  assert.equal(getCondition(first.status, 'ReplicaFailure')?.message, failure.message);
  const again = settle(
    reconcile(withStatus(ps, first.status), [], at(30)),
    first.status,
    { failure },
    at(30),
  );
  assert.equal(again.write, false, 'a stable message: nothing to rewrite');
  assert.equal(
    getCondition(again.status, 'ReplicaFailure')?.lastTransitionTime,
    getCondition(first.status, 'ReplicaFailure')?.lastTransitionTime,
  );
});

test('a pass whose writes went through after a failure clears ReplicaFailure at once', () => {
  const ps = podSet({ replicas: 3 });
  const failure = { reason: 'FailedCreate', message: '1 of 3 pod creates rejected: 403 Forbidden' };
  const failed = settle(reconcile(ps, [], at(0)), undefined, { failure }, at(0)).status;
  const fixed = settle(reconcile(withStatus(ps, failed), [], at(5)), failed, {}, at(5));
  assert.equal(fixed.write, true);
  assert.equal(getCondition(fixed.status, 'ReplicaFailure'), undefined);
});

test('a settled PodSet writes only when its status changed', () => {
  const ps = podSet({ replicas: 2 });
  const plan = reconcile(ps, ready(2), at(0));
  const first = settle(plan, undefined, {}, at(0));
  assert.equal(first.write, true);
  const again = settle(reconcile(withStatus(ps, first.status), ready(2), at(9)), first.status, {}, at(9));
  assert.equal(again.write, false);
});

test('a PodSet being deleted keeps its status', () => {
  const ps = {
    ...podSet({ replicas: 2 }),
    metadata: { ...podSet().metadata, deletionTimestamp: '2026-01-01T00:00:01Z' },
  };
  const plan = reconcile(ps, ready(2), at(0));
  assert.equal(plan.mode, 'cleanup');
  assert.equal(settle(plan, undefined, {}, at(0)).write, false);
});

test('the progress deadline passing is written at once, even in a pass that deletes pods', () => {
  const ps = podSet({ replicas: 2 });
  ps.spec!.progressDeadlineSeconds = 60;
  const stuck = [pod({ name: 'web-0', ready: false }), pod({ name: 'web-1', ready: false })];
  const first = reconcile(ps, stuck, at(0));
  // Two finished pods beyond the three kept: the pass that passes the deadline also deletes them.
  const finished = Array.from({ length: 5 }, (_, i) =>
    pod({ name: `done-${i}`, phase: 'Failed', ready: false }),
  );
  const past = reconcile(withStatus(ps, first.status), [...stuck, ...finished], at(60));
  assert.equal(past.deletes.length, 2);
  assert.equal(past.events[0]?.reason, 'ProgressDeadlineExceeded');
  assert.equal(settle(past, first.status, {}, at(60)).write, true);
});
