import assert from 'node:assert/strict';
import { test } from 'node:test';
import { T0 } from '../test/fixtures.ts';
import { getCondition, removeCondition, setCondition, withFailure, withoutFailure } from './conditions.ts';
import type { PodSetStatus } from './types.ts';

const t = (s: number) => new Date(T0 + s * 1000);

test('setCondition keeps lastTransitionTime while the status stays, changes it when it flips', () => {
  let c = setCondition(undefined, { type: 'Available', status: 'False', reason: 'A', message: 'a' }, t(0));
  assert.equal(c[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  c = setCondition(c, { type: 'Available', status: 'False', reason: 'B', message: 'b' }, t(10));
  assert.deepEqual(c, [
    {
      type: 'Available',
      status: 'False',
      reason: 'B',
      message: 'b',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    },
  ]);
  c = setCondition(c, { type: 'Available', status: 'True', reason: 'B', message: 'b' }, t(20.7));
  assert.equal(c[0]?.lastTransitionTime, '2026-01-01T00:00:20Z', 'second precision');
});

test('conditions are kept in the order Available, Progressing, ReplicaFailure; input not mutated', () => {
  const input = Object.freeze([
    Object.freeze({ type: 'ReplicaFailure' as const, status: 'True' as const, lastTransitionTime: 'x' }),
  ]);
  let c = setCondition(input, { type: 'Progressing', status: 'True', reason: 'r', message: 'm' }, t(0));
  c = setCondition(c, { type: 'Available', status: 'True', reason: 'r', message: 'm' }, t(0));
  assert.deepEqual(
    c.map((x) => x.type),
    ['Available', 'Progressing', 'ReplicaFailure'],
  );
  assert.deepEqual(
    removeCondition(c, 'Progressing').map((x) => x.type),
    ['Available', 'ReplicaFailure'],
  );
});

test('withFailure sets ReplicaFailure True, keeping the time across repeated failures; withoutFailure clears it', () => {
  const base: PodSetStatus = { replicas: 1, conditions: [] };
  const f1 = withFailure(base, 'FailedCreate', 'exceeded quota', t(5));
  const c1 = getCondition(f1, 'ReplicaFailure');
  assert.deepEqual(c1, {
    type: 'ReplicaFailure',
    status: 'True',
    reason: 'FailedCreate',
    message: 'exceeded quota',
    lastTransitionTime: '2026-01-01T00:00:05Z',
  });
  const f2 = withFailure(f1, 'FailedCreate', 'exceeded quota again', t(60));
  assert.equal(getCondition(f2, 'ReplicaFailure')?.lastTransitionTime, '2026-01-01T00:00:05Z');
  assert.equal(getCondition(f2, 'ReplicaFailure')?.message, 'exceeded quota again');
  assert.equal(f2.replicas, 1);
  assert.equal(getCondition(withoutFailure(f2), 'ReplicaFailure'), undefined);
  assert.deepEqual(base, { replicas: 1, conditions: [] }, 'input not mutated');
});
