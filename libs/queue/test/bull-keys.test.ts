// Pins keyspace.ts (BullMQ's private key layout) to the installed BullMQ, with real jobs in real Redis.
// When this fails after a BullMQ upgrade, re-read BullMQ's Lua scripts and update keyspace.ts and the
// scripts that use it (merge-script.ts, forget-key.ts, bulk-handback.ts's fold) together.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Worker, type Job } from 'bullmq';
import { useRedis } from '@podset/testkit';
import { BULLMQ_VERSION, bullKeys, jobPrefixOf } from '@podset/redis';
import { parseReconcileRequest } from '../src/payload.ts';
import { ReconcileQueue } from '../src/reconcile-queue.ts';

function installedBullmqVersion(): string {
  // bullmq's exports map hides package.json: walk up from its entry point.
  let dir = path.dirname(createRequire(import.meta.url).resolve('bullmq'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'bullmq' && pkg.version !== undefined) return pkg.version;
    } catch {
      // no package.json here
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error('bullmq/package.json not found');
    dir = up;
  }
}

const redis = useRedis();
const raw = redis.client;
let queue: ReconcileQueue;
let worker: Worker;
const K = bullKeys(jobPrefixOf('{pin}', 'layout'));

before(async () => {
  await redis.ready;
  queue = new ReconcileQueue({ connection: redis.url, queueName: 'layout', prefix: '{pin}', attempts: 1 });
  // Takes jobs by hand (no processor), so each state is observed before it is left.
  worker = new Worker('layout', null, { connection: { url: redis.url }, prefix: '{pin}', autorun: false });
});
after(async () => {
  await worker.close();
  await queue.close();
});

test('keyspace.ts was read from the installed BullMQ version', () => {
  assert.equal(
    installedBullmqVersion(),
    BULLMQ_VERSION,
    'BullMQ changed: check its key layout against keyspace.ts, then update BULLMQ_VERSION',
  );
});

test("the queue's prefix is the one ReconcileQueue and BullMQ use", () => {
  assert.equal(queue.jobPrefix, '{pin}:layout:');
  assert.equal(queue.queue.keys.wait, K.wait);
  assert.equal(queue.queue.keys.prioritized, K.prioritized);
  assert.equal(queue.queue.keys.delayed, K.delayed);
  assert.equal(queue.queue.keys.active, K.active);
  assert.equal(queue.queue.keys.marker, K.marker);
  assert.equal(queue.queue.keys.events, K.events);
  assert.equal(queue.queue.keys.pc, K.pc);
  assert.equal(queue.queue.keys.meta, K.meta);
  assert.equal(queue.queue.keys.completed, K.finished('completed'));
  assert.equal(queue.queue.keys.failed, K.finished('failed'));
  assert.equal(queue.queue.keys[''], jobPrefixOf('{pin}', 'layout'));
});

test('a job, its deduplication key, its stored next job and its finished set are where keyspace.ts says', async () => {
  const key = 'ns/web';
  const first = await queue.request(key, { source: 'live', rv: '5' });
  // The deduplication key holds the job's id; the job hash is named by the key and carries our payload.
  assert.equal(await raw.get(K.dedup(key)), first.jobId);
  const hash = await raw.hgetall(K.job(first.jobId));
  assert.equal(hash.name, key);
  assert.equal(parseReconcileRequest(JSON.parse(hash.data!)).rv, '5');
  assert.equal(hash.priority, '1');
  assert.equal(typeof JSON.parse(hash.opts!), 'object');
  assert.notEqual(await raw.zscore(K.prioritized, first.jobId), null, 'a live job waits by priority');
  assert.ok((await raw.xlen(K.events)) > 0);
  assert.equal(await raw.exists(K.meta), 1);

  const job = (await worker.getNextJob('tok')) as Job | undefined;
  assert.equal(job?.id, first.jobId);
  assert.notEqual(await raw.lpos(K.active, first.jobId), null);
  // A request while the key is active is stored as its next job (keepLastIfActive).
  await queue.request(key, { source: 'bulk', rv: '9' });
  const next = await raw.hgetall(K.dedupNext(key));
  assert.equal(next.name, key);
  assert.equal(typeof next.jid, 'string');
  assert.equal(parseReconcileRequest(JSON.parse(next.data!)).rv, '9');
  assert.equal(typeof JSON.parse(next.opts!), 'object');

  await job!.moveToCompleted('done', 'tok', false);
  assert.notEqual(await raw.zscore(K.finished('completed'), first.jobId), null);
  // The stored next job became a real job, now held by the deduplication key.
  assert.equal(await raw.exists(K.dedupNext(key)), 0);
  const nextId = await raw.get(K.dedup(key));
  assert.equal(nextId, next.jid);
  assert.equal(await raw.hget(K.job(nextId!), 'name'), key);

  const second = (await worker.getNextJob('tok')) as Job | undefined;
  assert.equal(second?.id, nextId);
  await second!.moveToFailed(new Error('for good'), 'tok', false);
  assert.notEqual(await raw.zscore(K.finished('failed'), nextId!), null);
});
