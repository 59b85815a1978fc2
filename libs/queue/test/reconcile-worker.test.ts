// startReconcileWorker in-process against real Redis: malformed jobs, retries with backoff, final
// failure hook, requests during backoff, hooks, graceful and bounded close.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, UnrecoverableError } from 'bullmq';
import { useRedis } from '@podset/testkit';
import {
  ReconcileQueue,
  startReconcileWorker,
  type JobEndInfo,
  type JobStartInfo,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileWorkerOptions,
} from '../src/index.ts';
import { waitFor } from './fixtures/harness.ts';

const redis = useRedis();

let n = 0;
function setup(
  worker: Omit<ReconcileWorkerOptions, 'connection' | 'queueName' | 'concurrency'>,
  attempts = 3,
) {
  const queueName = `w${++n}`;
  const queue = new ReconcileQueue({ connection: redis.url, queueName, attempts });
  const w = startReconcileWorker({ connection: redis.url, queueName, concurrency: 4, ...worker });
  return {
    queue,
    w,
    async close() {
      await w.close();
      await queue.close();
    },
  };
}

test('a malformed payload fails at once with a clear reason, and the worker goes on', async () => {
  const handled: string[] = [];
  const malformed: string[] = [];
  const { queue, w, close } = setup({
    handler: async (req) => {
      handled.push(req.key);
      return {};
    },
    hooks: { onMalformed: (_id, err) => malformed.push(err.message) },
  });
  try {
    const rawQueue = new Queue(queue.queueName, { connection: { url: redis.url }, prefix: queue.prefix });
    const bad = await rawQueue.add('x', { v: 2, key: 'ns/a' }, { attempts: 5 });
    await rawQueue.close();
    await queue.request('ns/good', { source: 'live' });
    await waitFor(
      'both jobs to finish',
      async () =>
        handled.length === 1 && (await (await queue.queue.getJob(bad.id!))?.getState()) === 'failed',
    );
    const failed = await queue.queue.getJob(bad.id!);
    assert.match(failed!.failedReason, /malformed reconcile request: unsupported version v=2/);
    assert.equal(failed!.attemptsMade, 1, 'not retried');
    assert.deepEqual(handled, ['ns/good']);
    assert.equal(malformed.length, 1);
    assert.equal(w.activeCount(), 0);
  } finally {
    await close();
  }
});

test('a throwing reconcile is retried with backoff, then fails once with onFinalFailure', async () => {
  const attempts: { attempt: number; max: number; t: number }[] = [];
  const finals: { req: ReconcileRequest; error: Error; ctx: ReconcileContext }[] = [];
  const ends: JobEndInfo[] = [];
  const { queue, close } = setup({
    backoff: { baseMs: 300, maxMs: 10_000, jitter: 0 },
    handler: async (_req, ctx) => {
      attempts.push({ attempt: ctx.attempt, max: ctx.maxAttempts, t: Date.now() });
      throw new Error(`quota exceeded (attempt ${ctx.attempt})`);
    },
    onFinalFailure: (req, error, ctx) => {
      finals.push({ req, error, ctx });
    },
    hooks: { onEnd: (info) => ends.push(info) },
  });
  try {
    const { jobId } = await queue.request('ns/failing', { source: 'live', rv: '7' });
    await waitFor(
      'the job to fail for good',
      async () => (await queue.queue.getJob(jobId))?.finishedOn !== undefined,
    );
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.max]),
      [
        [1, 3],
        [2, 3],
        [3, 3],
      ],
    );
    // Backoff is a lower bound: 300 ms then 600 ms (jitter 0).
    assert.ok(attempts[1]!.t - attempts[0]!.t >= 290, 'first retry waited the base delay');
    assert.ok(attempts[2]!.t - attempts[1]!.t >= 590, 'second retry waited twice as long');
    assert.equal(finals.length, 1, 'onFinalFailure once');
    assert.equal(finals[0]!.req.key, 'ns/failing');
    assert.equal(finals[0]!.req.rv, '7');
    assert.match(finals[0]!.error.message, /attempt 3/);
    assert.deepEqual(
      ends.map((e) => e.outcome),
      ['retry', 'retry', 'failed'],
    );
    const job = await queue.queue.getJob(jobId);
    assert.equal(await job!.getState(), 'failed');
    assert.match(job!.failedReason, /quota exceeded \(attempt 3\)/);
    assert.equal(await queue.currentJobId('ns/failing'), undefined, 'the key is free for new requests');
  } finally {
    await close();
  }
});

test('UnrecoverableError from the handler fails at once and calls onFinalFailure', async () => {
  let calls = 0;
  let finals = 0;
  const { queue, close } = setup({
    handler: async () => {
      calls++;
      throw new UnrecoverableError('spec is invalid');
    },
    onFinalFailure: () => {
      finals++;
    },
  });
  try {
    const { jobId } = await queue.request('ns/unrecoverable', { source: 'live' });
    await waitFor('failure', async () => (await queue.queue.getJob(jobId))?.finishedOn !== undefined);
    assert.equal(calls, 1);
    assert.equal(finals, 1);
  } finally {
    await close();
  }
});

test('a request during backoff makes the retry due now (earliest wins over backoff)', async () => {
  const starts: number[] = [];
  const { queue, close } = setup({
    backoff: { baseMs: 20_000, jitter: 0 },
    handler: async () => {
      starts.push(Date.now());
      if (starts.length === 1) throw new Error('transient');
      return {};
    },
  });
  try {
    await queue.request('ns/backoff', { source: 'bulk' });
    // In backoff: delayed after one failed attempt. (Flaky in CI once: the first request's own after-add
    // step, late under load, pulled the job out of its backoff and the retry ran at once; fixed in the
    // merge script, request.test.ts pins it.)
    await waitFor('the first attempt to fail into backoff', async () => {
      const id = await queue.currentJobId('ns/backoff');
      const job = id === undefined ? undefined : await queue.queue.getJob(id);
      return job?.attemptsMade === 1 && (await job.getState()) === 'delayed';
    });
    const t = Date.now();
    const r = await queue.request('ns/backoff', { source: 'live', reason: 'pod deleted' });
    assert.equal(r.outcome, 'merged');
    await waitFor('the retry', async () => starts.length === 2, 10_000);
    assert.ok(starts[1]! - t < 10_000, 'ran well before the 20 s backoff');
  } finally {
    await close();
  }
});

test('hooks see start latency; requeueAfter comes back in the end info', async () => {
  const startsSeen: JobStartInfo[] = [];
  const ends: JobEndInfo[] = [];
  let runs = 0;
  const { queue, close } = setup({
    handler: async () => (++runs === 1 ? { requeueAfterMs: 50 } : {}),
    hooks: { onStart: (i) => startsSeen.push(i), onEnd: (i) => ends.push(i) },
  });
  try {
    const before = Date.now();
    await queue.request('ns/hooks', { source: 'live', reason: 'created' });
    await waitFor('two runs', async () => ends.length === 2);
    assert.ok(startsSeen[0]!.req.firstRequestedAt >= before);
    assert.ok(startsSeen[0]!.latencyMs >= 0);
    assert.deepEqual(startsSeen[0]!.req.reasons, ['created']);
    assert.equal(ends[0]!.requeueAfterMs, 50);
    assert.deepEqual(startsSeen[1]!.req.reasons, ['requeue-after']);
  } finally {
    await close();
  }
});

test('close() stops taking work and lets an active reconcile finish', async () => {
  let finished = 0;
  const { queue, w, close } = setup({
    closeTimeoutMs: 10_000,
    handler: async () => {
      await sleep(400);
      finished++;
      return {};
    },
  });
  try {
    const { jobId } = await queue.request('ns/graceful', { source: 'live' });
    await waitFor('it to start', async () => w.activeCount() === 1);
    await w.close();
    assert.equal(finished, 1);
    assert.equal(await (await queue.queue.getJob(jobId))!.getState(), 'completed');
    // A second worker on the queue: the next job goes to whichever worker takes work, so once the
    // second one has run it, the closed one has had its chance and did not take it.
    const ranBy: string[] = [];
    const second = startReconcileWorker({
      connection: redis.url,
      queueName: queue.queueName,
      concurrency: 1,
      handler: async (req) => (ranBy.push(req.key), {}),
    });
    try {
      await queue.request('ns/after-close', { source: 'live' });
      await waitFor('the open worker to run it', async () => ranBy.length === 1);
    } finally {
      await second.close();
    }
    assert.equal(finished, 1, 'a closed worker takes no more work');
  } finally {
    await close();
  }
});

test('close() is bounded: a reconcile past the grace period is aborted and left for redelivery', async () => {
  let aborted = false;
  const { queue, w, close } = setup({
    closeTimeoutMs: 200,
    handler: async (_req, ctx) => {
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          aborted = true;
          resolve();
        }),
      );
      await sleep(60_000, undefined, { ref: false }); // ignores the abort: close must not wait for it
      return {};
    },
  });
  try {
    const { jobId } = await queue.request('ns/stuck', { source: 'live' });
    await waitFor('it to start', async () => w.activeCount() === 1);
    const t = Date.now();
    await w.close();
    assert.ok(aborted, 'the handler was told to stop');
    assert.ok(Date.now() - t < 20_000, 'close returned');
    assert.equal(await (await queue.queue.getJob(jobId))!.getState(), 'active', 'left for stalled recovery');
  } finally {
    await close();
  }
});
