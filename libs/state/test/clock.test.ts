// Both sides of the projection take their time from the Clock they are given, not from the wall clock: the
// reader's expectations expire by it, the writer stamps a tombstone's expiry with it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import type { Clock } from '@podset/runtime';
import { startRedis, type RedisServer } from '@podset/testkit';
import type { ProjectedPod } from '../src/projection.ts';
import { ProjectionReader } from '../src/projection-reader.ts';
import { ProjectionWriter } from '../src/projection-writer.ts';

let redis: RedisServer;
let client: Redis;
before(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
after(async () => {
  client.disconnect();
  await redis.close();
});

/** A clock that stands still until the test moves it. */
function clockAt(ms: number): Clock & { set(ms: number): void } {
  let now = ms;
  return {
    now: () => now,
    sleep: () => Promise.reject(new Error('not slept in this test')),
    set: (to) => {
      now = to;
    },
  };
}

const pod: ProjectedPod = {
  metadata: { name: 'a', namespace: 'ns', uid: 'uid-a', resourceVersion: '10' },
};

test("the reader's expectations expire by its clock", async () => {
  const clock = clockAt(Date.now());
  const where = { client, prefix: '{podset}', queueName: 'clock-expect' };
  await new ProjectionWriter(where).markReady();
  const reader = new ProjectionReader({ ...where, clock });
  assert.equal(await reader.expect('ns/web', 'create', ['new-1'], 60_000), 1);
  assert.deepEqual((await reader.read('ns/web'))?.pending, ['new-1']);
  clock.set(clock.now() + 60_001);
  assert.deepEqual((await reader.read('ns/web'))?.pending, [], 'expired a minute later by the clock');
});

test("the writer stamps a deleted pod's tombstone with its clock's time plus the tombstone's ttl", async () => {
  const writer = new ProjectionWriter({
    client,
    prefix: '{podset}',
    queueName: 'clock-tombstone',
    tombstoneTtlMs: 300_000,
    clock: clockAt(1_000_000),
  });
  await writer.foldPod('ns/web', 'ADDED', pod, 1);
  await writer.foldPod('ns/web', 'DELETED', { metadata: { ...pod.metadata, resourceVersion: '11' } }, 1);
  assert.equal(await client.hget(writer.keys('ns/web').pods, 'a'), '1\t11\n1300000');
});
