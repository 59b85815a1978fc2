import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queue } from 'bullmq';
import type { PodSet } from '@podset/kube';
import { createMetrics } from './metrics.ts';

const queue = { getJobCounts: async () => ({ waiting: 2 }) } as unknown as Queue;

function podSet(name: string, fields: { replicas: number; ready: number; rollingOut?: boolean }): PodSet {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { namespace: 'ns', name, generation: 2 },
    spec: { replicas: fields.replicas },
    status: {
      replicas: fields.replicas,
      readyReplicas: fields.ready,
      observedGeneration: 2,
      conditions: fields.rollingOut
        ? [{ type: 'Progressing', status: 'True', reason: 'RollingOut', message: '1 of 3 updated' }]
        : [],
    },
  } as unknown as PodSet;
}

async function converged(registry: Awaited<ReturnType<typeof createMetrics>>['registry']) {
  const metric = await registry.getSingleMetric('podset_converged')?.get();
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.podset), v.value]));
}

test('podset_converged: 1 per converged PodSet, 0 while pods are missing, not Ready or rolling out', async () => {
  let items = [
    podSet('done', { replicas: 3, ready: 3 }),
    podSet('starting', { replicas: 3, ready: 1 }),
    podSet('rolling', { replicas: 3, ready: 3, rollingOut: true }),
  ];
  const { registry } = createMetrics(queue, 'q', () => undefined, {
    list: async () => items,
    onError: () => undefined,
  });
  assert.deepEqual(await converged(registry), { 'ns/done': 1, 'ns/starting': 0, 'ns/rolling': 0 });
  // A deleted PodSet's series goes at the next scrape.
  items = [podSet('done', { replicas: 3, ready: 3 })];
  assert.deepEqual(await converged(registry), { 'ns/done': 1 });
  assert.match(await registry.metrics(), /^podset_converged\{podset="ns\/done"\} 1$/m);
});

test('podset_converged: the API away gives no samples and reports the error', async () => {
  const errors: string[] = [];
  const { registry } = createMetrics(queue, 'q', () => undefined, {
    list: async () => {
      throw new Error('connect ECONNREFUSED');
    },
    onError: (err) => errors.push(err.message),
  });
  assert.deepEqual(await converged(registry), {});
  assert.deepEqual(errors, ['connect ECONNREFUSED']);
});

test('podset_converged: 0 for a PodSet past its progress deadline, even with every pod Ready', async () => {
  const stalled = podSet('stalled', { replicas: 3, ready: 3 });
  stalled.status!.conditions = [
    {
      type: 'Progressing',
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: 'Rollout of template 0123456789 has made no progress for 600s (progressDeadlineSeconds)',
    },
  ];
  const { registry } = createMetrics(queue, 'q', () => undefined, {
    list: async () => [stalled],
    onError: () => undefined,
  });
  assert.deepEqual(await converged(registry), { 'ns/stalled': 0 });
});
