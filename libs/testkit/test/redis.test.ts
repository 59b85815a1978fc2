import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedis } from '../src/redis.ts';

test('startRedis runs a real server; AOF data survives a hard restart', async () => {
  const server = await startRedis({ appendOnly: true });
  try {
    const client = new Redis(server.url, { maxRetriesPerRequest: null, lazyConnect: true });
    await client.connect();
    await client.set('k', 'v');
    client.disconnect();
    await server.restart({ hard: true });
    const again = new Redis(server.url, { lazyConnect: true });
    await again.connect();
    assert.equal(await again.get('k'), 'v');
    again.disconnect();
  } finally {
    await server.close();
  }
});

test('without AOF a restart loses the data', async () => {
  const server = await startRedis();
  try {
    const client = new Redis(server.url, { lazyConnect: true });
    await client.connect();
    await client.set('k', 'v');
    client.disconnect();
    await server.restart({ hard: true });
    const again = new Redis(server.url, { lazyConnect: true });
    await again.connect();
    assert.equal(await again.get('k'), null);
    again.disconnect();
  } finally {
    await server.close();
  }
});
