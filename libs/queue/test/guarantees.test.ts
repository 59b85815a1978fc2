// The queue's six guarantees (client-go workqueue's, across processes: one at a time per key, collapse,
// never lose a request, earliest wins, live before bulk, crash-safe), each proved against real Redis
// with 3 worker processes × 8.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useRedis } from '@podset/testkit';
import { ReconcileQueue } from '../src/index.ts';
import {
  readRuns,
  spawnWorkers,
  stopWorkers,
  waitFor,
  waitIdle,
  type Run,
  type WorkerProcess,
} from './fixtures/harness.ts';

const PREFIX = '{podset}';
const redis = useRedis();
const raw = redis.client;
const queues: ReconcileQueue[] = [];
const workers: WorkerProcess[] = [];

after(async () => {
  await stopWorkers(workers);
  await Promise.all(queues.map((q) => q.close()));
});

function openQueue(queueName: string): ReconcileQueue {
  const q = new ReconcileQueue({ connection: redis.url, queueName, prefix: PREFIX });
  queues.push(q);
  return q;
}

async function start(queueName: string, ns: string, extra: Record<string, string> = {}, processes = 3) {
  const ws = await spawnWorkers(processes, {
    REDIS_URL: redis.url,
    QUEUE_NAME: queueName,
    PREFIX,
    NS: ns,
    CONCURRENCY: '8',
    ...extra,
  });
  workers.push(...ws);
  return ws;
}

const byKey = (runs: Run[], key: string) => runs.filter((r) => r.key === key);

// One shared pool of 3 processes for the guarantees that don't need a special set-up.
const SHARED = 'shared';
let shared: ReconcileQueue;

test('setup: 3 worker processes × concurrency 8', async () => {
  shared = openQueue(SHARED);
  await start(SHARED, 'g', { SLEEP_MS: '10' });
});

test('one at a time per key: no two reconciles of a key overlap under heavy concurrent requests', async () => {
  const keys = Array.from({ length: 12 }, (_, i) => `ns/overlap-${i}`);
  for (const key of keys) await raw.hset('g:behavior', key, JSON.stringify({ sleepMs: 5, jitterMs: 25 }));
  const lastRequest = new Map<string, number>();
  // 6 producers × 250 requests, live and bulk, some delayed, spread over a second or two.
  await Promise.all(
    Array.from({ length: 6 }, async (_, p) => {
      for (let i = 0; i < 250; i++) {
        const key = keys[(i * 7 + p) % keys.length]!;
        const t = Date.now();
        await shared.request(key, {
          source: i % 3 === 0 ? 'live' : 'bulk',
          // Some want a look in a minute: mixed in, delayed merges race with workers picking jobs up.
          delayMs: i % 10 === 0 ? 60_000 : i % 5 === 0 ? 20 : 0,
          rv: String(i),
        });
        lastRequest.set(key, Math.max(lastRequest.get(key) ?? 0, t));
        if (i % 25 === 0) await sleep(5);
      }
    }),
  );
  // A last immediate request per key: whatever minute-delayed job (or stored next job) a key has,
  // earliest wins must bring it to now, so the queue drains with nothing left delayed.
  for (const key of keys) {
    lastRequest.set(key, Date.now());
    await shared.request(key, { source: 'bulk' });
  }
  await waitIdle(shared);
  const { starts, ends } = await readRuns(raw, 'g');
  assert.deepEqual(await raw.smembers('g:overlap'), [], 'no key ever had two reconciles at once');
  for (const key of keys) {
    const s = byKey(starts, key).sort((a, b) => a.t - b.t);
    const e = byKey(ends, key).sort((a, b) => a.t - b.t);
    assert.ok(s.length >= 2, `${key} reconciled ${s.length} times`);
    assert.equal(s.length, e.length, `${key}: every reconcile ended`);
    for (let i = 1; i < s.length; i++) {
      assert.ok(s[i]!.t >= e[i - 1]!.t, `${key}: reconcile ${i} started before ${i - 1} ended`);
    }
    // And nothing was lost: the last reconcile started after the last request.
    assert.ok(s.at(-1)!.t >= lastRequest.get(key)!, `${key}: a request after the last reconcile started`);
  }
  const processes = new Set(starts.filter((r) => r.key.startsWith('ns/overlap-')).map((r) => r.pid));
  assert.ok(processes.size >= 2, 'the load was spread over several processes');
});

test('collapse: 100 requests for a waiting key become one reconcile', async () => {
  const key = 'ns/collapse';
  await shared.queue.pause(); // the workers take nothing: the key stays waiting
  try {
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        shared.request(key, { source: i % 2 ? 'live' : 'bulk', rv: `${i}` }),
      ),
    );
    const counts = await shared.queue.getJobCounts('wait', 'prioritized', 'active');
    assert.equal(counts.wait! + counts.prioritized!, 1, 'one job waiting');
    assert.equal(counts.active, 0);
  } finally {
    await shared.queue.resume();
  }
  await waitIdle(shared);
  const runs = byKey((await readRuns(raw, 'g')).starts, key);
  assert.equal(runs.length, 1, 'exactly one reconcile');
  assert.equal(runs[0]!.rv, '99', 'carrying the newest resourceVersion of the 100');
  assert.equal(runs[0]!.source, 'live');
});

test('never lose: requests while the key is active cause exactly one more reconcile, after them', async () => {
  const key = 'ns/never-lose';
  await raw.hset('g:behavior', key, JSON.stringify({ sleepMs: 1_000 }));
  await shared.request(key, { source: 'live', rv: '1' });
  await waitFor(
    'the first reconcile to start',
    async () => byKey((await readRuns(raw, 'g')).starts, key).length > 0,
  );
  let lastRequestAt = 0;
  for (let i = 2; i <= 6; i++) {
    lastRequestAt = Date.now();
    await shared.request(key, { source: i % 2 ? 'live' : 'bulk', rv: String(i) });
    await sleep(50);
  }
  await waitIdle(shared);
  const { starts, ends } = await readRuns(raw, 'g');
  const s = byKey(starts, key).sort((a, b) => a.t - b.t);
  const e = byKey(ends, key);
  assert.equal(s.length, 2, 'exactly one more reconcile');
  assert.ok(s[1]!.t >= lastRequestAt, 'it started after the last request');
  assert.ok(s[1]!.t >= Math.min(...e.map((x) => x.t)), 'and after the first one ended');
  assert.equal(s[1]!.rv, '6', 'with the newest resourceVersion');
  assert.equal(s[1]!.source, 'live', 'at live priority since one of the requests was live');
});

test('earliest wins: a sooner request pulls a delayed key earlier; a later one never postpones', async () => {
  const a = 'ns/earliest-a';
  const t0 = Date.now();
  await shared.request(a, { source: 'bulk', delayMs: 5_000 });
  await shared.request(a, { source: 'bulk', delayMs: 100 });
  await waitFor('a to run', async () => byKey((await readRuns(raw, 'g')).starts, a).length > 0, 10_000);
  const ranA = byKey((await readRuns(raw, 'g')).starts, a)[0]!;
  assert.ok(ranA.t < t0 + 5_000, `ran ${ranA.t - t0} ms after the first request: before the 5 s mark`);

  const b = 'ns/earliest-b';
  const t1 = Date.now();
  await shared.request(b, { source: 'bulk', delayMs: 300 });
  await shared.request(b, { source: 'live', delayMs: 20_000 });
  await waitFor('b to run', async () => byKey((await readRuns(raw, 'g')).starts, b).length > 0, 15_000);
  const ranB = byKey((await readRuns(raw, 'g')).starts, b)[0]!;
  assert.ok(ranB.t >= t1 + 300, 'not before its own delay');
  assert.ok(ranB.t < t1 + 15_000, 'the 20 s request did not postpone the 300 ms one');

  // While the key is active: a request due now stored behind it, then one with a 20 s delay (BullMQ
  // alone keeps only the last) — the next reconcile still runs right after the active one.
  const c = 'ns/earliest-c';
  await raw.hset('g:behavior', c, JSON.stringify({ sleepMs: 600 }));
  await shared.request(c, { source: 'live' });
  await waitFor('c to start', async () => byKey((await readRuns(raw, 'g')).starts, c).length > 0);
  await shared.request(c, { source: 'live', delayMs: 0 });
  await shared.request(c, { source: 'live', delayMs: 20_000 });
  await waitFor('c to run again', async () => byKey((await readRuns(raw, 'g')).starts, c).length > 1, 15_000);
  const { starts, ends } = await readRuns(raw, 'g');
  const firstEnd = byKey(ends, c)[0]!.t;
  const second = byKey(starts, c).sort((x, y) => x.t - y.t)[1]!;
  assert.ok(second.t >= firstEnd && second.t < firstEnd + 10_000, 'ran right after, not postponed 20 s');
  await waitIdle(shared);
  assert.equal(byKey((await readRuns(raw, 'g')).starts, c).length, 2, 'and only once');

  // A delay stored while active counts from the request, not from the end of the active reconcile:
  // due 2 s after a request made while a 2.5 s reconcile runs → runs right after it ends.
  const d = 'ns/earliest-d';
  await raw.hset('g:behavior', d, JSON.stringify({ sleepMs: 2_500 }));
  await shared.request(d, { source: 'live' });
  await waitFor('d to start', async () => byKey((await readRuns(raw, 'g')).starts, d).length > 0);
  await shared.request(d, { source: 'live', delayMs: 2_000 });
  await waitFor('d to run again', async () => byKey((await readRuns(raw, 'g')).starts, d).length > 1, 15_000);
  const runsD = await readRuns(raw, 'g');
  const endD = byKey(runsD.ends, d)[0]!.t;
  const againD = byKey(runsD.starts, d).sort((x, y) => x.t - y.t)[1]!.t;
  assert.ok(againD < endD + 1_200, `ran ${againD - endD} ms after the end, not 2 s after it`);
});

test('requeue-after: a reconcile asking to look again runs once more after the delay', async () => {
  const key = 'ns/requeue';
  await raw.hset('g:behavior', key, JSON.stringify({ sleepMs: 10, requeueAfterMs: 400 }));
  await shared.request(key, { source: 'live' });
  await waitFor('the requeued run', async () => byKey((await readRuns(raw, 'g')).starts, key).length >= 2);
  await raw.hset('g:behavior', key, JSON.stringify({ sleepMs: 10 })); // stop requeueing
  await waitIdle(shared);
  const { starts, ends } = await readRuns(raw, 'g');
  const s = byKey(starts, key).sort((a, b) => a.t - b.t);
  const firstEnd = byKey(ends, key).sort((a, b) => a.t - b.t)[0]!.t;
  assert.ok(s[1]!.t >= firstEnd + 400 - 50, 'waited (about) requeueAfter from the end of the reconcile');
  assert.ok(s.length <= 3, `requeue chain stops when the handler stops asking (${s.length} runs)`);
});

test('live before bulk: a live request for a key queued behind 200 bulk keys runs among the first', async () => {
  const q = openQueue('priority');
  const bulk = Array.from({ length: 200 }, (_, i) => ({
    key: `ns/bulk-${String(i).padStart(3, '0')}`,
    opts: { source: 'bulk' as const },
  }));
  await q.requestAll(bulk); // no worker yet: all 200 wait
  await q.request('ns/bulk-150', { source: 'live', reason: 'pod deleted' });
  await q.request('ns/fresh', { source: 'live', reason: 'created' });
  // One process: its starts are recorded in the order it took the jobs (one event loop, one connection).
  // Across processes a descheduled one records its first start after the others' (a loaded machine),
  // which says nothing of the queue's order.
  await start('priority', 'p', { SLEEP_MS: '20' }, 1);
  await waitIdle(q);
  const starts = (await readRuns(raw, 'p')).starts.sort((a, b) => a.seq - b.seq);
  assert.equal(starts.length, 201, 'every key ran once');
  const rank = (key: string) => starts.findIndex((r) => r.key === key);
  // The two live requests are the first two jobs taken. Without the raise, bulk-150 runs ~152nd.
  assert.ok(rank('ns/bulk-150') < 2, `the raised key ran ${rank('ns/bulk-150') + 1}th`);
  assert.ok(rank('ns/fresh') < 2, `the new live key ran ${rank('ns/fresh') + 1}th`);
  assert.ok(rank('ns/bulk-199') > 100, 'bulk keys keep their FIFO order');
});

test('crash-safe: a worker killed -9 mid-reconcile: its jobs are redelivered and complete', async () => {
  const q = openQueue('crash');
  // Short lock so the test is quick, but not so short that a loaded machine's late lock renewal
  // looks like a crash.
  const ws = await start('crash', 'c', { SLEEP_MS: '1500', LOCK_MS: '2500', STALLED_MS: '1000' });
  const keys = Array.from({ length: 30 }, (_, i) => `ns/crash-${i}`);
  await q.requestAll(keys.map((key) => ({ key, opts: { source: 'live' as const } })));
  const victim = ws[0]!;
  await waitFor(
    'the victim to be mid-reconcile',
    async () => (await readRuns(raw, 'c')).starts.filter((r) => r.pid === victim.pid).length >= 3,
  );
  await victim.kill();
  await victim.exited;
  const { starts: before } = await readRuns(raw, 'c');
  const endedBefore = new Set((await readRuns(raw, 'c')).ends.map((r) => r.jobId));
  const interrupted = before.filter((r) => r.pid === victim.pid && !endedBefore.has(r.jobId));
  assert.ok(interrupted.length >= 1, 'the kill interrupted reconciles');
  // The killed process left its running counters up; they are not overlaps.
  for (const r of interrupted) await raw.decr(`c:run:${r.key}`);
  await waitIdle(q, 30_000);
  const { starts, ends } = await readRuns(raw, 'c');
  for (const key of keys) {
    assert.ok(
      ends.some((e) => e.key === key),
      `${key} completed`,
    );
  }
  for (const r of interrupted) {
    const again = starts.filter((s) => s.jobId === r.jobId && s.pid !== victim.pid);
    assert.equal(
      again.length,
      1,
      `job ${r.jobId} (${r.key}) was redelivered once to a live worker: ${JSON.stringify(again)}`,
    );
    assert.ok(
      ends.some((e) => e.jobId === r.jobId && e.pid !== victim.pid),
      `and completed`,
    );
  }
  assert.deepEqual(await raw.smembers('c:overlap'), [], 'no overlap from the redelivery');
  const failed = await q.queue.getJobs(['failed']);
  assert.deepEqual(
    failed.map((j) => j.failedReason),
    [],
    'nothing failed',
  );
});
