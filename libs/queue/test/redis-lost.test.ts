// A worker that loses its Redis connection stops its reconciles: the key locks it held may be gone
// (Redis restarted empty) and the key may already be running elsewhere; going on could create a
// PodSet's pods twice. The job is retried once Redis is back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { ReconcileQueue, startReconcileWorker } from '../src/index.ts';
import { waitFor } from './fixtures/harness.ts';

const redis = useRedis({ appendOnly: true });

test('losing the Redis connection aborts the active reconcile; it runs again after Redis is back', async () => {
  const queueName = 'lost';
  const producer = new ReconcileQueue({ connection: redis.url, queueName });
  const runs: { attempt: number; aborted?: string }[] = [];
  let release: (() => void) | undefined;
  const w = startReconcileWorker({
    connection: redis.url,
    queueName,
    concurrency: 2,
    lockDurationMs: 2_000,
    stalledIntervalMs: 1_000,
    backoff: { baseMs: 50, maxMs: 100, jitter: 0 },
    handler: (_req, ctx) => {
      const run: { attempt: number; aborted?: string } = { attempt: ctx.attempt };
      runs.push(run);
      if (runs.length > 1) return Promise.resolve(undefined);
      // The first run hangs until aborted (as a reconcile waiting on the API would).
      return new Promise<undefined>((_resolve, reject) => {
        release = () => reject(new Error('released'));
        ctx.signal.addEventListener('abort', () => {
          run.aborted = String(
            ctx.signal.reason instanceof Error ? ctx.signal.reason.message : ctx.signal.reason,
          );
          reject(new Error(`aborted: ${run.aborted}`));
        });
      });
    },
  });
  try {
    await producer.request('default/web', { source: 'live' });
    await waitFor('the first run to start', async () => runs.length === 1);
    await redis.stop({ hard: true });
    await waitFor('the active run to be aborted', async () => runs[0]?.aborted !== undefined);
    assert.match(runs[0]?.aborted ?? '', /redis connection lost/);
    await redis.restart();
    await waitFor('the key to be reconciled again after Redis is back', async () => runs.length >= 2, 30_000);
  } finally {
    release?.();
    await w.close();
    await producer.close();
  }
});
