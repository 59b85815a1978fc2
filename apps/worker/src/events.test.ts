import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '@podset/log';
import { fakeKube } from '../test/fake-kube.ts';
import { createEventRecorder } from './events.ts';

const podset = { namespace: 'default', name: 'web', uid: 'u1' };

test('Event timestamps are metav1.Time as Kubernetes writes them: RFC 3339, whole seconds', async () => {
  const f = fakeKube();
  let t = Date.parse('2026-11-24T13:40:21.789Z');
  const events = createEventRecorder({
    kube: f.kube,
    log: silentLogger,
    instance: 'test',
    clock: { now: () => t },
  });
  await events.record(podset, 'Warning', 'FailedCreate', '1 of 1 creates rejected: Invalid');
  assert.equal(f.events.length, 1);
  assert.equal(f.events[0]!.firstTimestamp, '2026-11-24T13:40:21Z');
  assert.equal(f.events[0]!.lastTimestamp, '2026-11-24T13:40:21Z');
  t = Date.parse('2026-11-24T13:41:05.250Z');
  await events.record(podset, 'Warning', 'FailedCreate', '1 of 1 creates rejected: Invalid');
  assert.equal(f.events.length, 1, 'the repeat updates the same Event');
  assert.equal(f.events[0]!.count, 2);
  assert.equal(f.events[0]!.firstTimestamp, '2026-11-24T13:40:21Z');
  assert.equal(f.events[0]!.lastTimestamp, '2026-11-24T13:41:05Z');
});
