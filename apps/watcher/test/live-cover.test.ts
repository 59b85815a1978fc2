// The fold of a burst of watch events asks, in the same script, whether the key's job already waiting in the
// queue covers a live request (LIVE_COVER_LUA): against real BullMQ jobs in real Redis, in each state a
// key's job can be in.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import { ProjectionWriter, type FoldItem, type ProjectedPod } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { jobPrefixOf, LIVE_COVER_LUA, ReconcileQueue } from '@podset/queue';

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;
let projection: ProjectionWriter;
let worker: Worker;

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: 'cover', prefix: '{podset}' });
  projection = new ProjectionWriter({
    client: raw,
    prefix: '{podset}',
    queueName: 'cover',
    liveCover: { lua: LIVE_COVER_LUA, jobPrefix: jobPrefixOf('{podset}', 'cover') },
  });
  await projection.markReady();
  // Takes jobs only when the test asks (getNextJob), as a worker's fetch does.
  worker = new Worker('cover', null, { connection: { url: redis.url }, prefix: '{podset}' });
});

after(async () => {
  await worker.close();
  await queue.close();
});

let rv = 100;
/** A pod event of PodSet `key` that changes a plan input (a new pod, or a phase it did not have). */
function podEvent(key: string, name: string, phase: string): FoldItem & { epoch: number } {
  const [namespace, podset] = key.split('/');
  const object: ProjectedPod = {
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      resourceVersion: String(++rv),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: podset!, uid: 'ps', controller: true },
      ],
    },
    status: { phase },
  };
  return { key, kind: 'pod', type: 'MODIFIED', object, epoch: 1 };
}

const answer = async (item: FoldItem & { epoch: number }) => {
  const [fold] = await projection.foldEach([item]);
  return fold!.covered === true ? 'covered' : fold!.owed ? 'owed' : 'nothing';
};

test('no job for the key: owed', async () => {
  assert.equal(await answer(podEvent('ns/none', 'a', 'Pending')), 'owed');
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

/** Takes jobs until the one of `key` is taken (earlier tests leave jobs waiting). */
async function take(key: string): Promise<Job> {
  for (;;) {
    const job = (await worker.getNextJob('tok')) as Job | undefined;
    assert.ok(job !== undefined, `a job of ${key} to take`);
    if (job.name === key) return job;
  }
}

test('active, with a live next job stored behind it: covered; with a delayed one (requeue-after): owed', async () => {
  await queue.request('ns/next', { source: 'live' });
  await take('ns/next');
  assert.equal(await answer(podEvent('ns/next', 'a', 'Pending')), 'owed', 'nothing stored behind it yet');
  await queue.request('ns/next', { source: 'live' });
  assert.equal(await answer(podEvent('ns/next', 'a', 'Running')), 'covered');

  await queue.request('ns/later', { source: 'live' });
  await take('ns/later');
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
    folds.map((f) => (f.covered === true ? 'covered' : f.owed ? 'owed' : 'nothing')),
    ['covered', 'owed', 'covered'],
  );
});
