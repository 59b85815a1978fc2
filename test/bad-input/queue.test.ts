// Bad jobs on the queue (written straight into Redis, as a buggy or older producer would): each is
// failed at once, without retries, with a reason naming the problem; the worker keeps running and the
// healthy PodSet beside it still converges. A valid key whose namespace is gone completes quietly.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Queue, type Job } from 'bullmq';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { PODS } from '../e2e/support/check.ts';
import type { OperatorEnv, Proc } from '../e2e/support/harness.ts';
import { healthyStillConverges, startCatalog } from './support/catalog.ts';

let env: OperatorEnv;
let queue: Queue;
let worker: Proc;
before(async () => {
  env = await startCatalog({ name: 'bad-queue' });
  env.startWatcher('watcher-0');
  worker = env.startWorker('worker-0');
  queue = new Queue(DEFAULT_QUEUE_NAME, {
    connection: { host: '127.0.0.1', port: env.redis.port },
    prefix: DEFAULT_PREFIX,
  });
});
after(async () => {
  await queue?.close();
  await env?.close();
});

const now = Date.now();
const valid = { v: 1, key: 'default/x', source: 'live', firstRequestedAt: now, dueAt: now };
let seq = 0;

async function settled(job: Job): Promise<Job> {
  let got: Job | undefined;
  await env.waitFor(`job ${job.id} to finish`, async () => {
    got = await queue.getJob(job.id as string);
    if (got === undefined) return ['job vanished'];
    const state = await got.getState();
    return state === 'completed' || state === 'failed' ? [] : [`state ${state}`];
  });
  // Re-read: the snapshot taken while polling may predate the final state's fields.
  return (await queue.getJob(job.id as string)) as Job;
}

const malformed: { title: string; data: unknown; reason: RegExp }[] = [
  {
    title: 'a payload that is a string',
    data: 'reconcile default/healthy',
    reason: /payload is not an object/,
  },
  { title: 'a payload that is an array', data: [1, 2], reason: /payload is not an object/ },
  { title: 'a payload without a key', data: { ...valid, key: undefined }, reason: /key must be a string/ },
  { title: 'a key without a slash', data: { ...valid, key: 'healthy' }, reason: /must be "namespace\/name"/ },
  {
    title: 'a key with an invalid namespace',
    data: { ...valid, key: 'Bad_NS/healthy' },
    reason: /invalid namespace/,
  },
  {
    title: 'a key with path tricks',
    data: { ...valid, key: 'default/../kube-system' },
    reason: /must be "namespace\/name"|invalid name/,
  },
  {
    title: 'a wrong version (v: 2)',
    data: { ...valid, v: 2, key: 'default/healthy' },
    reason: /unsupported version v=2/,
  },
  {
    title: 'no version',
    data: { ...valid, v: undefined, key: 'default/healthy' },
    reason: /unsupported version/,
  },
  {
    title: 'an unknown source',
    data: { ...valid, key: 'default/healthy', source: 'magic' },
    reason: /source must be/,
  },
  {
    title: 'a timestamp that is a string',
    data: { ...valid, key: 'default/healthy', dueAt: 'soon' },
    reason: /dueAt/,
  },
  {
    title: 'an oversized payload (100 000 reasons, ~2 MB)',
    data: {
      ...valid,
      key: 'default/healthy',
      reasons: Array.from({ length: 100_000 }, (_, i) => `reason ${i} `.padEnd(20, '.')),
    },
    reason: /reasons/,
  },
  {
    title: 'an oversized resourceVersion (1 MB)',
    data: { ...valid, key: 'default/healthy', rv: '9'.repeat(1_000_000) },
    reason: /rv/,
  },
];

for (const c of malformed) {
  test(`job with ${c.title}: failed at once with a clear reason, worker and healthy PodSet unharmed`, async () => {
    const job = await queue.add('bad', c.data, { jobId: `bad-${++seq}`, attempts: 8 });
    const done = await settled(job);
    assert.equal(await done.getState(), 'failed');
    assert.match(done.failedReason, c.reason, `failedReason: ${done.failedReason}`);
    assert.match(done.failedReason, /malformed reconcile request/);
    assert.equal(done.attemptsMade, 1, 'not retried');
    assert.ok(worker.running, worker.describe());
    await healthyStillConverges(env);
  });
}

test('a key for a namespace that no longer exists: completes with nothing done, no pod, no error', async () => {
  env.sim.cluster.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gone' } });
  env.sim.cluster.delete('namespaces', undefined, 'gone');
  await env.waitFor('namespace gone to be deleted', () =>
    env.sim.cluster.get('namespaces', undefined, 'gone') === undefined ? [] : ['still there'],
  );
  const job = await queue.add(
    'default/x',
    { ...valid, key: 'gone/ghost' },
    { jobId: `gone-${++seq}`, attempts: 8 },
  );
  const done = await settled(job);
  assert.equal(await done.getState(), 'completed', `failedReason: ${done.failedReason}`);
  assert.equal(done.attemptsMade <= 1, true);
  assert.equal(env.sim.cluster.list(PODS, 'gone').length, 0);
  assert.ok(worker.running, worker.describe());
  await healthyStillConverges(env);
});
