// Our scripts run by EVALSHA and fall back to EVAL on a Redis that doesn't know them (a fresh or
// restarted server: SCRIPT FLUSH stands in for it here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { useRedis } from '@podset/testkit';
import { luaModule, luaScript, runScript } from '@podset/redis';

const server = useRedis();
const client = server.client;

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

test('the scripts are read from their .lua files once, when the module loads: a new writer or reader reads none', async (t) => {
  const { ProjectionWriter } = await import('../src/projection-writer.ts');
  const { ProjectionReader } = await import('../src/projection-reader.ts');
  // The module's named import of readFileSync follows the mock only once the builtin's exports are synced.
  const read = t.mock.method(fs, 'readFileSync');
  syncBuiltinESMExports();
  t.after(() => {
    read.mock.restore();
    syncBuiltinESMExports();
  });
  new ProjectionWriter({ client, prefix: '{podset}', queueName: 'read-once' });
  new ProjectionReader({ client, prefix: '{podset}', queueName: 'read-once' });
  new ProjectionWriter({
    client,
    prefix: '{podset}',
    queueName: 'read-once-hooked',
    owedKeyHook: {
      lua: luaModule('owed-key', 'local function onOwedKey() return true, false end'),
      args: ['x', ''],
    },
  });
  const luaReads = read.mock.calls.filter((c) => String(c.arguments[0]).endsWith('.lua'));
  assert.deepEqual(luaReads, []);
});
