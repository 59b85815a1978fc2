import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod, podSet, T0 } from '../test/fixtures.ts';
import { getCondition } from './conditions.ts';
import { reconcile } from './plan.ts';
import { settle } from './settle.ts';
import type { Plan, Pod, PodSet, PodSetStatus } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);
const stamp = (s: number) => at(s).toISOString().replace('.000Z', 'Z');
const progressing = (status: PodSetStatus | undefined) => getCondition(status, 'Progressing');
const pods = (prefix: string, n: number, ready: boolean): Pod[] =>
  Array.from({ length: n }, (_, i) => pod({ name: `${prefix}${i}`, node: 'n', ready }));
const withStatus = (ps: PodSet, status: PodSetStatus): PodSet => ({ ...ps, status });

/** One pass whose creates all went through, named `<prefix><i>`: the status it writes. */
function passCreating(
  ps: PodSet,
  existing: Pod[],
  s: number,
  prefix: string,
): { plan: Plan; status: PodSetStatus } {
  const plan = reconcile(ps, existing, at(s));
  const created = plan.creates.map((_, i) => `${prefix}${i}`);
  return { plan, status: settle(plan, ps.status, { created, deleted: [] }, at(s)).status };
}

test('a healthy PodSet is Progressing True, PodSetAvailable, with no clock running', () => {
  const plan = reconcile(podSet({ replicas: 2 }), pods('web-', 2, true), at(0));
  const c = progressing(plan.status);
  assert.deepEqual([c?.status, c?.reason], ['True', 'PodSetAvailable']);
  assert.match(c?.message ?? '', /^template [0-9a-f]{10} available: 2\/2 replicas ready$/);
  assert.equal(c?.lastUpdateTime, undefined);
  assert.equal(plan.requeue, null);
});

test('healthy → scaling → healthy: True throughout, its lastTransitionTime kept; the clock starts afresh', () => {
  const ps = podSet({ replicas: 2 });
  ps.spec!.progressDeadlineSeconds = 60;
  const healthy = reconcile(ps, pods('web-', 2, true), at(0)).status;
  const up = passCreating(
    withStatus({ ...ps, spec: { ...ps.spec!, replicas: 4 } }, healthy),
    pods('web-', 2, true),
    500,
    'new-',
  );
  const c = progressing(up.status);
  assert.deepEqual([c?.status, c?.reason, c?.message], ['True', 'WaitingForReady', '2 pods not ready yet']);
  assert.equal(c?.lastTransitionTime, stamp(0), 'no transition: True before and after');
  assert.equal(c?.lastUpdateTime, stamp(500), 'the clock starts now, not when it became healthy');
  assert.deepEqual(up.plan.requeue, { afterMs: 30_000, reason: 'PodsNotReady' });

  const all = [...pods('web-', 2, true), ...pods('new-', 2, true)];
  const done = reconcile(withStatus({ ...ps, spec: { ...ps.spec!, replicas: 4 } }, up.status), all, at(520));
  const d = progressing(done.status);
  assert.deepEqual([d?.status, d?.reason, d?.lastTransitionTime], ['True', 'PodSetAvailable', stamp(0)]);
  assert.equal(settle(done, up.status, {}, at(520)).write, true);
  const again = reconcile(
    withStatus({ ...ps, spec: { ...ps.spec!, replicas: 4 } }, done.status),
    all,
    at(600),
  );
  assert.equal(settle(again, done.status, {}, at(600)).write, false, 'healthy: nothing more to write');
});

test('a capped scale-up shows its replicas climbing pass by pass, each pass counted as progress', () => {
  const ps = podSet({ replicas: 1200 });
  ps.spec!.progressDeadlineSeconds = 60;
  let current: PodSet = ps;
  let existing: Pod[] = [];
  const seen: number[] = [];
  for (const [i, s] of [0, 50, 100].entries()) {
    const pass = passCreating(current, existing, s, `p${i}-`);
    assert.equal(pass.plan.requeue?.reason, i < 2 ? 'MoreWork' : 'PodsNotReady');
    const c = progressing(pass.status);
    // ScalingUp while more creates come; the last pass says what is left: its pods to get ready.
    const reason = i < 2 ? 'ScalingUp' : 'WaitingForReady';
    assert.deepEqual([c?.status, c?.reason, c?.lastUpdateTime], ['True', reason, stamp(s)]);
    assert.ok(pass.plan.events.every((e) => e.reason !== 'ProgressDeadlineExceeded'));
    seen.push(pass.status.replicas ?? 0);
    existing = [...existing, ...pods(`p${i}-`, pass.plan.creates.length, false)];
    current = withStatus(ps, pass.status);
  }
  assert.deepEqual(seen, [500, 1000, 1200]);
});

test('creates refused every pass do not restart the clock: the deadline passes', () => {
  const ps = podSet({ replicas: 3 });
  ps.spec!.progressDeadlineSeconds = 60;
  const failure = { reason: 'FailedCreate', message: '1 of 3 pod creates rejected: 403 Forbidden' };
  let status: PodSetStatus | undefined;
  for (const s of [0, 20, 40]) {
    const plan = reconcile(status ? withStatus(ps, status) : ps, [], at(s));
    assert.equal(plan.creates.length, 3);
    status = settle(plan, status, { failure, created: [] }, at(s)).status;
    assert.equal(status.replicas, 0);
    assert.equal(progressing(status)?.lastUpdateTime, stamp(0));
  }
  const past = reconcile(withStatus(ps, status!), [], at(61));
  const c = progressing(past.status);
  assert.deepEqual([c?.status, c?.reason], ['False', 'ProgressDeadlineExceeded']);
  assert.ok(past.events.some((e) => e.reason === 'ProgressDeadlineExceeded'));
});

test('a healthy PodSet scaled down in one pass: PodSetAvailable at once, never False; the next pass writes nothing', () => {
  const ps = podSet({ replicas: 1 });
  const plan = reconcile(ps, pods('web-', 3, true), at(0));
  assert.deepEqual(
    [progressing(plan.status)?.status, progressing(plan.status)?.reason],
    ['True', 'PodSetAvailable'],
  );
  assert.equal(plan.status.replicas, 1);
  const written = settle(plan, ps.status, {}, at(0)).status;
  const left = pods('web-', 3, true).filter((p) => !plan.deletes.some((d) => d.name === p.metadata?.name));
  const next = reconcile(withStatus(ps, written), left, at(1));
  assert.equal(settle(next, written, {}, at(1)).write, false);
});

test('a capped scale-down says ScalingDown while more deletes come', () => {
  const ps = podSet({ replicas: 0 });
  const plan = reconcile(ps, pods('web-', 600, true), at(0));
  assert.equal(plan.requeue?.reason, 'MoreWork');
  assert.deepEqual(
    [progressing(plan.status)?.status, progressing(plan.status)?.reason],
    ['True', 'ScalingDown'],
  );
});

// The pass that creates a PodSet's pods writes its status; the pass their watch events bring next finds
// the same counts, and must find the same conditions too, or it writes the status a second time for
// nothing a user could see move.
test('the pass after the last creates finds its status written already: nothing to write', () => {
  const ps = podSet({ replicas: 10 });
  ps.spec!.progressDeadlineSeconds = 60;
  const first = passCreating(ps, [], 0, 'web-');
  assert.equal(first.plan.creates.length, 10);
  const next = reconcile(withStatus(ps, first.status), pods('web-', 10, false), at(1));
  assert.deepEqual(next.creates, []);
  assert.equal(settle(next, first.status, {}, at(1)).write, false, JSON.stringify(progressing(next.status)));
  // One pod ready: that is news, written.
  const one = [pod({ name: 'web-0', node: 'n', ready: true }), ...pods('web-', 10, false).slice(1)];
  const moved = reconcile(withStatus(ps, first.status), one, at(2));
  assert.equal(settle(moved, first.status, {}, at(2)).write, true);
});
