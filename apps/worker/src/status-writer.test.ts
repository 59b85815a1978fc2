import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeKube } from '../test/fake-kube.ts';
import { markReplicaFailure } from './status-writer.ts';

test('markReplicaFailure writes lastTransitionTime as Kubernetes does: RFC 3339, whole seconds', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 1);
  const now = new Date('2026-11-24T13:40:21.789Z');
  const written = await markReplicaFailure(f.kube, 'default', 'web', 'FailedCreate', 'quota', {
    now: () => now.getTime(),
  });
  const failure = written?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(failure?.status, 'True');
  assert.equal(failure?.lastTransitionTime, '2026-11-24T13:40:21Z');
});

test('markReplicaFailure keeps the transition time while ReplicaFailure stays True', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 1);
  const first = new Date('2026-11-24T13:40:21Z');
  await markReplicaFailure(f.kube, 'default', 'web', 'FailedCreate', 'quota', { now: () => first.getTime() });
  const later = new Date('2026-11-24T13:45:00Z');
  const written = await markReplicaFailure(f.kube, 'default', 'web', 'FailedCreate', 'again', {
    now: () => later.getTime(),
  });
  const failure = written?.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
  assert.equal(failure?.message, 'again');
  assert.equal(failure?.lastTransitionTime, '2026-11-24T13:40:21Z');
});
