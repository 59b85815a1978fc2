// The fold of a burst of watch events asks, in the same script, whether the key's job in the queue covers a
// live request (the queue's cover rule, as queue-cover.ts hooks it into the fold): against real BullMQ jobs in
// real Redis, in each state a key's job can be in, for a change a plan reads (due now) and one of a pod's
// status alone (due after the status window). The gate's answer (admissionOf) names the queue's answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import type { FoldItem, ProjectionWriter } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { jobPrefixOf, ReconcileQueue } from '@podset/queue';
import { podEvent, take } from './queue-fold-fixtures.ts';
import { admissionOf, statusWindowIn, statusWindowsArg, watcherProjection } from '../src/queue-cover.ts';
import type { BatchWindows } from '../src/change-gate.ts';
import { windowOf } from '../src/status-windows.ts';

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;
let projection: ProjectionWriter;
/** The watcher's projection with STATUS_COLLAPSE_MS: a status-only request would be due WINDOW_MS later. */
let windowed: ProjectionWriter;
const WINDOW_MS = 250;
let worker: Worker;

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: 'cover', prefix: '{podset}' });
  const where = { client: raw, prefix: '{podset}', queueName: 'cover', cover: true };
  projection = watcherProjection({ ...where, statusCollapseMs: 0 });
  windowed = watcherProjection({ ...where, statusCollapseMs: WINDOW_MS });
  await projection.markReady();
  // Takes jobs only when the test asks (getNextJob), as a worker's fetch does.
  worker = new Worker('cover', null, { connection: { url: redis.url }, prefix: '{podset}' });
});

after(async () => {
  await worker.close();
  await queue.close();
});

const answer = async (item: FoldItem & { epoch: number }) => {
  const [fold] = await projection.foldEach([item]);
  return admissionOf(fold!).queueAnswer === 'covered' ? 'covered' : fold!.owed ? 'owed' : 'nothing';
};

test('no job for the key: owed', async () => {
  assert.equal(await answer(podEvent('ns/none', 'a', 'Pending')), 'owed');
});

test('an owed fold tells whether the key has a pending job to merge into (noJob: its request need not look for one)', async () => {
  const noJob = async (item: FoldItem & { epoch: number }) => {
    const [fold] = await projection.foldEach([item]);
    assert.equal(fold!.owed, true);
    return admissionOf(fold!).noJob === true;
  };
  assert.equal(await noJob(podEvent('ns/no-job', 'a', 'Pending')), true, 'no job');
  await queue.request('ns/no-job-bulk', { source: 'bulk' });
  assert.equal(await noJob(podEvent('ns/no-job-bulk', 'a', 'Pending')), false, 'a bulk job waiting');
  await queue.request('ns/no-job-delayed', { source: 'live', delayMs: 60_000 });
  assert.equal(await noJob(podEvent('ns/no-job-delayed', 'a', 'Pending')), false, 'a delayed job');
  await queue.request('ns/no-job-active', { source: 'live' });
  await take(worker, 'ns/no-job-active');
  // The merge would answer "active": the request goes to the transaction that stores it behind the job.
  assert.equal(
    await noJob(podEvent('ns/no-job-active', 'a', 'Pending')),
    true,
    'an active job, nothing behind',
  );
  await queue.request('ns/no-job-active', { source: 'bulk' });
  assert.equal(
    await noJob(podEvent('ns/no-job-active', 'b', 'Pending')),
    false,
    'a next job stored behind it',
  );
});

test('a live job waiting: covered, and recorded as requested (the same event again owes nothing)', async () => {
  await queue.request('ns/waiting', { source: 'live' });
  const ev = podEvent('ns/waiting', 'a', 'Pending');
  assert.equal(await answer(ev), 'covered');
  assert.equal(await answer(ev), 'nothing', 'recorded as requested in the same call');
  assert.equal(await answer(podEvent('ns/waiting', 'a', 'Running')), 'covered', 'a further change too');
});

test('a bulk job waiting: owed (a live request raises its priority)', async () => {
  await queue.request('ns/bulk', { source: 'bulk' });
  assert.equal(await answer(podEvent('ns/bulk', 'a', 'Pending')), 'owed');
});

test('a delayed job (requeue-after, a retry backoff): owed (a live request pulls it forward)', async () => {
  await queue.request('ns/delayed', { source: 'live', delayMs: 60_000 });
  assert.equal(await answer(podEvent('ns/delayed', 'a', 'Pending')), 'owed');
});

test('active, with a live next job stored behind it: covered; with a delayed one (requeue-after): owed', async () => {
  await queue.request('ns/next', { source: 'live' });
  await take(worker, 'ns/next');
  assert.equal(await answer(podEvent('ns/next', 'a', 'Pending')), 'owed', 'nothing stored behind it yet');
  await queue.request('ns/next', { source: 'live' });
  assert.equal(await answer(podEvent('ns/next', 'a', 'Running')), 'covered');

  await queue.request('ns/later', { source: 'live' });
  await take(worker, 'ns/later');
  await queue.request('ns/later', { source: 'live', delayMs: 60_000 });
  assert.equal(await answer(podEvent('ns/later', 'a', 'Pending')), 'owed', 'a live request pulls it forward');
});

test('the job taken by a worker (active): owed (its reconcile may have read the state already)', async () => {
  await queue.request('ns/active', { source: 'live' });
  let job: Job | undefined;
  // Earlier tests left jobs waiting: take until this key's job is the one taken.
  while (
    (job = (await worker.getNextJob('tok')) as Job | undefined) !== undefined &&
    job.name !== 'ns/active'
  );
  assert.equal(job?.name, 'ns/active');
  assert.equal(await answer(podEvent('ns/active', 'a', 'Pending')), 'owed');
});

test('in one burst, events of a covered key are all covered; other keys answer for themselves', async () => {
  await queue.request('ns/burst', { source: 'live' });
  const folds = await projection.foldEach([
    podEvent('ns/burst', 'a', 'Pending'),
    podEvent('ns/other', 'b', 'Pending'),
    podEvent('ns/burst', 'c', 'Pending'),
  ]);
  assert.deepEqual(
    folds
      .map(admissionOf)
      .map((a) => (a.queueAnswer === 'covered' ? 'covered' : a.owed ? 'owed' : 'nothing')),
    ['covered', 'owed', 'covered'],
  );
});

/** What `writer` answers of one event: covered, owed (status-only or not), or nothing. */
async function answerOf(writer: ProjectionWriter, item: FoldItem & { epoch: number }): Promise<string> {
  const [fold] = await writer.foldEach([item]);
  const admission = admissionOf(fold!);
  if (admission.queueAnswer === 'covered') return 'covered';
  if (!admission.owed) return 'nothing';
  return admission.statusOnly === true ? 'owed status-only' : 'owed';
}

/** Pod `name` of `key` folded and its request recorded as made: a later phase change is status-only. */
async function seed(key: string, name: string): Promise<void> {
  const [fold] = await windowed.foldEach([podEvent(key, name, 'Pending')]);
  assert.equal(fold!.owed, true);
  await fold!.requested();
}

const delayedDue = async (key: string) => {
  const id = await queue.currentJobId(key);
  const score = await raw.zscore(`${jobPrefixOf('{podset}', 'cover')}delayed`, id!);
  return score === null ? undefined : Math.floor(Number(score) / 0x1000);
};

test('a live job delayed within the status window covers a status-only change, not a plan change', async () => {
  await seed('ns/collapsing', 'a');
  // The job a status-only request made a moment ago: due before this one's would be.
  await queue.request('ns/collapsing', { source: 'live', delayMs: WINDOW_MS - 50 });
  assert.equal(await answerOf(windowed, podEvent('ns/collapsing', 'a', 'Running')), 'covered');
  assert.equal(
    await answerOf(windowed, podEvent('ns/collapsing', 'b', 'Pending')),
    'owed',
    'a new pod can change the plan: its request pulls the job to now',
  );
  assert.equal(
    await answerOf(projection, podEvent('ns/collapsing', 'a', 'Pending')),
    'owed status-only',
    'without a status window, a delayed job covers nothing',
  );
});

test('a live job delayed past the status window (requeue-after): a status-only change still requests, and its request pulls the job to the window', async () => {
  await seed('ns/requeued', 'a');
  await queue.request('ns/requeued', { source: 'live', delayMs: 30_000 });
  const before = Date.now();
  assert.equal(await answerOf(windowed, podEvent('ns/requeued', 'a', 'Running')), 'owed status-only');
  await queue.request('ns/requeued', { source: 'live', delayMs: WINDOW_MS });
  const due = await delayedDue('ns/requeued');
  assert.ok(due !== undefined && due <= Date.now() + WINDOW_MS && due >= before, `due ${due}`);
});

test('active, with a live next job stored behind it delayed within the window: covers a status-only change, not a plan change; delayed past it: covers nothing', async () => {
  await seed('ns/next-soon', 'a');
  await queue.request('ns/next-soon', { source: 'live' });
  await take(worker, 'ns/next-soon');
  await queue.request('ns/next-soon', { source: 'live', delayMs: WINDOW_MS });
  assert.equal(await answerOf(windowed, podEvent('ns/next-soon', 'a', 'Running')), 'covered');
  assert.equal(await answerOf(windowed, podEvent('ns/next-soon', 'b', 'Pending')), 'owed');

  await seed('ns/next-late', 'a');
  await queue.request('ns/next-late', { source: 'live' });
  await take(worker, 'ns/next-late');
  await queue.request('ns/next-late', { source: 'live', delayMs: 30_000 });
  assert.equal(await answerOf(windowed, podEvent('ns/next-late', 'a', 'Running')), 'owed status-only');
});

test('the fold’s covered is the queue’s: a live request made instead answers covered exactly when the fold did', async () => {
  // Per state of the key's job: set it up, ask the fold (which records nothing when it owes), then make the
  // live request the event would have made and compare the queue's answer.
  const cases: [string, () => Promise<unknown>][] = [
    ['ns/same-waiting', () => queue.request('ns/same-waiting', { source: 'live' })],
    ['ns/same-bulk', () => queue.request('ns/same-bulk', { source: 'bulk' })],
    ['ns/same-delayed', () => queue.request('ns/same-delayed', { source: 'live', delayMs: 60_000 })],
  ];
  for (const [key, setUp] of cases) {
    await setUp();
    const folded = await answer(podEvent(key, 'a', 'Pending'));
    const [asked] = await queue.requestAll([{ key, opts: { source: 'live' } }]);
    assert.equal(
      folded === 'covered',
      asked!.outcome === 'covered',
      `${key}: fold ${folded}, queue ${asked!.outcome}`,
    );
  }
});

test('one burst, a window per key: each status-only change is covered as its key’s window says, as the queue answers its request', async () => {
  // Every key's job is delayed 1 s: a window of at least that covers a status-only change, a shorter one
  // does not (the request would pull the job forward). ns/x's window is listed, ns/x-2 (its name a longer
  // one) takes the default.
  const windows: BatchWindows = {
    defaultMs: WINDOW_MS,
    exceptions: new Map([
      ['ns/w-now', 0],
      ['ns/x', 5000],
      ['ns/w-long', 60_000],
    ]),
  };
  const keys = ['ns/w-now', 'ns/x', 'ns/x-2', 'ns/w-long', 'ns/w-default'];
  for (const key of keys) {
    await seed(key, 'a');
    await queue.request(key, { source: 'live', delayMs: 1000 });
  }
  const arg = statusWindowsArg(windows);
  for (const key of keys) assert.equal(statusWindowIn(arg, key), windowOf(windows, key), key);
  const folds = await windowed.foldEach(
    keys.map((key) => podEvent(key, 'a', 'Running')),
    undefined,
    arg,
  );
  const answers = folds.map((f) => (admissionOf(f).queueAnswer === 'covered' ? 'covered' : 'owed'));
  assert.deepEqual(answers, ['owed', 'covered', 'owed', 'covered', 'owed']);
  // The request each would have made, due its key's window later: the queue covers it exactly then.
  const asked = await queue.requestAll(
    keys.map((key) => ({ key, opts: { source: 'live' as const, delayMs: windowOf(windows, key) } })),
  );
  assert.deepEqual(
    asked.map((a) => (a.outcome === 'covered' ? 'covered' : 'owed')),
    answers,
  );
});
