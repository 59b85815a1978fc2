// A request whose add fails leaves no record that it was made (Redis does not undo the rest of a transaction
// when one command fails), and a value of the queue that breaks every add (what anyone holding an app user's
// Redis password can write) is repaired and reported, the add tried again in the same request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { ReconcileQueue, bullKeys, type AddInputRepair, type RequestItem } from '../src/index.ts';

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;
const repairs: AddInputRepair[] = [];

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({
    connection: redis.url,
    queueName: 'addfail',
    prefix: '{podset}',
    onAddInputRepaired: (r) => repairs.push(r),
  });
});

after(async () => {
  await queue.close();
});

const P = '{podset}:addfail:';
const K = bullKeys(P);
const RECORDS = `${P}test:requested`;

function item(key: string, field: string): RequestItem {
  return { key, opts: { source: 'live' }, record: [{ key: RECORDS, field, value: 'digest' }] };
}

/** Whether `jobId` is somewhere a worker takes it from. */
async function runnable(jobId: string): Promise<boolean> {
  const [prio, delayed, wait] = await Promise.all([
    raw.zscore(K.prioritized, jobId),
    raw.zscore(K.delayed, jobId),
    raw.lpos(K.wait, jobId),
  ]);
  return prio !== null || delayed !== null || wait !== null;
}

test('an add that fails half-way writes no record and leaves no job; the next request adds it', async () => {
  // The event stream of another type: BullMQ's add stores the job, then fails on XADD, nothing undone.
  await raw.del(K.events);
  await raw.set(K.events, 'garbage');
  await assert.rejects(queue.requestAll([item('ns/half', 'f')]), /WRONGTYPE/);
  assert.equal(await raw.hget(RECORDS, 'f'), null, 'a request that did not land is not recorded');
  assert.equal(await queue.currentJobId('ns/half'), undefined, 'no job left that would never run');
  assert.deepEqual(repairs, [], 'the event stream is not a value the add counts on: not repaired');
  await raw.del(K.events);
  const [result] = await queue.requestAll([item('ns/half', 'f')]);
  assert.equal(result!.outcome, 'created');
  assert.equal(await raw.hget(RECORDS, 'f'), 'digest');
  assert.ok(await runnable(result!.jobId));
});

for (const [name, key, field] of [
  ['job-id counter', `${P}id`, undefined],
  ['priority counter', `${P}pc`, undefined],
  ['event-stream length', `${P}meta`, 'opts.maxLenEvents'],
] as const) {
  test(`a ${name} that is not an integer is reported by its key, deleted, and the add tried again`, async () => {
    repairs.length = 0;
    const podset = `ns/bad-${name.replace(/\W/g, '-')}`;
    if (field === undefined) await raw.set(key, '9e15');
    else await raw.hset(key, field, '9e15');
    const [result] = await queue.requestAll([item(podset, podset)]);
    // The event-stream length breaks the add after it queued the job: the second try merges into it.
    assert.equal(result!.jobId, await queue.currentJobId(podset));
    assert.ok(await runnable(result!.jobId), 'the request is a job a worker takes');
    const jobs = (await raw.zrange(K.prioritized, 0, -1)).filter((id) =>
      id.startsWith(podset.replace('/', '~')),
    );
    assert.deepEqual(jobs, [result!.jobId], 'one job for the key');
    assert.equal(await raw.hget(RECORDS, podset), 'digest', 'recorded once it landed');
    assert.deepEqual(
      repairs.map((r) => [r.key, r.field]),
      [[key, field]],
    );
    assert.ok(!JSON.stringify(repairs).includes('9e15'), 'the value written is never reported');
    const now = field === undefined ? await raw.get(key) : await raw.hget(key, field);
    assert.match(now ?? '', /^[0-9]+$/, 'BullMQ counts on it again');
  });
}

test('a failure the repair cannot mend is the caller’s error, and nothing is deleted for it', async () => {
  repairs.length = 0;
  await raw.set(`${P}id`, '41');
  await raw.del(K.events);
  await raw.set(K.events, 'garbage');
  await assert.rejects(queue.requestAll([item('ns/unmended', 'u')]), /WRONGTYPE/);
  // BullMQ's add counted once before it failed: the counter is the writer's plus that, not deleted.
  assert.equal(await raw.get(`${P}id`), '42', 'an integer counter is left alone');
  assert.deepEqual(repairs, []);
  await raw.del(K.events);
});
