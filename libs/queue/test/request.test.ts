// ReconcileQueue.request against real Redis, no worker: what lands in BullMQ's structures.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'bullmq';
import { useRedis } from '@podset/testkit';
import { MAX_TRACEPARENTS, ReconcileQueue, bullKeys, type RequestItem } from '../src/index.ts';
import { parseReconcileRequest } from '../src/payload.ts';

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: 'unit', prefix: '{podset}' });
});

after(async () => {
  await queue.close();
});

const P = '{podset}:unit:';
const K = bullKeys(P);

async function jobData(id: string) {
  return parseReconcileRequest(JSON.parse((await raw.hget(K.job(id), 'data')) ?? 'null'));
}
async function delayedDue(id: string): Promise<number | undefined> {
  const s = await raw.zscore(K.delayed, id);
  return s === null ? undefined : Math.floor(Number(s) / 0x1000);
}

test('keys live under the configured (hash-tagged) prefix', async () => {
  const r = await queue.request('ns/prefix', { source: 'live' });
  assert.equal(await raw.exists(K.job(r.jobId)), 1);
  assert.equal(await queue.currentJobId('ns/prefix'), r.jobId);
});

test('collapse: 100 concurrent requests for a waiting key make one job carrying the merged data', async () => {
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      queue.request('ns/collapse', { source: 'bulk', rv: String(1000 + i), reason: `r${i % 3}` }),
    ),
  );
  const ids = new Set(results.map((r) => r.jobId));
  assert.equal(ids.size, 1);
  assert.equal(results.filter((r) => r.outcome === 'created').length, 1);
  const [id] = ids;
  const data = await jobData(id!);
  assert.equal(data.rv, '1099', 'the max resourceVersion of all requests');
  assert.deepEqual([...(data.reasons ?? [])].sort(), ['r0', 'r1', 'r2']);
  const counts = await queue.queue.getJobCounts('wait', 'prioritized', 'delayed');
  assert.equal(counts.wait! + counts.prioritized! + counts.delayed!, 2); // this key + ns/prefix
});

test('earliest wins: a sooner request pulls a delayed job earlier; a later one never postpones it', async () => {
  const t0 = Date.now();
  const a = await queue.request('ns/earliest', { source: 'bulk', delayMs: 60_000 });
  assert.equal(a.outcome, 'created');
  const due0 = await delayedDue(a.jobId);
  assert.ok(due0 !== undefined && due0 >= t0 + 60_000);
  const b = await queue.request('ns/earliest', { source: 'bulk', delayMs: 20_000 });
  assert.equal(b.jobId, a.jobId);
  const due1 = await delayedDue(a.jobId);
  assert.ok(due1 !== undefined && due1 < t0 + 30_000 && due1 >= t0 + 20_000, `due ${due1! - t0}`);
  await queue.request('ns/earliest', { source: 'bulk', delayMs: 300_000 });
  assert.equal(await delayedDue(a.jobId), due1, 'a longer delay must not postpone');
  assert.equal((await jobData(a.jobId)).dueAt, due1);
  // The marker (what blocked workers wake on) follows the earliest delayed job.
  const marker = await raw.zscore(K.marker, '1');
  assert.ok(marker !== null && Number(marker) <= due1!);
  const c = await queue.request('ns/earliest', { source: 'bulk' });
  assert.equal(c.jobId, a.jobId);
  assert.equal(await delayedDue(a.jobId), undefined, 'due now: no longer delayed');
  assert.notEqual(await raw.zscore(K.prioritized, a.jobId), null, 'waiting at its priority');
});

test('live before bulk: a live request raises a waiting bulk job to the front', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push((await queue.request(`ns/prio-${i}`, { source: 'bulk' })).jobId);
  const r = await queue.request('ns/prio-15', { source: 'live', reason: 'pod deleted' });
  assert.equal(r.jobId, ids[15]);
  assert.equal(await raw.hget(K.job(r.jobId), 'priority'), '1');
  const order = await raw.zrange(K.prioritized, 0, -1);
  const bulkIds = new Set(ids);
  const firstBulk = order.findIndex((id) => bulkIds.has(id) && id !== r.jobId);
  assert.ok(order.indexOf(r.jobId) < firstBulk, 'the raised job sorts before every bulk job');
  assert.equal((await jobData(r.jobId)).source, 'live');
  // A bulk request never lowers a live job's priority.
  await queue.request('ns/prio-15', { source: 'bulk' });
  assert.equal(await raw.hget(K.job(r.jobId), 'priority'), '1');
});

test('a live request for a delayed bulk job raises the priority it will wait at', async () => {
  const a = await queue.request('ns/delayed-prio', { source: 'bulk', delayMs: 60_000 });
  await queue.request('ns/delayed-prio', { source: 'live', delayMs: 30_000 });
  assert.equal(await raw.hget(K.job(a.jobId), 'priority'), '1');
  await queue.request('ns/delayed-prio', { source: 'bulk' });
  const score = await raw.zscore(K.prioritized, a.jobId);
  assert.ok(score !== null && Number(score) < 2 * 2 ** 32, 'promoted at live priority');
});

test('while the key is active, concurrent requests fold into one stored next job: earliest, highest, newest', async () => {
  const key = 'ns/active';
  const first = await queue.request(key, { source: 'bulk' });
  // A worker that only takes the job (no processor): the key is active until we finish it.
  const worker = new Worker('unit', null, {
    connection: { url: redis.url },
    prefix: '{podset}',
    autorun: false,
  });
  try {
    let job = await worker.getNextJob('tok');
    while (job !== undefined && job.id !== first.jobId) {
      await job.moveToCompleted('skip', 'tok', false); // other tests' jobs
      job = await worker.getNextJob('tok');
    }
    assert.ok(job, 'took the job');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        queue.request(key, {
          source: i === 17 ? 'live' : 'bulk',
          delayMs: i === 33 ? 0 : 60_000,
          rv: String(100 + i),
          reason: `r${i % 4}`,
        }),
      ),
    );
    assert.ok(
      results.every((r) => r.jobId === first.jobId && (r.outcome === 'merged' || r.outcome === 'covered')),
    );
    const dn = await raw.hgetall(K.dedupNext(key));
    const data = parseReconcileRequest(JSON.parse(dn.data!));
    const opts = JSON.parse(dn.opts!) as { delay: number; priority: number };
    assert.equal(data.rv, '149');
    assert.equal(data.source, 'live');
    assert.equal(opts.priority, 1, 'the live request raised it');
    assert.equal(opts.delay, 0, 'the immediate request was not overwritten by 49 minute-delayed ones');
    await job.moveToCompleted('done', 'tok', false);
    const next = await queue.currentJobId(key);
    assert.ok(next !== undefined && next !== first.jobId, 'one next job');
    assert.equal(await raw.zscore(K.delayed, next), null, 'not delayed');
    const score = await raw.zscore(K.prioritized, next);
    assert.ok(score !== null && Number(score) < 2 * 2 ** 32, 'waiting at live priority');
    assert.equal(await raw.exists(K.dedupNext(key)), 0);
  } finally {
    await worker.close();
  }
});

test('pullNextEarlier: a next job whose delay BullMQ counted from the finish is pulled back to the requested time', async () => {
  const key = 'ns/settle';
  const first = await queue.request(key, { source: 'bulk' });
  const worker = new Worker('unit', null, {
    connection: { url: redis.url },
    prefix: '{podset}',
    autorun: false,
  });
  try {
    let job = await worker.getNextJob('tok');
    while (job !== undefined && job.id !== first.jobId) {
      await job.moveToCompleted('skip', 'tok', false);
      job = await worker.getNextJob('tok');
    }
    assert.ok(job);
    const t = Date.now();
    await queue.request(key, { source: 'bulk', delayMs: 30_000 });
    await sleep(1_000); // the reconcile takes a while
    await job.moveToCompleted('done', 'tok', false);
    const next = (await queue.currentJobId(key))!;
    const before = await delayedDue(next);
    assert.ok(before !== undefined && before >= t + 31_000 - 50, 'BullMQ counts the delay from the finish');
    await queue.pullNextEarlier(key, first.jobId);
    const after = await delayedDue(next);
    assert.ok(
      after !== undefined && after <= t + 30_000 + 100 && after >= t + 30_000 - 100,
      `due ${after! - t}`,
    );
    await queue.pullNextEarlier(key, next); // the job itself (e.g. in retry backoff) is never moved
    assert.equal(await delayedDue(next), after);
  } finally {
    await worker.close();
  }
});

/** Transactions and script runs Redis saw while `fn` ran (nothing else uses this Redis meanwhile). */
async function tripsOf(fn: () => Promise<unknown>): Promise<{ exec: number; scripts: number }> {
  const stats = async () => {
    const text = await raw.info('commandstats');
    const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(text)?.[1] ?? 0);
    return { exec: calls('exec'), scripts: calls('evalsha') + calls('eval') };
  };
  const before = await stats();
  await fn();
  const after = await stats();
  return { exec: after.exec - before.exec, scripts: after.scripts - before.scripts };
}

test('a request is one script call when its key has a pending job, else that and one transaction; no lock', async () => {
  const key = 'ns/one-trip';
  // The merge script answers alone (merged), or the request goes on to one transaction: the script before
  // BullMQ's add, the add, the script after.
  const merged = { exec: 0, scripts: 1 };
  const added = { exec: 1, scripts: 4 };
  // No job: created.
  assert.deepEqual(await tripsOf(() => queue.request(key, { source: 'bulk', delayMs: 60_000 })), added);
  // Delayed, then waiting: merged.
  assert.deepEqual(await tripsOf(() => queue.request(key, { source: 'bulk', delayMs: 30_000 })), merged);
  assert.deepEqual(await tripsOf(() => queue.request(key, { source: 'live' })), merged);
  const first = (await queue.currentJobId(key))!;
  const worker = new Worker('unit', null, {
    connection: { url: redis.url },
    prefix: '{podset}',
    autorun: false,
  });
  try {
    let job = await worker.getNextJob('tok');
    while (job !== undefined && job.id !== first) {
      await job.moveToCompleted('skip', 'tok', false);
      job = await worker.getNextJob('tok');
    }
    assert.ok(job);
    // Active with no next job: BullMQ stores one. Active with one: merged into it.
    assert.deepEqual(await tripsOf(() => queue.request(key, { source: 'live', rv: '7' })), added);
    const again = await queue.request(key, { source: 'bulk', rv: '8' });
    // The stored next job is live and due at once: it covers a bulk request.
    assert.deepEqual([again.outcome, again.state, again.jobId], ['covered', 'active-next', first]);
    assert.deepEqual(await tripsOf(() => queue.request(key, { source: 'bulk', rv: '9' })), merged);
    assert.equal(await raw.exists(K.heldNext(key)), 0, 'nothing held aside between transactions');
    await job.moveToCompleted('done', 'tok', false);
  } finally {
    await worker.close();
  }
});

test("BullMQ's add never replaces a stored next job: it is held aside and put back, carrying the request", async () => {
  const key = 'ns/held';
  const first = await queue.request(key, { source: 'bulk' });
  const worker = new Worker('unit', null, {
    connection: { url: redis.url },
    prefix: '{podset}',
    autorun: false,
  });
  try {
    let job = await worker.getNextJob('tok');
    while (job !== undefined && job.id !== first.jobId) {
      await job.moveToCompleted('skip', 'tok', false);
      job = await worker.getNextJob('tok');
    }
    assert.ok(job);
    await queue.request(key, { source: 'live', rv: '5', reason: 'due now' });
    const jid = await raw.hget(K.dedupNext(key), 'jid');
    // A later request asks for a minute's delay at bulk priority: BullMQ alone would keep only it.
    await queue.request(key, { source: 'bulk', delayMs: 60_000, rv: '6', reason: 'later' });
    const dn = await raw.hgetall(K.dedupNext(key));
    const opts = JSON.parse(dn.opts!) as { delay: number; priority: number };
    const data = parseReconcileRequest(JSON.parse(dn.data!));
    assert.equal(dn.jid, jid, 'the same stored next job');
    assert.deepEqual([opts.delay, opts.priority], [0, 1], 'still due now, at live priority');
    assert.equal(data.rv, '6', 'carrying the later request');
    assert.deepEqual(data.reasons, ['due now', 'later']);
    await job.moveToCompleted('done', 'tok', false);
  } finally {
    await worker.close();
  }
});

test('requestAll: many keys in one transaction, with the writes each request carries, set or deleted with it', async () => {
  const hash = `${P}test:requested`;
  await raw.hset(hash, 'gone', 'old');
  const items: RequestItem[] = ['ns/all-a', 'ns/all-b', 'ns/all-a'].map((key, i) => ({
    key,
    opts: { source: 'live' as const, rv: String(i) },
    record: [{ key: hash, field: `f${i}`, value: `d${i}` }],
  }));
  items.push({
    key: 'ns/all-b',
    opts: { source: 'live', rv: '9' },
    record: [{ key: hash, field: 'gone', value: undefined }],
  });
  const trips = await tripsOf(() => queue.requestAll(items));
  assert.equal(trips.exec, 1, 'one transaction');
  assert.deepEqual(await raw.hgetall(hash), { f0: 'd0', f1: 'd1', f2: 'd2' });
  const a = (await queue.currentJobId('ns/all-a'))!;
  const b = (await queue.currentJobId('ns/all-b'))!;
  assert.equal((await jobData(a)).rv, '2', 'the second request for a key merged into the job the first made');
  assert.equal((await jobData(b)).rv, '9');
  // Keys with a pending job: merged by the script alone, which makes the writes too.
  const again = await tripsOf(() =>
    queue.requestAll([
      { key: 'ns/all-a', opts: { source: 'live' }, record: [{ key: hash, field: 'f0', value: undefined }] },
      { key: 'ns/all-b', opts: { source: 'live' }, record: [{ key: hash, field: 'f3', value: 'd3' }] },
    ]),
  );
  assert.deepEqual(again, { exec: 0, scripts: 2 });
  assert.deepEqual(await raw.hgetall(hash), { f1: 'd1', f2: 'd2', f3: 'd3' });
});

test('requestAll: an item given noJob goes straight to the transaction, and a stale hint still merges', async () => {
  const hash = `${P}test:no-job`;
  // No job: the transaction alone (no merge script before it).
  const item = (rv: string, field: string): RequestItem => ({
    key: 'ns/no-job',
    opts: { source: 'live', rv },
    record: [{ key: hash, field, value: rv }],
    noJob: true,
  });
  const created = await tripsOf(() => queue.requestAll([item('1', 'a')]));
  assert.deepEqual(created, { exec: 1, scripts: 3 });
  const id = (await queue.currentJobId('ns/no-job'))!;
  // The hint is stale (the key has a job now): the transaction merges into it all the same.
  const [again] = await queue.requestAll([item('2', 'b')]);
  assert.deepEqual([again!.outcome, again!.jobId], ['merged', id]);
  assert.equal((await jobData(id)).rv, '2');
  assert.deepEqual(await raw.hgetall(hash), { a: '1', b: '2' });
  const ids = await raw.zrange(K.prioritized, 0, -1);
  assert.deepEqual(
    ids.filter((j) => j.startsWith('ns~no-job~')),
    [id],
    'one job for the key',
  );
});

test('requestAll answers per key what the queue did: created, merged or covered (the cover rule)', async () => {
  const hash = `${P}test:outcomes`;
  const ask = async (key: string, opts: RequestItem['opts'], field?: string) => {
    const record = field === undefined ? {} : { record: [{ key: hash, field, value: opts.rv ?? '' }] };
    const [r] = await queue.requestAll([{ key, opts, ...record }]);
    return r!.outcome;
  };
  assert.equal(await ask('ns/answers', { source: 'live', delayMs: 60_000 }), 'created');
  // Delayed, due sooner than asked: covered, and the data and the record taken all the same.
  assert.equal(await ask('ns/answers', { source: 'live', delayMs: 120_000, rv: '5' }, 'a'), 'covered');
  const id = (await queue.currentJobId('ns/answers'))!;
  assert.equal((await jobData(id)).rv, '5');
  assert.deepEqual(await raw.hgetall(hash), { a: '5' });
  // Due at once: the delayed job is pulled to now (merged); then waiting at live priority, it covers.
  assert.equal(await ask('ns/answers', { source: 'live' }), 'merged');
  assert.equal(await ask('ns/answers', { source: 'live' }), 'covered');
  assert.equal(await ask('ns/answers', { source: 'bulk' }), 'covered');
  // Waiting at bulk priority: a live request raises it (merged); a bulk one is covered.
  assert.equal(await ask('ns/answers-bulk', { source: 'bulk' }), 'created');
  assert.equal(await ask('ns/answers-bulk', { source: 'bulk' }), 'covered');
  assert.equal(await ask('ns/answers-bulk', { source: 'live' }), 'merged');
});

test('request validates its key', async () => {
  await assert.rejects(queue.request('no-namespace', { source: 'live' }), /namespace\/name/);
});

const traceparent = (n: number) => `00-${n.toString(16).padStart(32, '0')}-${'2'.repeat(16)}-01`;

test('trace contexts: requests that collapse into one job carry every traceparent, the earliest first, bounded', async () => {
  const first = await queue.request('ns/traced', { source: 'live', traceparents: [traceparent(1)] });
  await queue.request('ns/traced', { source: 'live', traceparents: [traceparent(2), traceparent(1)] });
  await queue.request('ns/traced', { source: 'bulk' });
  assert.deepEqual((await jobData(first.jobId)).traceparents, [traceparent(1), traceparent(2)]);
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      queue.request('ns/traced', { source: 'live', traceparents: [traceparent(100 + i)] }),
    ),
  );
  const data = await jobData(first.jobId);
  assert.equal(data.traceparents?.length, MAX_TRACEPARENTS);
  assert.deepEqual(data.traceparents?.slice(0, 2), [traceparent(1), traceparent(2)]);
  // Malformed ones never reach the job; no traceparent at all leaves the field out.
  const r = await queue.request('ns/untraced', { source: 'live', traceparents: ['garbage'] });
  assert.equal((await jobData(r.jobId)).traceparents, undefined);
  assert.equal(JSON.parse((await raw.hget(K.job(r.jobId), 'data'))!).traceparents, undefined);
});
