// Our scripts run by EVALSHA and fall back to EVAL on a Redis that doesn't know them (a fresh or
// restarted server: SCRIPT FLUSH stands in for it here).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '@podset/testkit';
import { luaScript, runScript } from '../src/lua/script.ts';

let server: RedisServer;
let client: Redis;
before(async () => {
  server = await startRedis();
  client = new Redis(server.url);
});
after(async () => {
  client.disconnect();
  await server.close();
});

test('runScript: EVAL when Redis lacks the script, EVALSHA once it has it; errors other than NOSCRIPT pass', async () => {
  const script = luaScript("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}");
  await client.script('FLUSH');
  assert.deepEqual(await client.script('EXISTS', script.sha), [0]);
  assert.deepEqual(await runScript(client, script, ['n'], ['a']), ['n', 'a', 1]);
  assert.deepEqual(await client.script('EXISTS', script.sha), [1], 'EVAL loaded it under its sha');
  assert.deepEqual(await runScript(client, script, ['n'], ['b']), ['n', 'b', 2]);
  await assert.rejects(
    runScript(client, luaScript("return redis.call('NOSUCHCOMMAND')"), [], []),
    /Unknown/i,
  );
});
