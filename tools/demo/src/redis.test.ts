import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoRedis } from './redis.ts';

test("the banner's Redis URL carries no password", async () => {
  const redis = await demoRedis({ REDIS_URL: 'redis://:hunter2@redis.example:6379' });
  assert.equal(redis.url, 'redis://:hunter2@redis.example:6379');
  assert.equal(redis.shown, 'redis://***@redis.example:6379');
});
