import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '@podset/log';
import type { JobEndInfo } from '@podset/queue';
import { createWorkerMetrics } from './metrics.ts';

test('podset_reconcile_total has a series for every outcome, at 0, before any reconcile', async () => {
  const { registry, hooks } = createWorkerMetrics(silentLogger);
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

test('values out of bounds: a series per kind at 0 from the first scrape, counted by kind; the pause gauge', async () => {
  const m = createWorkerMetrics(silentLogger);
  for (const what of ['park', 'expectation', 'epoch', 'queue-setting']) {
    assert.match(
      await m.registry.metrics(),
      new RegExp(`^podset_redis_value_out_of_bounds_total\\{what="${what}"\\} 0$`, 'm'),
    );
  }
  m.onOutOfBounds({ what: 'expectation', key: 'ns/a', count: 3, why: 'test' });
  m.setQueuePaused(true);
  const text = await m.registry.metrics();
  assert.match(text, /^podset_redis_value_out_of_bounds_total\{what="expectation"\} 3$/m);
  assert.match(text, /^podset_queue_paused 1$/m);
});

test('API reads of the projection: a series per reason at 0 from the first scrape, counted by reason', async () => {
  const m = createWorkerMetrics(silentLogger);
  for (const reason of ['acting', 'finalizer', 'fallback']) {
    assert.match(
      await m.registry.metrics(),
      new RegExp(`^podset_projection_api_reads_total\\{reason="${reason}"\\} 0$`, 'm'),
    );
  }
  m.onApiRead('finalizer');
  assert.match(await m.registry.metrics(), /^podset_projection_api_reads_total\{reason="finalizer"\} 1$/m);
});
