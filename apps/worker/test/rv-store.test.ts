import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startRedis } from '@podset/testkit';
import { Redis } from 'ioredis';
import { memoryRvStore, redisRvStore, type RvStore } from '../src/rv-store.ts';

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
