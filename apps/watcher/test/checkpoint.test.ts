import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { RedisCheckpoint } from '../src/checkpoint.ts';
import type { Logger } from '../src/log.ts';

const redis = useRedis();
const warned: object[] = [];
const logger: Logger = { debug() {}, info() {}, warn: (obj) => void warned.push(obj), error() {} };
let checkpoint: RedisCheckpoint;
const KEY = 'test:watcher:rv';

before(async () => {
  await redis.ready;
  checkpoint = new RedisCheckpoint({ redis: redis.client, key: KEY, logger });
});

after(() => checkpoint.close());

test('a saved resourceVersion is loaded as it was saved', async () => {
  await checkpoint.save('podsets', '12345', { force: true });
  assert.equal(await checkpoint.load('podsets'), '12345');
  assert.equal(await checkpoint.load('pods'), undefined, 'no checkpoint: a full relist');
});

test('a checkpoint that is no resourceVersion (written in Redis) is a full relist, logged without its value', async () => {
  for (const bad of ['garbage', '9e15', '-1', '1'.repeat(21)]) {
    warned.length = 0;
    await redis.client.hset(KEY, 'pods', bad);
    assert.equal(await checkpoint.load('pods'), undefined, bad);
    assert.equal(warned.length, 1, `${bad} logged`);
    assert.ok(!JSON.stringify(warned).includes(bad), 'the value is not logged');
    assert.match(JSON.stringify(warned), /"stream":"pods"/);
  }
});
