import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSet } from '@podset/reconcile';
import { statusView } from './status-view.ts';

function ps(
  status: NonNullable<PodSet['status']>,
  over: { generation?: number; paused?: boolean } = {},
): PodSet {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', generation: over.generation ?? 2 },
    spec: { replicas: 3, ...(over.paused ? { paused: true } : {}) },
    status,
  };
}

test('the steps kubectl rollout status reports for a Deployment, in its order', () => {
  const seen = { observedGeneration: 2 };
  assert.match(statusView(ps({ observedGeneration: 1 })).message, /spec update to be observed/);
  assert.match(
    statusView(ps({ ...seen, updatedReplicas: 1, replicas: 4 })).message,
    /1 out of 3 new replicas have been updated/,
  );
  assert.match(
    statusView(ps({ ...seen, updatedReplicas: 3, replicas: 4 })).message,
    /1 old replicas are pending termination/,
  );
  assert.match(
    statusView(ps({ ...seen, updatedReplicas: 3, replicas: 3, availableReplicas: 2 })).message,
    /2 of 3 updated replicas are available/,
  );
  assert.deepEqual(statusView(ps({ ...seen, updatedReplicas: 3, replicas: 3, availableReplicas: 3 })), {
    kind: 'done',
    message: 'podset "web" successfully rolled out',
  });
});

test('past the progress deadline, or paused: a failure, not a wait', () => {
  const stalled = ps({
    observedGeneration: 2,
    conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
  });
  assert.equal(statusView(stalled).kind, 'failed');
  assert.equal(statusView(ps({ observedGeneration: 2 }, { paused: true })).kind, 'failed');
});
