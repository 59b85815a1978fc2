// The crash-recovery bound: a SIGKILLed worker's jobs are redelivered after its lock expires and a
// stalled-job check runs, so a key is held for at most lock + interval. BullMQ's own defaults (30 s +
// 30 s) broke the operator's "converged within 30 s after the faults stop" (the chaos run took 117 s);
// the worker's defaults must keep that bound at 20 s, while the lock is renewed well within it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_STALLED_INTERVAL_MS, startReconcileWorker } from '../src/index.ts';

const redis = useRedis();

test('by default a crashed worker holds a key for at most 20 s (lock 15 s + stalled check 5 s)', async () => {
  const w = startReconcileWorker({
    connection: redis.url,
    queueName: 'stall-defaults',
    concurrency: 1,
    handler: async () => undefined,
  });
  try {
    assert.equal(w.worker.opts.lockDuration, DEFAULT_LOCK_DURATION_MS);
    assert.equal(w.worker.opts.stalledInterval, DEFAULT_STALLED_INTERVAL_MS);
    assert.ok(DEFAULT_LOCK_DURATION_MS + DEFAULT_STALLED_INTERVAL_MS <= 20_000);
    // Renewed every half lock: a busy event loop gets 7.5 s before a live job looks stalled.
    assert.ok(DEFAULT_LOCK_DURATION_MS / 2 >= 5_000);
  } finally {
    await w.close();
  }
});

test('explicit lock and interval still win over the defaults', async () => {
  const w = startReconcileWorker({
    connection: redis.url,
    queueName: 'stall-explicit',
    concurrency: 1,
    lockDurationMs: 2_500,
    stalledIntervalMs: 1_000,
    handler: async () => undefined,
  });
  try {
    assert.equal(w.worker.opts.lockDuration, 2_500);
    assert.equal(w.worker.opts.stalledInterval, 1_000);
  } finally {
    await w.close();
  }
});
