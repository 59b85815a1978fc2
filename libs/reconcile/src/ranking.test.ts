import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod } from '../test/fixtures.ts';
import {
  DELETION_COST_ANNOTATION,
  compareForDeletion,
  deletionCost,
  rankFinishedForRetention,
  rankForDeletion,
} from './ranking.ts';

const names = (ps: { metadata?: { name?: string } }[]) => ps.map((p) => p.metadata?.name);

test('unscheduled before scheduled, whatever else', () => {
  const a = pod({ name: 'sched', node: 'n1', phase: 'Pending', ready: false, created: 100 });
  const b = pod({ name: 'unsched', phase: 'Running', ready: true, created: 0 });
  assert.deepEqual(names(rankForDeletion([a, b])), ['unsched', 'sched']);
});

test('Pending before Unknown before Running', () => {
  const ps = [
    pod({ name: 'run', node: 'n', phase: 'Running', ready: false }),
    pod({ name: 'unk', node: 'n', phase: 'Unknown', ready: false }),
    pod({ name: 'pend', node: 'n', phase: 'Pending', ready: false }),
  ];
  assert.deepEqual(names(rankForDeletion(ps)), ['pend', 'unk', 'run']);
});

test('not ready before ready', () => {
  const ps = [pod({ name: 'r', node: 'n' }), pod({ name: 'nr', node: 'n', ready: false })];
  assert.deepEqual(names(rankForDeletion(ps)), ['nr', 'r']);
});

test('youngest first, then by name; a pod without creation time counts as youngest', () => {
  const ps = [
    pod({ name: 'old', node: 'n', created: 0 }),
    pod({ name: 'young', node: 'n', created: 50 }),
    pod({ name: 'b-mid', node: 'n', created: 10 }),
    pod({ name: 'a-mid', node: 'n', created: 10 }),
  ];
  const noTime = pod({ name: 'z-none', node: 'n' });
  delete noTime.metadata!.creationTimestamp;
  assert.deepEqual(names(rankForDeletion([...ps, noTime])), ['z-none', 'young', 'a-mid', 'b-mid', 'old']);
});

test('Date creation timestamps (client-node) rank like strings', () => {
  const a = pod({ name: 'a', created: 5 });
  const b = pod({ name: 'b', created: 9 });
  b.metadata!.creationTimestamp = new Date(b.metadata!.creationTimestamp as string);
  assert.deepEqual(names(rankForDeletion([a, b])), ['b', 'a']);
});

test('the order is total and antisymmetric; rank does not mutate its input', () => {
  const ps = [pod({ name: 'x' }), pod({ name: 'x', uid: 'u2' }), pod({ name: 'y', ready: false })];
  const copy = structuredClone(ps);
  for (const a of ps)
    for (const b of ps) {
      assert.equal(Math.sign(compareForDeletion(a, b)) + Math.sign(compareForDeletion(b, a)), 0);
      assert.equal(compareForDeletion(a, b) === 0, a === b, 'only a pod equals itself');
    }
  rankForDeletion(ps);
  assert.deepEqual(ps, copy);
});

test('finished pods: youngest kept first', () => {
  const ps = [
    pod({ name: 'f1', phase: 'Failed', created: 1 }),
    pod({ name: 'f3', phase: 'Failed', created: 3 }),
  ];
  assert.deepEqual(names(rankFinishedForRetention(ps)), ['f3', 'f1']);
});

test('pod-deletion-cost: lower cost first, after the scheduled, phase and readiness rules, before age', () => {
  const withCost = (value: string | undefined, o: Parameters<typeof pod>[0]) => {
    const p = pod({ node: 'n', created: 0, ...o });
    if (value !== undefined) p.metadata!.annotations = { [DELETION_COST_ANNOTATION]: value };
    return p;
  };
  const ps = [
    withCost('-5', { name: 'young-cheap', created: 90 }),
    withCost('-10', { name: 'old-cheaper' }),
    withCost(undefined, { name: 'default', created: 99 }),
    withCost('100', { name: 'costly', created: 100 }),
    withCost('abc', { name: 'bad-value', created: 98 }),
    withCost('2147483648', { name: 'too-big', created: 97 }),
    withCost('1000', { name: 'not-ready-costly', ready: false }),
    withCost('1000', { name: 'pending-costly', phase: 'Pending', ready: false }),
  ];
  assert.deepEqual(names(rankForDeletion(ps)), [
    'pending-costly',
    'not-ready-costly',
    'old-cheaper',
    'young-cheap',
    'default',
    'bad-value',
    'too-big',
    'costly',
  ]);
});

test('deletionCost reads an int32 and takes anything else as 0', () => {
  const withCost = (v: string) => {
    const p = pod({ name: 'p' });
    p.metadata!.annotations = { [DELETION_COST_ANNOTATION]: v };
    return deletionCost(p);
  };
  assert.equal(withCost('-2147483648'), -(2 ** 31));
  assert.equal(withCost('+7'), 7);
  assert.equal(withCost(' 7'), 0);
  assert.equal(withCost('1.5'), 0);
  assert.equal(deletionCost(pod({ name: 'p' })), 0);
});
