import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoreEvent } from '@podset/kube';
import { warningSelector, warningsOf } from './kube-events.ts';

function event(fields: Partial<CoreEvent> & { uid?: string }): CoreEvent {
  const { uid, ...rest } = fields;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    involvedObject: { kind: 'PodSet', name: 'web', namespace: 'default', ...(uid ? { uid } : {}) },
    type: 'Warning',
    ...rest,
  };
}

test('warningsOf: Warnings only, of this PodSet (by uid), newest first, capped', () => {
  const w = warningsOf(
    [
      event({
        reason: 'FailedCreate',
        message: 'quota',
        count: 3,
        firstTimestamp: '2026-01-01T00:00:00Z',
        lastTimestamp: '2026-01-01T00:05:00Z',
        reportingComponent: 'podset-worker',
        uid: 'u1',
      }),
      event({ reason: 'Scaled', type: 'Normal', lastTimestamp: '2026-01-01T00:09:00Z', uid: 'u1' }),
      event({ reason: 'FailedDelete', message: 'old one', lastTimestamp: '2026-01-01T00:08:00Z', uid: 'u0' }),
      event({
        reason: 'FailedDelete',
        message: 'newer',
        eventTime: '2026-01-01T00:07:00.000000Z',
        source: { component: 'x' },
      }),
    ],
    'u1',
    10,
  );
  assert.deepEqual(w, [
    {
      reason: 'FailedDelete',
      message: 'newer',
      count: 1,
      firstAt: Date.parse('2026-01-01T00:07:00Z'),
      lastAt: Date.parse('2026-01-01T00:07:00Z'),
      source: 'x',
    },
    {
      reason: 'FailedCreate',
      message: 'quota',
      count: 3,
      firstAt: Date.parse('2026-01-01T00:00:00Z'),
      lastAt: Date.parse('2026-01-01T00:05:00Z'),
      source: 'podset-worker',
    },
  ]);
  assert.equal(warningsOf([event({}), event({}), event({})], undefined, 2).length, 2);
  assert.equal(warningSelector('web'), 'involvedObject.kind=PodSet,involvedObject.name=web,type=Warning');
});
