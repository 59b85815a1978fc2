// The worker's own attempt limit caps the attempts a job was enqueued with: the watcher enqueues with
// its default (8) while an operator may run the workers with MAX_ATTEMPTS=3; the job must be parked as
// failed after 3 attempts, with the final-failure hook run once (found by the bad-input catalog).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import { useRedis } from '@podset/testkit';
import { DEFAULT_PREFIX, ReconcileQueue, startReconcileWorker, TerminalError } from '../src/index.ts';
import { waitFor } from './fixtures/harness.ts';

const redis = useRedis();

test('a job enqueued with 8 attempts fails after the worker’s 2, final hook once, reason kept', async () => {
  const queueName = 'cap';
  const producer = new ReconcileQueue({ connection: redis.url, queueName, attempts: 8 });
  let runs = 0;
  const finals: string[] = [];
  const w = startReconcileWorker({
    connection: redis.url,
    queueName,
    concurrency: 1,
    attempts: 2,
    backoff: { baseMs: 10, maxMs: 20, jitter: 0 },
    handler: () => {
      runs++;
      throw new Error('pods is forbidden in namespace locked');
    },
    onFinalFailure: (_req, err) => {
      finals.push(err.message);
    },
  });
  const q = new Queue(queueName, {
    connection: { host: '127.0.0.1', port: redis.port },
    prefix: DEFAULT_PREFIX,
  });
  try {
    const { jobId } = await producer.request('locked/shut', { source: 'live' });
    await waitFor('the job to finish', async () => (await q.getJob(jobId))?.finishedOn !== undefined);
    const job = await q.getJob(jobId);
    assert.equal(await job?.getState(), 'failed');
    assert.equal(job?.attemptsMade, 2);
    assert.equal(runs, 2);
    assert.deepEqual(finals, ['pods is forbidden in namespace locked']);
    assert.match(job?.failedReason ?? '', /forbidden/);
  } finally {
    await w.close();
    await producer.close();
    await q.close();
  }
});

test('a TerminalError ends the job at its first attempt; the final hook sees its cause, and its requeueAfterMs makes one more job', async () => {
  const queueName = 'parked';
  const producer = new ReconcileQueue({ connection: redis.url, queueName, attempts: 8 });
  const runs: number[] = [];
  const finals: Error[] = [];
  const cause = new RangeError('1 of 3 pod creates rejected: 422 Invalid');
  const w = startReconcileWorker({
    connection: redis.url,
    queueName,
    concurrency: 1,
    backoff: { baseMs: 10, maxMs: 20, jitter: 0 },
    handler: async (_req, ctx) => {
      runs.push(ctx.attempt);
      // The second job succeeds: the parked key's one retry.
      if (runs.length > 1) return {};
      throw new TerminalError(cause);
    },
    onFinalFailure: (_req, err) => {
      finals.push(err);
      return { requeueAfterMs: 50 };
    },
  });
  const q = new Queue(queueName, {
    connection: { host: '127.0.0.1', port: redis.port },
    prefix: DEFAULT_PREFIX,
  });
  try {
    const { jobId } = await producer.request('ns/parked', { source: 'live' });
    await waitFor('the retry job to run', async () => runs.length === 2);
    const job = await q.getJob(jobId);
    assert.equal(await job?.getState(), 'failed');
    assert.equal(job?.attemptsMade, 1, 'no second attempt of the job');
    assert.deepEqual(runs, [1, 1], 'the retry is a new job');
    assert.equal(finals.length, 1);
    assert.equal(finals[0], cause, 'the hook is given the cause, not the wrapper');
    assert.match(job?.failedReason ?? '', /422 Invalid/);
  } finally {
    await w.close();
    await producer.close();
    await q.close();
  }
});
