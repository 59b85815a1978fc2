// forgetKey (a deleted PodSet's finished jobs and event-log entries) against real Redis: it removes
// exactly the key's completed/failed jobs and stream entries, nothing of another key (not even one the
// key is a prefix of), and never the key's active job, its stored next job, or a delayed one.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import { useRedis } from '@podset/testkit';
import { ReconcileQueue, bullKeys, forgetKey } from '../src/index.ts';

const PREFIX = '{podset}';
const redis = useRedis();
const raw = redis.client;
const queues: ReconcileQueue[] = [];
const workers: Worker[] = [];

after(async () => {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map((q) => q.close()));
});

function open(queueName: string): { queue: ReconcileQueue; worker: Worker } {
  const queue = new ReconcileQueue({ connection: redis.url, queueName, prefix: PREFIX });
  // A worker that only takes jobs when asked (no processor): each test decides how a job ends.
  const worker = new Worker(queueName, null, {
    connection: { url: redis.url },
    prefix: PREFIX,
    autorun: false,
  });
  queues.push(queue);
  workers.push(worker);
  return { queue, worker };
}

/** Adds jobs named `key` (random ids, like the queue's own) and finishes them: `completed` ok, `failed` failed. */
async function finished(
  queue: ReconcileQueue,
  worker: Worker,
  key: string,
  completed: number,
  failed: number,
): Promise<void> {
  for (let i = 0; i < completed + failed; i++) {
    await queue.queue.add(key, { v: 1, key }, { removeOnComplete: false, removeOnFail: false, attempts: 1 });
    const job = (await worker.getNextJob('tok')) as Job;
    assert.equal(job.name, key);
    if (i < completed) await job.moveToCompleted('ok', 'tok', false);
    else await job.moveToFailed(new Error('boom'), 'tok', false);
  }
}

async function namesIn(
  queue: ReconcileQueue,
  state: 'completed' | 'failed',
): Promise<Record<string, number>> {
  const ids = await raw.zrange(bullKeys(queue.jobPrefix).finished(state), 0, -1);
  const counts: Record<string, number> = {};
  for (const id of ids) {
    const name = (await raw.hget(bullKeys(queue.jobPrefix).job(id), 'name')) ?? '(no hash)';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

async function idsNamed(queue: ReconcileQueue, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (const state of ['completed', 'failed'] as const) {
    for (const id of await raw.zrange(bullKeys(queue.jobPrefix).finished(state), 0, -1)) {
      if ((await raw.hget(bullKeys(queue.jobPrefix).job(id), 'name')) === key) ids.push(id);
    }
  }
  return ids;
}

async function streamKeys(stream: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [, flat] of await raw.xrange(stream, '-', '+')) {
    const i = flat.indexOf('key');
    const k = i >= 0 && i % 2 === 0 ? flat[i + 1]! : '(none)';
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

const KEYS = ['default/web', 'default/web-2', 'default/we', 'other/web'];

test("removes exactly the key's finished jobs and event-log entries, nothing of other keys", async () => {
  const { queue, worker } = open('forget-exact');
  for (const key of KEYS) await finished(queue, worker, key, 5, 3);
  const stream = `${PREFIX}:forget-exact:watcher:events`;
  // 1,201 entries (three chunks of 500), the key field not always first, and a RELIST marker (key "").
  for (let i = 0; i < 1200; i++) {
    const key = KEYS[i % KEYS.length]!;
    if (i % 2 === 0) await raw.xadd(stream, '*', 't', 'x', 'type', 'MODIFIED', 'kind', 'Pod', 'key', key);
    else await raw.xadd(stream, '*', 'key', key, 'name', key.split('/')[1]!, 'rv', String(i));
  }
  await raw.xadd(stream, '*', 'type', 'RELIST', 'key', '', 'n', '4');

  const webIds = await idsNamed(queue, 'default/web');
  assert.equal(webIds.length, 8);
  const result = await queue.forgetKey('default/web', { eventLogKey: stream });
  assert.deepEqual(result, { completed: 5, failed: 3, events: 300, truncated: false });
  assert.deepEqual(await namesIn(queue, 'completed'), {
    'default/web-2': 5,
    'default/we': 5,
    'other/web': 5,
  });
  assert.deepEqual(await namesIn(queue, 'failed'), { 'default/web-2': 3, 'default/we': 3, 'other/web': 3 });
  assert.deepEqual(await streamKeys(stream), {
    'default/web-2': 300,
    'default/we': 300,
    'other/web': 300,
    '': 1,
  });
  // The job hashes are gone too (BullMQ's remove), not just the set members.
  for (const id of webIds)
    assert.equal(await raw.exists(bullKeys(queue.jobPrefix).job(id)), 0, `job ${id} left`);
  // Idempotent: nothing more to do.
  assert.deepEqual(await queue.forgetKey('default/web', { eventLogKey: stream }), {
    completed: 0,
    failed: 0,
    events: 0,
    truncated: false,
  });
});

test('small chunks walk past equal finish times (a score cursor, not ranks) and the bound reports truncation', async () => {
  const { queue, worker } = open('forget-ties');
  for (const key of ['default/a', 'default/b']) await finished(queue, worker, key, 7, 0);
  // Every job finished "at the same millisecond": the walk must neither loop nor skip.
  const set = bullKeys(queue.jobPrefix).finished('completed');
  for (const id of await raw.zrange(set, 0, -1)) await raw.zadd(set, 'XX', 1_000, id);
  const stream = `${PREFIX}:forget-ties:watcher:events`;
  for (let i = 0; i < 20; i++) await raw.xadd(stream, '*', 'key', i % 2 === 0 ? 'default/a' : 'default/b');

  const target = { client: raw, queue: queue.queue, jobPrefix: queue.jobPrefix };
  const bounded = await forgetKey(target, 'default/a', { eventLogKey: stream, chunk: 3, maxScan: 6 });
  assert.equal(bounded.truncated, true, 'stopped at maxScan');
  assert.ok(bounded.completed < 7 && bounded.events < 10, JSON.stringify(bounded));

  const rest = await forgetKey(target, 'default/a', { eventLogKey: stream, chunk: 3 });
  assert.equal(rest.truncated, false);
  assert.equal(bounded.completed + rest.completed, 7);
  assert.equal(bounded.events + rest.events, 10);
  assert.deepEqual(await namesIn(queue, 'completed'), { 'default/b': 7 });
  assert.deepEqual(await streamKeys(stream), { 'default/b': 10 });
});

test("leaves the key's active job and its stored next job alone; the next one still runs", async () => {
  const { queue, worker } = open('forget-active');
  const key = 'default/web';
  await finished(queue, worker, key, 4, 2);
  // The finalizer's own reconcile: active, and a request arriving meanwhile stored as the next job.
  const first = await queue.request(key, { source: 'live' });
  const active = (await worker.getNextJob('tok')) as Job;
  assert.equal(active.id, first.jobId);
  await queue.request(key, { source: 'live', reason: 'pod deleted' });
  assert.equal(await raw.exists(bullKeys(queue.jobPrefix).dedupNext(key)), 1, 'stored as the next job');

  const result = await queue.forgetKey(key);
  assert.deepEqual(result, { completed: 4, failed: 2, events: 0, truncated: false });
  assert.equal(await queue.queue.getJobState(first.jobId), 'active');
  assert.equal(await queue.currentJobId(key), first.jobId);
  assert.equal(await raw.exists(bullKeys(queue.jobPrefix).dedupNext(key)), 1, 'the stored next job is kept');

  await active.moveToCompleted('done', 'tok', false);
  const after = (await worker.getNextJob('tok')) as Job | undefined;
  assert.equal(after?.name, key, 'the next job was created and runs');
  assert.deepEqual(after?.data.reasons, ['pod deleted']);
  await after.moveToCompleted('done', 'tok', false);
});

test('leaves a delayed or waiting job of the key alone', async () => {
  const { queue, worker } = open('forget-pending');
  await finished(queue, worker, 'default/web', 2, 1);
  await finished(queue, worker, 'default/api', 1, 1);
  const delayed = await queue.request('default/web', { source: 'bulk', delayMs: 60_000 });
  const waiting = await queue.request('default/api', { source: 'live' });
  assert.deepEqual(await queue.forgetKey('default/web'), {
    completed: 2,
    failed: 1,
    events: 0,
    truncated: false,
  });
  assert.deepEqual(await queue.forgetKey('default/api'), {
    completed: 1,
    failed: 1,
    events: 0,
    truncated: false,
  });
  assert.equal(await queue.queue.getJobState(delayed.jobId), 'delayed');
  assert.equal(await queue.currentJobId('default/web'), delayed.jobId);
  assert.equal(await queue.queue.getJobState(waiting.jobId), 'prioritized');
  assert.equal(await queue.currentJobId('default/api'), waiting.jobId);
  assert.deepEqual(await queue.queue.getJobCounts('completed', 'failed'), { completed: 0, failed: 0 });
});

test('refuses what is not a key (an empty key would match the RELIST markers)', async () => {
  const { queue } = open('forget-bad');
  await assert.rejects(queue.forgetKey('', { eventLogKey: 'x' }), /forgetKey/);
  await assert.rejects(queue.forgetKey('no-slash'), /forgetKey/);
});
