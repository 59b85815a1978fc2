// The fold of a burst of watch events, with `merge` (the watcher's default with tracing off): a live request
// the key's job does not cover is merged into the key's pending job in the fold's own call, as requestAll
// would merge it. Against real BullMQ jobs in real Redis, in each state a key's job can be in: the fold
// answers what the queue would have answered (merged, covered, or owed where the request would create the
// job or find it active), and the job ends where the request would have put it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker } from 'bullmq';
import type { FoldItem, ProjectionWriter } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { jobPrefixOf, PRIORITY, ReconcileQueue } from '@podset/queue';
import { podEvent, take } from './queue-fold-fixtures.ts';
import { admissionOf, watcherProjection } from '../src/queue-cover.ts';

const redis = useRedis();
const raw = redis.client;
const QUEUE = 'fold-merge';
const PREFIX = '{podset}';
const jobPrefix = jobPrefixOf(PREFIX, QUEUE);
/** A status-only change's request would be due WINDOW_MS later. */
const WINDOW_MS = 250;
let queue: ReconcileQueue;
let merging: ProjectionWriter;
let worker: Worker;

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: QUEUE, prefix: PREFIX });
  merging = watcherProjection({
    client: raw,
    prefix: PREFIX,
    queueName: QUEUE,
    cover: true,
    merge: true,
    statusCollapseMs: WINDOW_MS,
  });
  await merging.markReady();
  // Takes jobs only when the test asks (getNextJob), as a worker's fetch does.
  worker = new Worker(QUEUE, null, { connection: { url: redis.url }, prefix: PREFIX });
});

after(async () => {
  await worker.close();
  await queue.close();
});

/** What the fold answers of one event: the queue's answer (merged, covered), owed, or nothing. */
async function answer(item: FoldItem & { epoch: number }): Promise<string> {
  const [fold] = await merging.foldEach([item]);
  const a = admissionOf(fold!);
  if (a.queueAnswer !== undefined) return a.queueAnswer;
  return a.owed ? 'owed' : 'nothing';
}

/** Pod `name` of `key` folded and its request recorded as made: a later phase change is status-only. */
async function seed(key: string, name: string): Promise<void> {
  const [fold] = await merging.foldEach([podEvent(key, name, 'Pending')]);
  assert.equal(fold!.owed, true, `${key}: no job yet, the seed's request is owed`);
  await fold!.requested();
}

/** The key's job as the queue stores it: where, due when (delayed), at what priority, with what data. */
async function jobOf(key: string) {
  const id = await queue.currentJobId(key);
  assert.ok(id !== undefined, `${key} has a job`);
  const [delayed, prioritized, hash] = await Promise.all([
    raw.zscore(`${jobPrefix}delayed`, id),
    raw.zscore(`${jobPrefix}prioritized`, id),
    raw.hgetall(`${jobPrefix}${id}`),
  ]);
  return {
    id,
    where: delayed !== null ? 'delayed' : prioritized !== null ? 'waiting' : 'elsewhere',
    due: delayed === null ? undefined : Math.floor(Number(delayed) / 0x1000),
    priority: Number(hash.priority),
    data: JSON.parse(hash.data!) as { source: string; firstRequestedAt: number; dueAt: number },
  };
}

test('a job delayed past the window (requeue-after): a plan change merges in the fold and makes it waiting, at live priority, for a worker to take', async () => {
  await seed('ns/pulled', 'a');
  await queue.request('ns/pulled', { source: 'live', delayMs: 60_000 });
  const was = await jobOf('ns/pulled');
  const before = Date.now();
  assert.equal(await answer(podEvent('ns/pulled', 'b', 'Pending')), 'merged');
  const now = await jobOf('ns/pulled');
  assert.deepEqual([now.id, now.where, now.priority], [was.id, 'waiting', PRIORITY.live]);
  assert.equal(now.data.firstRequestedAt, was.data.firstRequestedAt, 'the earliest request kept');
  assert.ok(now.data.dueAt >= before && now.data.dueAt <= Date.now(), `due now: ${now.data.dueAt}`);
  assert.equal((await take(worker, 'ns/pulled')).id, was.id, 'a worker takes it at once');
});

test('a job delayed past the window: a status-only change merges in the fold and pulls it to the window, no earlier; the event is recorded as requested', async () => {
  await seed('ns/windowed', 'a');
  await seed('ns/windowed', 'c');
  await queue.request('ns/windowed', { source: 'live', delayMs: 30_000 });
  const before = Date.now();
  const ev = podEvent('ns/windowed', 'a', 'Running');
  assert.equal(await answer(ev), 'merged');
  const now = await jobOf('ns/windowed');
  assert.equal(now.where, 'delayed');
  assert.ok(now.due! >= before + WINDOW_MS && now.due! <= Date.now() + WINDOW_MS, `due ${now.due}`);
  assert.equal(now.data.dueAt, now.due, "the job's data says when it is due");
  assert.equal(await answer(ev), 'nothing', 'the same event again owes nothing');
  assert.equal(
    await answer(podEvent('ns/windowed', 'c', 'Running')),
    'covered',
    "another pod's status-only change: covered by the job the merge moved",
  );
});

test('a bulk job waiting: a live change merges in the fold and raises its priority', async () => {
  await queue.request('ns/bulk', { source: 'bulk' });
  assert.equal((await jobOf('ns/bulk')).priority, PRIORITY.bulk);
  assert.equal(await answer(podEvent('ns/bulk', 'a', 'Pending')), 'merged');
  const now = await jobOf('ns/bulk');
  assert.deepEqual([now.where, now.priority, now.data.source], ['waiting', PRIORITY.live, 'live']);
});

test('active, with a next job stored behind it delayed past the window: a status-only change merges into the stored job', async () => {
  await seed('ns/next', 'a');
  await queue.request('ns/next', { source: 'live' });
  await take(worker, 'ns/next');
  await queue.request('ns/next', { source: 'live', delayMs: 30_000 });
  assert.equal(await answer(podEvent('ns/next', 'a', 'Running')), 'merged');
  const next = await raw.hget(`${jobPrefix}dn:ns/next`, 'opts');
  const delay = (JSON.parse(next!) as { delay: number }).delay;
  assert.ok(
    delay > 0 && delay <= WINDOW_MS,
    `the stored job due the window after the active one ends: ${delay}`,
  );
});

test('no job, or only the active one: owed with the noJob hint, and the queue is left alone', async () => {
  const [none] = await merging.foldEach([podEvent('ns/none', 'a', 'Pending')]);
  assert.deepEqual([none!.owed, admissionOf(none!).noJob], [true, true]);
  assert.equal(await raw.exists(`${jobPrefix}de:ns/none`), 0, 'no job made by the fold');

  await queue.request('ns/busy', { source: 'live' });
  const active = await take(worker, 'ns/busy');
  const [busy] = await merging.foldEach([podEvent('ns/busy', 'a', 'Pending')]);
  assert.deepEqual([busy!.owed, admissionOf(busy!).noJob], [true, true]);
  assert.equal(await raw.exists(`${jobPrefix}dn:ns/busy`), 0, 'nothing stored behind the active job');
  assert.equal(await queue.currentJobId('ns/busy'), active.id);
});

test('the fold’s answer is the queue’s: a live request made instead answers merged, covered or created exactly when the fold merged, covered or owed', async () => {
  // Per state of the key's job, two keys set up alike: one's event folded, the other's request made as the
  // watcher would make it (a plan change: due at once).
  const states: [string, (key: string) => Promise<unknown>][] = [
    ['none', async () => undefined],
    ['live-waiting', (key) => queue.request(key, { source: 'live' })],
    ['bulk-waiting', (key) => queue.request(key, { source: 'bulk' })],
    ['delayed', (key) => queue.request(key, { source: 'live', delayMs: 60_000 })],
  ];
  const asWatcher = { created: 'owed', merged: 'merged', covered: 'covered' } as const;
  for (const [state, setUp] of states) {
    const folded = `ns/same-${state}-f`;
    const asked = `ns/same-${state}-q`;
    await setUp(folded);
    await setUp(asked);
    const [answered] = await queue.requestAll([{ key: asked, opts: { source: 'live' } }]);
    assert.equal(await answer(podEvent(folded, 'a', 'Pending')), asWatcher[answered!.outcome], state);
  }
});
