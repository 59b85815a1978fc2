import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HASH, pod, podSet, T0, type PodOpts } from '../test/fixtures.ts';
import { getCondition } from './conditions.ts';
import { reconcile } from './plan.ts';
import { settle } from './settle.ts';
import type { Plan, Pod, PodSet } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);
const pods = (prefix: string, n: number, o: Partial<PodOpts> = {}): Pod[] =>
  Array.from({ length: n }, (_, i) => pod({ name: `${prefix}${i}`, node: 'n', created: i, ...o }));
const withStatus = (ps: PodSet, plan: Plan): PodSet => ({ ...ps, status: plan.status });
const progressing = (plan: Plan) => getCondition(plan.status, 'Progressing');

/** A PodSet of 3 with a 60 s deadline whose pods never get ready, past its first pass at 0 s. */
function stuckScaleUp() {
  const ps = podSet({ replicas: 3 });
  ps.spec!.progressDeadlineSeconds = 60;
  const created = reconcile(ps, [], at(0));
  const waiting = reconcile(withStatus(ps, created), pods('web-', 3, { ready: false }), at(5));
  return { ps: withStatus(ps, waiting), waiting, stuck: pods('web-', 3, { ready: false }) };
}

test('a scale-up whose pods never get ready: Progressing True until the deadline, then False once, with a Warning', () => {
  const { ps, waiting, stuck } = stuckScaleUp();
  assert.equal(progressing(waiting)?.reason, 'WaitingForReady');
  assert.equal(
    progressing(waiting)?.lastUpdateTime,
    '2026-01-01T00:00:00Z',
    'the pods counted when they were created: no progress since',
  );

  const before = reconcile(ps, stuck, at(59));
  assert.equal(progressing(before)?.status, 'True');
  assert.equal(before.statusChanged, false, 'no progress, no news: nothing to write');
  assert.deepEqual(
    before.requeue,
    { afterMs: 1000, reason: 'ProgressDeadline' },
    'looks again at the deadline',
  );

  const past = reconcile(ps, stuck, at(65));
  const c = progressing(past);
  assert.deepEqual([c?.status, c?.reason], ['False', 'ProgressDeadlineExceeded']);
  assert.match(
    c?.message ?? '',
    /^The PodSet has made no progress for 60s \(progressDeadlineSeconds\): 3 pods not ready yet$/,
  );
  assert.deepEqual(past.events, [
    { type: 'Warning', reason: 'ProgressDeadlineExceeded', message: c?.message },
  ]);
  assert.deepEqual([past.creates, past.deletes], [[], []], 'nothing is undone');
  assert.equal(settle(past, ps.status, {}, at(65)).write, true);

  const later = reconcile(withStatus(ps, past), stuck, at(300));
  assert.deepEqual(later.events, [], 'said once');
  assert.equal(later.statusChanged, false);
  assert.equal(later.requeue?.reason, 'PodsNotReady', 'no deadline look once it passed');
});

test('progress after the deadline (a pod ready) starts the clock again, without an event', () => {
  const { ps, stuck } = stuckScaleUp();
  const past = reconcile(ps, stuck, at(65));
  const oneReady = [pod({ name: 'web-0', node: 'n' }), ...stuck.slice(1)];
  const again = reconcile(withStatus(ps, past), oneReady, at(70));
  const c = progressing(again);
  assert.deepEqual(
    [c?.status, c?.reason, c?.lastUpdateTime],
    ['True', 'WaitingForReady', '2026-01-01T00:01:10Z'],
  );
  assert.deepEqual(again.events, []);
});

test('a new template after the deadline starts a rollout with a fresh clock', () => {
  const { ps, stuck } = stuckScaleUp();
  const past = withStatus(ps, reconcile(ps, stuck, at(65)));
  past.spec!.template!.spec.containers[0]!.image = 'nginx:1.28';
  const plan = reconcile(past, stuck, at(70));
  const c = progressing(plan);
  assert.deepEqual([c?.status, c?.reason, c?.lastUpdateTime], ['True', 'RollingOut', '2026-01-01T00:01:10Z']);
  assert.ok(plan.events.some((e) => e.reason === 'RolloutStarted'));
});

test('a stalled rollout stays where it is, and still completes as a rollout once its pods get ready', () => {
  const ps = podSet({ replicas: 4 });
  ps.spec!.progressDeadlineSeconds = 30;
  ps.spec!.template!.spec.containers[0]!.image = 'nginx:1.28';
  ps.status = { templateHash: HASH };
  const old = pods('old', 4);
  const start = reconcile(ps, old, at(0));
  assert.equal(progressing(start)?.reason, 'RollingOut');
  // One old pod went, two new ones never get ready: the rollout is held by maxUnavailable.
  const held = [...old.slice(0, 3), ...pods('new', 2, { ready: false, hash: start.status.templateHash! })];
  const s1 = withStatus(ps, reconcile(withStatus(ps, start), held, at(2)));
  const stalled = reconcile(s1, held, at(40));
  assert.equal(progressing(stalled)?.reason, 'ProgressDeadlineExceeded');
  assert.match(
    progressing(stalled)?.message ?? '',
    /^Rollout of template [0-9a-f]{10} has made no progress for 30s/,
  );
  assert.deepEqual([stalled.creates.length, stalled.deletes.length], [0, 0], 'no rollback, no push');

  const fine = pods('new', 4, { hash: start.status.templateHash! });
  const done = reconcile(withStatus(ps, stalled), fine, at(60));
  assert.deepEqual([progressing(done)?.status, progressing(done)?.reason], ['True', 'PodSetAvailable']);
  assert.ok(done.events.some((e) => e.reason === 'RolloutComplete'));
});

test('with no other look planned, the deadline is one', () => {
  const ps = podSet({ replicas: 2 });
  ps.spec!.progressDeadlineSeconds = 120;
  const plan = reconcile(ps, pods('web-', 2, { ready: false }), at(0), { notReadyRequeueMs: 3_600_000 });
  assert.deepEqual(plan.requeue, { afterMs: 120_000, reason: 'ProgressDeadline' });
});

test('done: Progressing stays True (PodSetAvailable), with no clock, no lastUpdateTime, no look', () => {
  const plan = reconcile(podSet({ replicas: 2 }), pods('web-', 2), at(0));
  assert.deepEqual([progressing(plan)?.status, progressing(plan)?.reason], ['True', 'PodSetAvailable']);
  assert.equal(progressing(plan)?.lastUpdateTime, undefined);
  assert.equal(plan.requeue, null);
});

test('progressDeadlineSeconds not above minReadySeconds is an InvalidSpec that says why', () => {
  const ps = podSet({ replicas: 1 });
  ps.spec!.minReadySeconds = 30;
  ps.spec!.progressDeadlineSeconds = 30;
  const plan = reconcile(ps, [], at(0));
  assert.equal(plan.creates.length, 0);
  assert.match(
    getCondition(plan.status, 'ReplicaFailure')?.message ?? '',
    /progressDeadlineSeconds must be greater than minReadySeconds/,
  );
});

test('a clock started this pass is rounded to the second without a time text parsed back', () => {
  let parsed = 0;
  const real = Date.parse;
  Date.parse = (s: string) => {
    parsed++;
    return real(s);
  };
  let plan: Plan;
  try {
    plan = reconcile(podSet({ replicas: 3 }), [], new Date(T0 + 1_700));
  } finally {
    Date.parse = real;
  }
  assert.equal(parsed, 0);
  const progressing = getCondition(plan.status, 'Progressing');
  assert.equal(progressing?.lastUpdateTime, '2026-01-01T00:00:01Z', 'the clock starts at the second');
});
