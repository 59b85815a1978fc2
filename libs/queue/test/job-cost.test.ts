// What a finished job costs Redis, counted (commandstats), not timed.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { useRedis } from '@podset/testkit';
import { keepJobs } from '../src/options.ts';
import { startReconcileWorker, type ReconcileWorker } from '../src/reconcile-worker.ts';

const redis = useRedis();
const raw = redis.client;
const PREFIX = '{cost}';
const workers: ReconcileWorker[] = [];

after(async () => {
  await Promise.all(workers.map((w) => w.close()));
});

async function calls(command: string): Promise<number> {
  const text = await raw.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(text)?.[1] ?? 0);
}

test('keepJobs: an age only when one is asked for or defaulted', () => {
  assert.deepEqual(keepJobs(undefined, 1000), { count: 1000 });
  assert.deepEqual(keepJobs({ ageSeconds: 60 }, 1000), { count: 1000, age: 60 });
  assert.deepEqual(keepJobs({ count: 5 }, 1000, 3600), { count: 5, age: 3600 });
});

test('completed jobs are kept by count alone: a finish scans no ages, and the newest stay', async () => {
  await redis.ready;
  let done = 0;
  const w = startReconcileWorker({
    connection: redis.url,
    queueName: 'count',
    prefix: PREFIX,
    concurrency: 1,
    retention: { completed: { count: 3 } },
    handler: async () => undefined,
    hooks: { onEnd: () => void done++ },
  });
  workers.push(w);
  // One at a time, each due at once: nothing else of the queue reads a sorted set backwards by score
  // (a delayed add would, to place its job); BullMQ's age retention does on every finish.
  for (let i = 0; i < 5; i++) {
    const before = await calls('zrevrangebyscore');
    await w.queue.request(`ns/k-${i}`, { source: 'live' });
    while (done <= i) await sleep(10);
    await sleep(50); // the after-finish merge
    assert.equal(await calls('zrevrangebyscore'), before, `job ${i}: no age scan`);
  }
  const kept = await w.queue.queue.getJobs(['completed'], 0, -1);
  assert.deepEqual(kept.map((j) => j.name).sort(), ['ns/k-2', 'ns/k-3', 'ns/k-4']);
});
