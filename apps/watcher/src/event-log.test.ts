import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventRecord } from './event-log.ts';

const now = new Date('2026-01-01T00:00:00.000Z');

test("a pod event records its owner key, its controlling PodSet's uid, phase and readiness", () => {
  const rec = eventRecord(
    'pods',
    'MODIFIED',
    {
      metadata: {
        name: 'web-x',
        namespace: 'prod',
        resourceVersion: '42',
        ownerReferences: [
          { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'u', controller: true },
        ],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    },
    now,
  );
  assert.deepEqual(rec, {
    t: '2026-01-01T00:00:00.000Z',
    type: 'MODIFIED',
    kind: 'Pod',
    key: 'prod/web',
    name: 'web-x',
    rv: '42',
    phase: 'Running',
    ready: 'true',
    owner: 'u',
  });
});

test('a PodSet event records its own key; deletion in progress is flagged', () => {
  const rec = eventRecord(
    'podsets',
    'MODIFIED',
    {
      metadata: {
        name: 'web',
        namespace: 'prod',
        resourceVersion: '7',
        deletionTimestamp: '2026-01-01T00:00:00Z',
      },
    },
    now,
  );
  assert.equal(rec.kind, 'PodSet');
  assert.equal(rec.key, 'prod/web');
  assert.equal(rec.deleting, 'true');
  assert.equal(rec.phase, undefined);
});

test('an unowned pod has an empty key', () => {
  assert.equal(eventRecord('pods', 'ADDED', { metadata: { name: 'x', namespace: 'd' } }, now).key, '');
});

test('a pod no PodSet controls records an empty owner: label only, another controller, or a non-controller ref', () => {
  const podWith = (
    ownerReferences: NonNullable<Parameters<typeof eventRecord>[2]['metadata']>['ownerReferences'],
  ) =>
    eventRecord(
      'pods',
      'DELETED',
      { metadata: { name: 'web-xyz', namespace: 'd', labels: { 'podset.io/name': 'web' }, ownerReferences } },
      now,
    );
  const labelOnly = podWith(undefined);
  assert.equal(labelOnly.owner, '');
  assert.equal(labelOnly.key, 'd/web', 'filed under the PodSet its label names');
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs', controller: true };
  assert.equal(podWith([rs]).owner, '');
  const ref = { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'u', controller: false };
  assert.equal(podWith([ref]).owner, '');
});

test('a PodSet event records no owner', () => {
  const rec = eventRecord('podsets', 'ADDED', { metadata: { name: 'web', namespace: 'd', uid: 'u' } }, now);
  assert.equal('owner' in rec, false);
});
