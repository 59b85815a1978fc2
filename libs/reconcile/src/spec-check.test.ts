import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSet } from '../test/fixtures.ts';
import { desiredReplicas, specProblem } from './spec-check.ts';
import type { PodSet } from './types.ts';

test('a valid PodSet has no problem; replicas default to 1', () => {
  assert.equal(specProblem(podSet()), undefined);
  const ps = podSet();
  delete ps.spec!.replicas;
  assert.equal(desiredReplicas(ps), 1);
  assert.equal(desiredReplicas({ metadata: {} }), 1);
});

test('names longer than 63 (the pod label value limit) are InvalidName; 63 is fine', () => {
  assert.equal(specProblem(podSet({ name: 'a'.repeat(63) })), undefined);
  const p = specProblem(podSet({ name: 'a'.repeat(64) }));
  assert.equal(p?.reason, 'InvalidName');
  assert.match(p?.message ?? '', /64 characters.*at most 63/);
});

test('bad replicas, missing uid, empty or broken containers are InvalidSpec', () => {
  const cases: ((p: PodSet) => void)[] = [
    (p) => (p.spec!.replicas = -1),
    (p) => (p.spec!.replicas = 10001),
    (p) => (p.spec!.replicas = 2.5),
    (p) => (p.metadata.uid = undefined),
    (p) => (p.spec!.template!.spec.containers = []),
    (p) => (p.spec!.template!.spec = {} as never),
    (p) => (p.spec!.template!.spec.containers = [{ name: 'a', image: '' }]),
    (p) => Object.assign(p.spec!.template!.spec, { restartPolicy: 'Never' }),
    (p) => Object.assign(p.spec!.template!.spec, { restartPolicy: 'OnFailure' }),
  ];
  for (const mutate of cases) {
    const ps = podSet();
    mutate(ps);
    assert.equal(specProblem(ps)?.reason, 'InvalidSpec', JSON.stringify(ps.spec));
  }
});
