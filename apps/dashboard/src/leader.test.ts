import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Lease } from '@podset/kube';
import { leaderOf } from './leader.ts';

const lease = (spec: Lease['spec']): Lease => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'podset-watcher', namespace: 'ops' },
  spec,
});
const T = Date.parse('2026-01-01T00:00:00Z');

test('leaderOf: leading while renewed within the duration, then expired; released; no Lease', () => {
  const held = lease({
    holderIdentity: 'watcher-1',
    leaseDurationSeconds: 15,
    renewTime: '2026-01-01T00:00:00.000000Z',
    acquireTime: '2025-12-31T23:00:00.000000Z',
    leaseTransitions: 3,
  });
  assert.deepEqual(leaderOf(held, 'ops/podset-watcher', T + 15_000), {
    lease: 'ops/podset-watcher',
    state: 'leading',
    holder: 'watcher-1',
    renewedAt: T,
    acquiredAt: T - 3_600_000,
    leaseDurationSeconds: 15,
    transitions: 3,
  });
  assert.equal(leaderOf(held, 'ops/podset-watcher', T + 15_001).state, 'expired');
  assert.equal(leaderOf(held, 'ops/podset-watcher', T + 15_001).holder, 'watcher-1');
  const released = lease({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: null });
  assert.deepEqual(leaderOf(released, 'ops/podset-watcher', T), {
    lease: 'ops/podset-watcher',
    state: 'released',
    leaseDurationSeconds: 1,
  });
  assert.deepEqual(leaderOf(undefined, 'ops/podset-watcher', T), {
    lease: 'ops/podset-watcher',
    state: 'none',
  });
  // A holder without a renewTime cannot be shown to be alive.
  assert.equal(leaderOf(lease({ holderIdentity: 'w' }), 'x/y', T).state, 'expired');
});
