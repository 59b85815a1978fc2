// useRedis at a file's top level, where node:test starts every before() hook the moment it is registered:
// the file's own hook awaits `ready` and then finds the server; its own after() still finds it up.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { useRedis } from '../src/index.ts';

const redis = useRedis();
let seen = '';
before(async () => {
  await redis.ready;
  seen = await redis.client.ping();
});
after(async () => {
  assert.equal(await redis.client.ping(), 'PONG', "the file's own after() runs while the server is up");
});

test("a file's before() hook that awaits ready sees the started server", () => {
  assert.equal(seen, 'PONG');
  assert.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/);
});
