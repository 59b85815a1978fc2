import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HASH, pod, podSet, T0, type PodOpts } from '../test/fixtures.ts';
import { getCondition } from './conditions.ts';
import { reconcile } from './plan.ts';
import { isPodReady } from './pod-state.ts';
import { rolloutStep, type RolloutInput } from './rollout.ts';
import { settle } from './settle.ts';
import type { Pod, PodSet } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);
const pods = (prefix: string, n: number, o: Partial<PodOpts> = {}): Pod[] =>
  Array.from({ length: n }, (_, i) => pod({ name: `${prefix}${i}`, node: 'n', created: i, ...o }));
const names = (xs: { pod: Pod }[]) => xs.map((d) => d.pod.metadata?.name);

function step(over: Partial<RolloutInput<Pod>>) {
  return rolloutStep<Pod>({
    desired: 4,
    strategy: { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 1 },
    current: [],
    outdated: [],
    outdatedTerminating: 0,
    isAvailable: isPodReady,
    ...over,
  });
}

test('rolling 4 pods with 1/1: one surge create and one outdated delete at a time', () => {
  const s = step({ outdated: pods('old', 4) });
  assert.equal(s.creates, 1, 'active 4 + 1 <= 5');
  assert.deepEqual(names(s.deletes), ['old3'], 'one available pod may go (4 - 1 >= 3), the youngest');
  assert.equal(s.deletes[0]?.reason, 'Outdated');
});

test('new pods not ready yet: an old pod goes only while availability allows', () => {
  const a = step({ current: pods('new', 1, { ready: false }), outdated: pods('old', 4) });
  assert.equal(a.creates, 0, '5 active already');
  assert.deepEqual(names(a.deletes), ['old3'], '4 available, 3 needed');
  const b = step({ current: pods('new', 1, { ready: false }), outdated: pods('old', 3) });
  assert.equal(b.creates, 1, 'room for one more: 4 active');
  assert.deepEqual(b.deletes, [], '3 available = 4 - 1: none may go');
  assert.equal(b.held, true, 'deletes held back by maxUnavailable');
});

test('outdated pods that are not available go at once, without using the budget', () => {
  const outdated = [...pods('old', 2), ...pods('sick', 2, { ready: false })];
  const s = step({ outdated, current: [] });
  assert.deepEqual(names(s.deletes), ['sick1', 'sick0'], '2 available < 3: only the unready go');
  const more = step({ outdated: [...pods('old', 4), ...pods('sick', 1, { ready: false })] });
  assert.deepEqual(names(more.deletes), ['sick0', 'old3'], 'unready first, then one available');
});

test('already below maxUnavailable: only unavailable pods go', () => {
  const outdated = [...pods('old', 2), ...pods('sick', 1, { ready: false })];
  const s = step({ outdated, current: pods('new', 1, { ready: false }) });
  assert.deepEqual(names(s.deletes), ['sick0']);
  assert.equal(s.creates, 1, 'up to 5 active: 4 + 1 surge, new ones count');
});

test('maxSurge 0: delete first, then create into the room', () => {
  const strategy = { type: 'RollingUpdate' as const, maxSurge: 0, maxUnavailable: 1 };
  const first = step({ strategy, outdated: pods('old', 4) });
  assert.equal(first.creates, 0);
  assert.equal(first.deletes.length, 1);
  const second = step({ strategy, outdated: pods('old', 3) });
  assert.equal(second.creates, 1);
  assert.equal(second.deletes.length, 0, '3 available = 4 - 1');
});

test('scale-down during a rollout removes outdated pods first', () => {
  const s = step({ desired: 2, current: pods('new', 2), outdated: pods('old', 3) });
  assert.deepEqual(
    s.deletes.map((d) => d.reason),
    ['Outdated', 'Outdated', 'Outdated'],
    '5 available, 2 - 0 needed: all outdated go (budget 4), no current one',
  );
  assert.equal(s.creates, 0);
});

test('plain scaling is the same step with nothing outdated', () => {
  assert.equal(step({ current: pods('p', 1) }).creates, 3);
  const down = step({ desired: 1, current: pods('p', 4) });
  assert.equal(down.deletes.length, 3);
  assert.ok(down.deletes.every((d) => d.reason === 'Surplus'));
});

test('Recreate: every outdated pod goes; nothing is created while one is left, even terminating', () => {
  const strategy = { type: 'Recreate' as const };
  const a = step({ strategy, outdated: pods('old', 4) });
  assert.equal(a.creates, 0);
  assert.equal(a.deletes.length, 4);
  const b = step({ strategy, outdatedTerminating: 2 });
  assert.equal(b.creates, 0);
  assert.equal(b.held, true);
  assert.equal(step({ strategy }).creates, 4);
});

// ---- the plan around it ----

const changed = (ps: PodSet = podSet({ replicas: 4 })): PodSet => {
  ps.spec!.template!.spec.containers[0]!.image = 'nginx:1.28';
  ps.metadata.generation = 2;
  ps.status = { templateHash: HASH };
  return ps;
};

test('a template change starts a rollout: RolloutStarted from the old hash, Progressing RollingOut', () => {
  const ps = changed();
  const plan = reconcile(ps, pods('old', 4), at(10));
  assert.equal(plan.creates.length, 1);
  assert.notEqual(plan.creates[0]?.metadata.labels['podset.io/template-hash'], HASH);
  assert.deepEqual(
    plan.deletes.map((d) => [d.name, d.reason]),
    [['old3', 'Outdated']],
  );
  assert.equal(getCondition(plan.status, 'Progressing')?.reason, 'RollingOut');
  // Counted after its writes: one new pod created, one available old pod deleted.
  assert.equal(plan.status.updatedReplicas, 1);
  assert.equal(plan.status.availableReplicas, 3);
  assert.equal(plan.status.replicas, 4);
  const started = plan.events.find((e) => e.reason === 'RolloutStarted');
  assert.ok(started, 'RolloutStarted');
  assert.match(started.message, new RegExp(`from ${HASH}\\)`));
  assert.equal(settle(plan, ps.status, {}, at(10)).write, true, 'the start is written at once');
  // Planned again from the status it wrote: not announced twice.
  const again = reconcile({ ...ps, status: plan.status }, pods('old', 4), at(11));
  assert.equal(
    again.events.some((e) => e.reason === 'RolloutStarted'),
    false,
  );
});

test('the rollout ends with a RolloutComplete event and Progressing True (PodSetAvailable)', () => {
  const ps = changed();
  const rolling = reconcile(ps, pods('old', 4), at(10));
  const newHash = rolling.status.templateHash!;
  const done = pods('new', 4, { hash: newHash });
  const plan = reconcile({ ...ps, status: rolling.status }, done, at(20));
  assert.equal(getCondition(plan.status, 'Progressing')?.reason, 'PodSetAvailable');
  assert.equal(getCondition(plan.status, 'Progressing')?.status, 'True');
  assert.equal(
    getCondition(plan.status, 'Progressing')?.lastTransitionTime,
    getCondition(rolling.status, 'Progressing')?.lastTransitionTime,
    'True all along: no transition',
  );
  assert.ok(plan.events.some((e) => e.reason === 'RolloutComplete'));
  assert.equal(plan.status.updatedReplicas, 4);
  assert.equal(plan.requeue, null);
  const settled = reconcile({ ...ps, status: plan.status }, done, at(30));
  assert.equal(settled.statusChanged, false, 'and stays so');
  assert.deepEqual(settled.events, []);
});

test('rolling stays RollingOut while the last new pods are not ready', () => {
  const ps = changed();
  const rolling = reconcile(ps, pods('old', 4), at(10));
  const newHash = rolling.status.templateHash!;
  const plan = reconcile(
    { ...ps, status: rolling.status },
    [...pods('new', 3, { hash: newHash }), pod({ name: 'new3', hash: newHash, ready: false })],
    at(20),
  );
  assert.equal(getCondition(plan.status, 'Progressing')?.reason, 'RollingOut');
  assert.deepEqual(plan.requeue, { afterMs: 30_000, reason: 'PodsNotReady' });
});

test('pods without a template-hash label (made before rollouts existed) are rolled once', () => {
  const ps = podSet({ replicas: 2 });
  const plan = reconcile(ps, pods('legacy', 2, { hash: null }), at(0));
  assert.equal(getCondition(plan.status, 'Progressing')?.reason, 'RollingOut');
  assert.match(plan.events.find((e) => e.reason === 'RolloutStarted')?.message ?? '', /from \(none\)/);
});

test('minReadySeconds: a pod Ready for less is not available; requeue when the first will be', () => {
  const ps = podSet({ replicas: 2 });
  ps.spec!.minReadySeconds = 30;
  const ready = [pod({ name: 'a', node: 'n', readySince: 0 }), pod({ name: 'b', node: 'n', readySince: 20 })];
  const plan = reconcile(ps, ready, at(40));
  assert.equal(plan.status.readyReplicas, 2);
  assert.equal(plan.status.availableReplicas, 1);
  assert.equal(getCondition(plan.status, 'Available')?.status, 'False');
  assert.equal(getCondition(plan.status, 'Available')?.message, '1/2 replicas available, at least 2 needed');
  assert.deepEqual(plan.requeue, { afterMs: 10_000, reason: 'PodsNotAvailable' });
  const later = reconcile({ ...ps, status: plan.status }, ready, at(50));
  assert.equal(later.status.availableReplicas, 2);
  assert.equal(later.requeue, null);
});

test('an invalid strategy is a ReplicaFailure that names it, and nothing is done', () => {
  const ps = podSet({ replicas: 3 });
  ps.spec!.strategy = { rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
  const plan = reconcile(ps, pods('p', 1), at(0));
  assert.deepEqual([plan.creates.length, plan.deletes.length], [0, 0]);
  assert.match(getCondition(plan.status, 'ReplicaFailure')?.message ?? '', /may not both be 0/);
});

test('Recreate: old pods go; the new ones come only after the last old one is gone', () => {
  const ps = changed();
  ps.spec!.strategy = { type: 'Recreate' };
  const first = reconcile(ps, pods('old', 4), at(10));
  assert.deepEqual([first.creates.length, first.deletes.length], [0, 4]);
  const terminating = pods('old', 4, { deleting: true });
  const waiting = reconcile({ ...ps, status: first.status }, terminating, at(11));
  assert.equal(waiting.creates.length, 0);
  assert.equal(waiting.requeue?.reason, 'PodsDeleting');
  assert.equal(getCondition(waiting.status, 'Progressing')?.reason, 'RollingOut');
  const clear = reconcile({ ...ps, status: waiting.status }, [], at(12));
  assert.equal(clear.creates.length, 4);
});

test('a pod deleted for free (not available) carries its resourceVersion; one deleted within the budget does not', () => {
  const withRv = (p: Pod, rv: string): Pod => ({ ...p, metadata: { ...p.metadata, resourceVersion: rv } });
  const ps = changed();
  const old = [
    ...pods('old', 3).map((p, i) => withRv(p, `1${i}`)),
    withRv(pod({ name: 'sick', node: 'n', ready: false, created: 9 }), '99'),
  ];
  const plan = reconcile(ps, old, at(10));
  const byName = new Map(plan.deletes.map((d) => [d.name, d]));
  assert.equal(byName.get('sick')?.resourceVersion, '99', 'unavailable: only as planned from');
  const budgeted = plan.deletes.filter((d) => d.name !== 'sick');
  assert.equal(budgeted.length, 0, '3 available, 3 needed: no budget');
  const roomier = reconcile(ps, [...old, withRv(pods('extra', 1)[0]!, '50')], at(10));
  const taken = roomier.deletes.find((d) => d.name !== 'sick');
  assert.ok(taken, 'one available pod goes within the budget');
  assert.equal(taken.resourceVersion, undefined, 'an available pod may change meanwhile: no precondition');
});

test('paused mid-rollout: pods of both templates stay; only the count follows replicas', () => {
  const mixed = { current: pods('new', 2), outdated: pods('old', 2), paused: true };
  assert.deepEqual(step(mixed), { creates: 0, deletes: [], held: false }, 'no replacement while paused');
  assert.equal(step({ ...mixed, desired: 5 }).creates, 1, 'a scale-up adds pods of the current template');
  const down = step({ ...mixed, desired: 3 });
  assert.deepEqual(
    names(down.deletes),
    ['old1'],
    'a scale-down takes pods of other templates first (the youngest)',
  );
  assert.equal(down.deletes[0]?.reason, 'Surplus');
});
