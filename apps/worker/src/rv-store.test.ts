import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedis } from '@podset/testkit';
import { Redis } from 'ioredis';
import { memoryRvStore, redisRvStore, rvMax, type RvStore } from './rv-store.ts';

test('rvMax compares decimal resourceVersions as numbers, ignoring non-numeric ones', () => {
  assert.equal(rvMax('9', '10'), '10');
  assert.equal(rvMax('10', '9'), '10');
  assert.equal(rvMax('123456789012345678901', '99'), '123456789012345678901');
  assert.equal(rvMax(undefined, '5'), '5');
  assert.equal(rvMax('abc', '5'), '5');
  assert.equal(rvMax('5', undefined), '5');
  assert.equal(rvMax(undefined, undefined), undefined);
});

async function raisesOnly(store: RvStore): Promise<void> {
  assert.equal(await store.get('ns/a'), undefined);
  await store.raise('ns/a', '10');
  await store.raise('ns/a', '9'); // older: ignored
  assert.equal(await store.get('ns/a'), '10');
  await store.raise('ns/a', '100');
  assert.equal(await store.get('ns/a'), '100');
  await store.forget('ns/a');
  assert.equal(await store.get('ns/a'), undefined);
}

test('memory store only ever raises', async () => {
  await raisesOnly(memoryRvStore());
});

test('redis store only ever raises, shared by clients', async () => {
  const redis = await startRedis();
  const a = new Redis(redis.url);
  const b = new Redis(redis.url);
  try {
    await raisesOnly(redisRvStore(a));
    await redisRvStore(a).raise('ns/b', '42');
    assert.equal(await redisRvStore(b).get('ns/b'), '42');
  } finally {
    a.disconnect();
    b.disconnect();
    await redis.close();
  }
});
