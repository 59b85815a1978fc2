// The bulk share (startReconcileWorker's bulkConcurrency) against real Redis: at most K of a worker's
// C slots run bulk reconciles at once, live requests take the other slots, a bulk job handed back
// unrun uses no attempt and is never failed, and a live request for a handed-back key still raises it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { useRedis } from '@podset/testkit';
import {
  PRIORITY,
  ReconcileQueue,
  startReconcileWorker,
  type JobDeferredInfo,
  type ReconcileContext,
  type ReconcileRequest,
  type ReconcileWorkerOptions,
} from '../src/index.ts';
import { bullKeys } from '@podset/redis';
import { foldStoredNext } from '../src/bulk-handback.ts';
import { waitFor, waitIdle } from './fixtures/harness.ts';

const redis = useRedis();
const raw = redis.client;

let n = 0;
/** A queue whose jobs have ONE attempt: a hand-back counted as a failed attempt would fail the job. */
function setup(worker: Omit<ReconcileWorkerOptions, 'connection' | 'queueName'>) {
  const queueName = `bulk${++n}`;
  const queue = new ReconcileQueue({ connection: redis.url, queueName, attempts: 1 });
  const w = startReconcileWorker({ connection: redis.url, queueName, ...worker });
  return {
    queue,
    w,
    async close() {
      await w.close();
      await queue.close();
    },
  };
}

/** A promise and its resolver. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const bulkKeys = (count: number, name = 'b') =>
  Array.from({ length: count }, (_, i) => `ns/${name}-${String(i).padStart(3, '0')}`);

test('bulkConcurrency is an integer from 1 to concurrency', () => {
  for (const bad of [0, -1, 1.5, 5]) {
    assert.throws(
      () =>
        startReconcileWorker({
          connection: redis.url,
          queueName: 'never',
          concurrency: 4,
          bulkConcurrency: bad,
          handler: async () => ({}),
        }),
      /bulkConcurrency must be an integer from 1 to concurrency \(4\)/,
    );
  }
});

test('C=4, K=1: never more than 1 bulk reconcile at once; live requests run 3 at once beside it', async () => {
  const C = 4;
  const K = 1;
  let bulkRunning = 0;
  let maxBulk = 0;
  let liveRunning = 0;
  let maxLive = 0;
  const runs: { key: string; source: string; attempt: number; jobId: string }[] = [];
  const deferred: JobDeferredInfo[] = [];
  const starts: string[] = [];
  const allLiveRunning = gate();
  const handedBack = gate();
  const bulk = bulkKeys(50);
  const { queue, close } = setup({
    concurrency: C,
    bulkConcurrency: K,
    hooks: {
      onDeferred: (info) => {
        deferred.push(info);
        handedBack.open();
      },
      onStart: (info) => starts.push(info.key),
    },
    handler: async (req: ReconcileRequest, ctx: ReconcileContext) => {
      runs.push({ key: req.key, source: req.source, attempt: ctx.attempt, jobId: ctx.jobId });
      if (req.source === 'bulk') {
        maxBulk = Math.max(maxBulk, ++bulkRunning);
        if (bulkRunning > K) handedBack.open(); // the share is broken: no need to hold on
        // The first one holds the bulk share until others have waited for it in vain.
        await (req.key === bulk[0] ? handedBack.opened : sleep(20));
        bulkRunning--;
      } else {
        // The live reconciles hold their slots until all C−K of them run at the same time.
        maxLive = Math.max(maxLive, ++liveRunning);
        if (liveRunning === C - K) allLiveRunning.open();
        await allLiveRunning.opened;
        liveRunning--;
      }
      return {};
    },
  });
  try {
    await queue.requestAll(bulk.map((key) => ({ key, opts: { source: 'bulk' as const, reason: 'resync' } })));
    await waitFor('bulk reconciles to run', async () => starts.length >= 3);
    const live = ['ns/live-a', 'ns/live-b', 'ns/live-c'];
    for (const key of live) await queue.request(key, { source: 'live', reason: 'scaled' });
    const timer = new AbortController();
    await Promise.race([
      allLiveRunning.opened,
      sleep(20_000, undefined, { signal: timer.signal }).then(() =>
        assert.fail(`live reconciles never ran ${C - K} at once (max ${maxLive})`),
      ),
    ]).finally(() => timer.abort());
    await waitIdle(queue);

    assert.ok(maxBulk <= K, `at most ${K} bulk reconcile at once, saw ${maxBulk}`);
    assert.equal(maxLive, C - K, 'the live requests ran in every slot the bulk share leaves');
    assert.ok(deferred.length > 0, 'the share was full: bulk jobs were handed back');
    // Every bulk job ran exactly once, on its first attempt, however often it was handed back.
    for (const key of bulk) {
      const mine = runs.filter((r) => r.key === key);
      assert.equal(mine.length, 1, `${key} ran once`);
      assert.equal(mine[0]!.attempt, 1, `${key} ran on attempt 1`);
    }
    for (const key of live) assert.equal(runs.filter((r) => r.key === key).length, 1, `${key} ran once`);
    // A handed-back job is not a reconcile for the hooks: onStart saw exactly the runs.
    assert.equal(starts.length, runs.length);
    const counts = await queue.queue.getJobCounts('completed', 'failed');
    assert.equal(counts.failed, 0, 'none failed (their one attempt was not used by a hand-back)');
    assert.equal(counts.completed, bulk.length + live.length);
    const again = new Set(deferred.map((d) => d.jobId));
    for (const id of again) {
      const job = await queue.queue.getJob(id);
      assert.equal(job?.attemptsMade, 1, `job ${id}, handed back, completed with one attempt made`);
    }
  } finally {
    await close();
  }
});

test('a live request for a handed-back bulk key runs at once at live priority, ahead of the backlog', async () => {
  const hold = gate();
  const started: { key: string; source: string; priority: number | undefined }[] = [];
  const deferred: JobDeferredInfo[] = [];
  const ref: { queue?: ReconcileQueue } = {};
  const { queue, close } = setup({
    concurrency: 4,
    bulkConcurrency: 1,
    hooks: { onDeferred: (info) => deferred.push(info) },
    handler: async (req, ctx) => {
      const job = await ref.queue!.queue.getJob(ctx.jobId);
      started.push({ key: req.key, source: req.source, priority: job?.priority });
      // The first bulk reconcile holds the only bulk slot until the test lets it go.
      if (req.key === 'ns/hold') await hold.opened;
      return {};
    },
  });
  ref.queue = queue;
  try {
    await queue.request('ns/hold', { source: 'bulk', reason: 'resync' });
    await waitFor('the hold reconcile to start', async () => started.length === 1);
    const bulk = bulkKeys(20);
    await queue.requestAll(bulk.map((key) => ({ key, opts: { source: 'bulk' as const, reason: 'resync' } })));
    await waitFor('a bulk job to be handed back', async () => deferred.length > 0);
    const target = deferred[0]!.key;
    const jobId = deferred[0]!.jobId;
    const r = await queue.request(target, { source: 'live', reason: 'pod deleted' });
    assert.equal(r.outcome, 'merged', 'folded into the handed-back job');
    assert.equal(r.jobId, jobId);
    // The bulk slot is still held: only a reconcile raised to live can start now.
    await waitFor('the raised key to run', async () => started.some((s) => s.key === target));
    assert.deepEqual(
      started.map((s) => s.key),
      ['ns/hold', target],
      'the raised key ran next, before any other bulk key',
    );
    assert.equal(started[1]!.source, 'live');
    assert.equal(started[1]!.priority, PRIORITY.live);
    hold.open();
    await waitIdle(queue);
    for (const key of ['ns/hold', ...bulk]) {
      assert.equal(started.filter((s) => s.key === key).length, 1, `${key} ran once`);
    }
    assert.equal((await queue.queue.getJobCounts('failed')).failed, 0);
  } finally {
    hold.open();
    await close();
  }
});

test('a live request for a bulk key waiting for the share is folded into it when it is handed back', async () => {
  const hold = gate();
  const started: { key: string; source: string }[] = [];
  const { queue, close } = setup({
    concurrency: 4,
    bulkConcurrency: 1,
    handler: async (req) => {
      started.push({ key: req.key, source: req.source });
      if (req.key === 'ns/hold') await hold.opened;
      return {};
    },
  });
  try {
    await queue.request('ns/hold', { source: 'bulk', reason: 'resync' });
    await waitFor('the hold reconcile to start', async () => started.length === 1);
    const bulk = bulkKeys(20);
    await queue.requestAll(bulk.map((key) => ({ key, opts: { source: 'bulk' as const, reason: 'resync' } })));
    // A bulk job taken while the share is full is active (waiting for a bulk slot): a request for its
    // key now is stored by BullMQ as the key's next job, not merged into the job. The job may be handed
    // back between our look and our request (then the request raises the handed-back job instead), so
    // each key is asked for once, and we ask for other keys until one request was stored behind its job.
    let target: string | undefined;
    const asked = new Set<string>();
    await waitFor('a live request stored behind a waiting bulk job', async () => {
      const active = (await queue.queue.getActive()).map((j) => j.name);
      const key = active.find((k) => k !== 'ns/hold' && !asked.has(k));
      if (key === undefined) return false;
      asked.add(key);
      const r = await queue.request(key, { source: 'live', reason: 'pod deleted' });
      if (r.state === 'deduplicated') target = key;
      return target !== undefined;
    });
    // The bulk slot is still held: a key runs only if its live request raised its job.
    await waitFor('every key asked for to run', async () =>
      [...asked].every((key) => started.some((s) => s.key === key)),
    );
    assert.equal(started.find((s) => s.key === target)?.source, 'live');
    const others = started.filter((s) => s.key !== 'ns/hold');
    assert.deepEqual(
      others.filter((s) => s.source !== 'live' || !asked.has(s.key)),
      [],
      'no bulk job ran while the share was held',
    );
    hold.open();
    await waitIdle(queue);
    for (const key of ['ns/hold', ...bulk]) {
      assert.equal(started.filter((s) => s.key === key).length, 1, `${key} ran once`);
    }
  } finally {
    hold.open();
    await close();
  }
});

test('close() while bulk jobs wait for the share: they are handed back, not failed, and run later', async () => {
  const hold = gate();
  const ran: string[] = [];
  const handler = async (req: ReconcileRequest) => {
    ran.push(req.key);
    if (req.key === 'ns/hold') await hold.opened;
    return {};
  };
  const { queue, w, close } = setup({ concurrency: 4, bulkConcurrency: 1, handler });
  let w2: ReturnType<typeof startReconcileWorker> | undefined;
  try {
    await queue.request('ns/hold', { source: 'bulk', reason: 'resync' });
    await waitFor('the hold reconcile to start', async () => ran.length === 1);
    const bulk = bulkKeys(10);
    await queue.requestAll(bulk.map((key) => ({ key, opts: { source: 'bulk' as const, reason: 'resync' } })));
    await waitFor('every slot busy', async () => (await queue.queue.getActiveCount()) === 4);
    const closed = w.close();
    hold.open();
    await closed;
    assert.deepEqual(ran, ['ns/hold'], 'nothing else ran');
    const counts = await queue.queue.getJobCounts('active', 'failed', 'completed');
    assert.deepEqual(counts, { active: 0, failed: 0, completed: 1 });
    w2 = startReconcileWorker({ connection: redis.url, queueName: queue.queueName, concurrency: 4, handler });
    await waitFor('the rest to run', async () => ran.length === 11);
    await waitIdle(queue);
    assert.deepEqual([...ran].sort(), ['ns/hold', ...bulk].sort(), 'each ran once');
  } finally {
    hold.open();
    await w2?.close();
    await close();
  }
});

test('a request stored while a bulk job was active is folded into it when it is handed back', async () => {
  const queueName = `bulk${++n}`;
  const queue = new ReconcileQueue({ connection: redis.url, queueName, attempts: 1 });
  const manual = new Worker(queueName, null, { connection: { url: redis.url }, prefix: queue.prefix });
  const client = new Redis(redis.url);
  const ran: ReconcileRequest[] = [];
  let w: ReturnType<typeof startReconcileWorker> | undefined;
  try {
    await queue.request('ns/web', { source: 'bulk', reason: 'resync' });
    // Taken, as a worker takes it; a live request now is stored as the key's next job.
    const job = await manual.getNextJob('tok');
    assert.equal(job?.name, 'ns/web');
    const r = await queue.request('ns/web', { source: 'live', reason: 'pod deleted', rv: '42' });
    assert.equal(r.state, 'deduplicated');
    const nextKey = bullKeys(queue.jobPrefix).dedupNext('ns/web');
    assert.equal(await raw.exists(nextKey), 1, 'stored as the next job');

    // Handed back for 10 s, as the worker does (moveToDelayed): only the fold can bring it forward.
    await job.moveToDelayed(Date.now() + 10_000, 'tok');
    assert.equal(await job.getState(), 'delayed');
    await foldStoredNext('ns/web', queue, client);
    const after = (await queue.queue.getJob(job.id!))!;
    assert.equal(await after.getState(), 'prioritized', 'due now');
    assert.equal(after.priority, PRIORITY.live, 'at live priority');
    assert.equal(after.attemptsMade, 0, 'no attempt used');
    assert.equal((after.data as ReconcileRequest).source, 'live');
    assert.equal((after.data as ReconcileRequest).rv, '42');
    assert.ok((after.data as ReconcileRequest).reasons?.includes('pod deleted'));
    assert.equal(await raw.exists(nextKey), 0, 'the stored copy is gone: one reconcile, not two');

    w = startReconcileWorker({
      connection: redis.url,
      queueName,
      concurrency: 2,
      handler: async (req) => {
        ran.push(req);
        return {};
      },
    });
    await waitFor('the reconcile', async () => ran.length === 1);
    await waitIdle(queue);
    assert.equal(ran.length, 1, 'the bulk request and the live one became one reconcile');
    assert.equal(ran[0]!.source, 'live');
  } finally {
    await w?.close();
    await manual.close();
    client.disconnect();
    await queue.close();
  }
});

test('the fold drops the stored copy before it makes the handed-back job due (else the job could run and finish in between, and BullMQ would run the copy too)', async () => {
  const queueName = `bulk${++n}`;
  const queue = new ReconcileQueue({ connection: redis.url, queueName, attempts: 1 });
  const manual = new Worker(queueName, null, { connection: { url: redis.url }, prefix: queue.prefix });
  const client = new Redis(redis.url);
  try {
    await queue.request('ns/web', { source: 'bulk', reason: 'resync' });
    const job = await manual.getNextJob('tok');
    assert.equal(job?.name, 'ns/web');
    await queue.request('ns/web', { source: 'live', reason: 'pod deleted' });
    const nextKey = bullKeys(queue.jobPrefix).dedupNext('ns/web');
    assert.equal(await raw.exists(nextKey), 1, 'stored as the next job');
    await job.moveToDelayed(Date.now() + 10_000, 'tok');
    // What the stored copy looked like at the moment the fold's request could make the job due.
    const storedAtFold: number[] = [];
    const request = queue.request.bind(queue);
    queue.request = async (key, opts) => {
      storedAtFold.push(await raw.exists(nextKey));
      return request(key, opts);
    };
    await foldStoredNext('ns/web', queue, client);
    assert.deepEqual(storedAtFold, [0], 'one fold, made after the stored copy was gone');
    assert.equal((await queue.queue.getJob(job.id!))!.priority, PRIORITY.live, 'and the fold raised the job');
  } finally {
    await manual.close();
    client.disconnect();
    await queue.close();
  }
});
