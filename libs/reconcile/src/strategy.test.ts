import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSet } from '../test/fixtures.ts';
import { parseIntOrPercent, resolveStrategy, strategyProblem } from './strategy.ts';
import type { PodSet, PodSetSpec } from './types.ts';

const withStrategy = (strategy: PodSetSpec['strategy'], extra: Partial<PodSetSpec> = {}): PodSet => {
  const ps = podSet();
  ps.spec = { ...ps.spec, strategy, ...extra };
  return ps;
};

test('defaults: RollingUpdate 25%/25%, rounded as Deployments round (surge up, unavailable down)', () => {
  assert.deepEqual(resolveStrategy(podSet(), 4), { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 1 });
  assert.deepEqual(resolveStrategy(podSet(), 10), { type: 'RollingUpdate', maxSurge: 3, maxUnavailable: 2 });
  assert.deepEqual(resolveStrategy(podSet(), 3), { type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0 });
});

test('ints are taken as given; maxUnavailable is at most replicas', () => {
  const ps = withStrategy({ type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 9 } });
  assert.deepEqual(resolveStrategy(ps, 4), { type: 'RollingUpdate', maxSurge: 2, maxUnavailable: 4 });
});

test('percents that both round to 0 leave maxUnavailable 1, so a rollout can move', () => {
  const ps = withStrategy({ rollingUpdate: { maxSurge: 0, maxUnavailable: '10%' } });
  assert.deepEqual(resolveStrategy(ps, 4), { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 });
  assert.equal(strategyProblem(ps), undefined);
});

test('Recreate resolves to no bounds', () => {
  assert.deepEqual(resolveStrategy(withStrategy({ type: 'Recreate' }), 4), { type: 'Recreate' });
});

test('problems are named with their field', () => {
  const cases: [PodSet, RegExp][] = [
    [withStrategy({ rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }), /may not both be 0/],
    [withStrategy({ rollingUpdate: { maxSurge: '0%', maxUnavailable: 0 } }), /may not both be 0/],
    [
      withStrategy({ type: 'Recreate', rollingUpdate: {} }),
      /rollingUpdate may not be set when type is Recreate/,
    ],
    [withStrategy({ rollingUpdate: { maxSurge: -1 } }), /maxSurge must be an integer >= 0 or a percent/],
    [withStrategy({ rollingUpdate: { maxSurge: '1.5%' } }), /maxSurge must be/],
    [withStrategy({ rollingUpdate: { maxUnavailable: '150%' } }), /maxUnavailable must be at most 100%/],
    [
      withStrategy({ type: 'BlueGreen' as 'Recreate' }),
      /spec.strategy.type must be RollingUpdate or Recreate/,
    ],
    [withStrategy(undefined, { minReadySeconds: -5 }), /spec.minReadySeconds must be an integer >= 0/],
  ];
  for (const [ps, re] of cases) assert.match(strategyProblem(ps) ?? '(none)', re);
  assert.equal(strategyProblem(podSet()), undefined);
  assert.equal(
    strategyProblem(withStrategy({ rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } })),
    undefined,
  );
});

test('parseIntOrPercent', () => {
  assert.deepEqual(parseIntOrPercent(3, 'f'), { value: 3, percent: false });
  assert.deepEqual(parseIntOrPercent('40%', 'f'), { value: 40, percent: true });
  for (const bad of ['40', 1.5, -1, '%', null])
    assert.ok(parseIntOrPercent(bad, 'f') instanceof Error, String(bad));
});
