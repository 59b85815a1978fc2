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

test('a scale-up whose creates all went through leaves the status to the next pass', () => {
  const plan = reconcile(podSet({ replicas: 3 }), [], at(0));
  assert.equal(plan.creates.length, 3);
  assert.equal(settle(plan, undefined, {}, at(0)).write, false);
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
