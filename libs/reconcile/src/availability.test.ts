import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pod, podSet, T0 } from '../test/fixtures.ts';
import { availableCondition, minimumAvailable } from './availability.ts';
import { getCondition } from './conditions.ts';
import { reconcile } from './plan.ts';
import { resolveStrategy } from './strategy.ts';
import type { PodSet } from './types.ts';

const at = (s: number) => new Date(T0 + s * 1000);
const rolling = (desired: number) => resolveStrategy(podSet(), desired);

test('Available is True while available >= replicas - maxUnavailable (a percent rounds down)', () => {
  // 10 replicas, 25%: 2.5 rounds down to 2, so 8 are needed.
  const a = { desired: 10, strategy: rolling(10), minReadySeconds: 0 };
  assert.equal(minimumAvailable({ ...a, available: 0 }), 8);
  assert.deepEqual(availableCondition({ ...a, available: 8 }), {
    type: 'Available',
    status: 'True',
    reason: 'MinimumReplicasAvailable',
    message: '8/10 replicas ready, at least 8 needed',
  });
  const below = availableCondition({ ...a, available: 7 });
  assert.equal(below.status, 'False');
  assert.equal(below.reason, 'MinimumReplicasUnavailable');
});

test('Recreate tolerates no unavailable pod, as Deployments reckon it', () => {
  const a = { desired: 4, strategy: { type: 'Recreate' as const }, minReadySeconds: 5 };
  assert.equal(availableCondition({ ...a, available: 3 }).status, 'False');
  assert.equal(
    availableCondition({ ...a, available: 4 }).message,
    '4/4 replicas available, at least 4 needed',
  );
});

test('0 replicas are Available; maxUnavailable above replicas needs none', () => {
  assert.equal(
    availableCondition({ desired: 0, available: 0, strategy: rolling(0), minReadySeconds: 0 }).status,
    'True',
  );
  const wide = { type: 'RollingUpdate' as const, maxSurge: 1, maxUnavailable: 9 };
  assert.equal(minimumAvailable({ desired: 4, available: 0, strategy: wide, minReadySeconds: 0 }), 0);
});

test('a scale-up from 4 to 5 ready pods keeps the PodSet Available while the new pod starts', () => {
  const four = Array.from({ length: 4 }, (_, i) => pod({ name: `web-${i}`, node: 'n' }));
  const settled = reconcile(podSet({ replicas: 4 }), four, at(0));
  assert.equal(getCondition(settled.status, 'Available')?.reason, 'MinimumReplicasAvailable');
  const scaled: PodSet = { ...podSet({ replicas: 5, generation: 2 }), status: settled.status };
  const up = reconcile(scaled, four, at(10));
  assert.equal(up.creates.length, 1);
  const available = getCondition(up.status, 'Available');
  assert.equal(available?.status, 'True', '4 >= 5 - 1');
  assert.equal(available?.lastTransitionTime, '2026-01-01T00:00:00Z', 'no transition');
  // Scaling to 8 needs 6 available (25% of 8 = 2): 4 are not enough.
  const big = reconcile({ ...podSet({ replicas: 8, generation: 3 }), status: settled.status }, four, at(10));
  assert.equal(getCondition(big.status, 'Available')?.reason, 'MinimumReplicasUnavailable');
});
