// The Redis memory gauges against a real redis-server started with a maxmemory: both series carry the
// node's numbers; with Redis gone there are no samples (not stale ones).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { urlConnector } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import { Registry } from 'prom-client';
import { parseInfoMemory, readRedisMemory, redisMemoryGauges } from '../src/redis-memory.ts';

const redis = useRedis({ args: ['--maxmemory', '64mb'] });

test('parseInfoMemory reads used_memory and maxmemory', () => {
  const info = '# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\nmaxmemory:67108864\r\n';
  assert.deepEqual(parseInfoMemory(info), { usedBytes: 1048576, maxBytes: 67108864 });
});

test('podset_redis_memory_used_bytes and podset_redis_maxmemory_bytes, per node', async () => {
  const connector = urlConnector(redis.url);
  const client = connector.client({ enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const registry = new Registry();
    const errors: Error[] = [];
    redisMemoryGauges(
      registry,
      () => readRedisMemory(client, connector.target),
      (e) => errors.push(e),
    );
    const values = async (name: string) =>
      (await registry.getSingleMetric(name)?.get())?.values.map((v) => [v.labels.node, v.value]);
    const node = `redis://127.0.0.1:${redis.port}`;
    const used = await values('podset_redis_memory_used_bytes');
    assert.equal(used?.length, 1);
    assert.equal(used?.[0]?.[0], node);
    assert.ok(Number(used?.[0]?.[1]) > 0);
    assert.deepEqual(await values('podset_redis_maxmemory_bytes'), [[node, 64 * 1024 * 1024]]);
    assert.deepEqual(errors, []);

    await redis.stop();
    assert.deepEqual(await values('podset_redis_memory_used_bytes'), []);
    assert.deepEqual(await values('podset_redis_maxmemory_bytes'), []);
    assert.ok(errors.length >= 1);
    const scrape = await registry.metrics();
    assert.doesNotMatch(scrape, /^podset_redis_\w+\{/m, 'no samples while Redis is away');
    assert.equal(
      await new Promise((resolve) => {
        const before = errors.length;
        void registry.metrics().then(() => resolve(errors.length - before));
      }),
      1,
      'one read (one error) per scrape for both series',
    );
  } finally {
    client.disconnect();
  }
});
