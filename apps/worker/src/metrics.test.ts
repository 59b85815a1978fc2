import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { JobEndInfo } from '@podset/queue';
import { createWorkerMetrics } from './metrics.ts';

test('podset_reconcile_total has a series for every outcome, at 0, before any reconcile', async () => {
  const { registry, hooks } = createWorkerMetrics(pino({ level: 'silent' }));
  const text = await registry.metrics();
  for (const outcome of ['completed', 'retry', 'failed']) {
    assert.match(text, new RegExp(`^podset_reconcile_total\\{outcome="${outcome}"\\} 0$`, 'm'));
  }
  hooks.onEnd?.({
    outcome: 'failed',
    durationMs: 5,
    key: 'ns/a',
    jobId: '1',
    attempt: 8,
  } as unknown as JobEndInfo);
  assert.match(await registry.metrics(), /^podset_reconcile_total\{outcome="failed"\} 1$/m);
});
