import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RecordingLogger, useRedis } from '@podset/testkit';
import { RedisCheckpoint } from '../src/checkpoint.ts';

const redis = useRedis();
const logger = new RecordingLogger();
const warned = () => logger.at('warn').map((line) => line.fields);
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

test('a resourceVersion is opaque: one in any format the API could issue is kept and loaded as it was saved', async () => {
  for (const rv of ['9e15', '-1', 'v2:AbC_9+/=', '1'.repeat(21), 'x'.repeat(256)]) {
    logger.lines.length = 0;
    await checkpoint.save('pods', rv, { force: true });
    assert.equal(await checkpoint.load('pods'), rv, rv);
    assert.equal(warned().length, 0, `${rv} not refused`);
  }
});

test('a checkpoint no API issues (written in Redis) is a full relist, logged by its stream without its value', async () => {
  const garbage = {
    empty: '',
    'too long': '7'.repeat(257),
    'a newline': '12\n34',
    'a NUL': '12\u000034',
    'an escape sequence': '\u001b[2J123',
    'not ASCII': '١٢٣',
  };
  for (const [what, bad] of Object.entries(garbage)) {
    logger.lines.length = 0;
    await redis.client.hset(KEY, 'pods', bad);
    assert.equal(await checkpoint.load('pods'), undefined, what);
    assert.equal(warned().length, 1, `${what} logged`);
    const logged = JSON.stringify(warned());
    if (bad !== '')
      assert.ok(!logged.includes(JSON.stringify(bad).slice(1, -1)), `${what}: the value is not logged`);
    assert.match(logged, /"stream":"pods"/);
  }
});

test('a save counts the events its RV moves past: a batch of them can reach everyEvents in one save', async () => {
  const key = 'test:watcher:rv-events';
  const c = new RedisCheckpoint({ redis: redis.client, key, everyEvents: 10, everyMs: 60_000, logger });
  try {
    await c.save('pods', '100', { events: 9 });
    assert.equal(c.writes, 0, '9 events: not yet');
    assert.equal(await redis.client.hget(key, 'pods'), null);
    await c.save('pods', '101');
    assert.equal(c.writes, 1, 'the tenth event writes');
    assert.equal(await redis.client.hget(key, 'pods'), '101');
    await c.save('pods', '140', { events: 40 });
    assert.equal(c.writes, 2, 'one batch of 40 events writes at once');
    assert.equal(await redis.client.hget(key, 'pods'), '140');
  } finally {
    c.close();
  }
});
