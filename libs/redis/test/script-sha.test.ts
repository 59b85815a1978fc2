// A client of sendScriptsBySha runs defined scripts (as BullMQ defines its commands) with a Redis user
// that may only EVALSHA: plain ioredis sends each script's text by EVAL first on every connection, which
// such a user is refused. A user with every right still heals a flushed script cache by EVAL.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { startRedis, type RedisServer } from '@podset/testkit';
import { sendScriptsBySha } from '../src/script-sha.ts';

const LUA = "return redis.call('GET', KEYS[1])";
const WRITE_LUA = "return redis.call('SET', KEYS[1], ARGV[1])";

let server: RedisServer;
let admin: Redis;
const clients: Redis[] = [];
before(async () => {
  server = await startRedis();
  admin = new Redis(server.url, { maxRetriesPerRequest: 1 });
  await admin.call(
    'ACL',
    'SETUSER',
    'sha-only',
    'on',
    '>sha-only-pw',
    '~*',
    '+@all',
    '-@scripting',
    '+evalsha',
  );
  await admin.call(
    'ACL',
    'SETUSER',
    'sha-ro',
    'on',
    '>sha-ro-pw',
    '%R~*',
    '+@all',
    '-@scripting',
    '+evalsha_ro',
  );
});
after(async () => {
  for (const c of clients) c.disconnect();
  admin?.disconnect();
  await server?.close();
});

interface Scripted extends Redis {
  getIt(key: string): Promise<string | null>;
  setIt(key: string, value: string): Promise<string>;
}

interface ScriptedMulti {
  getIt(key: string): ScriptedMulti;
  setIt(key: string, value: string): ScriptedMulti;
  exec(): Promise<[Error | null, unknown][] | null>;
}

function client(user?: string, password?: string, readOnly = false): Scripted {
  const c = sendScriptsBySha(
    new Redis(server.port, '127.0.0.1', {
      ...(user !== undefined ? { username: user, password } : {}),
      maxRetriesPerRequest: 1,
    }),
    { readOnly, evalInTransactions: user === undefined },
  );
  c.defineCommand('getIt', { numberOfKeys: 1, lua: LUA });
  c.defineCommand('setIt', { numberOfKeys: 1, lua: WRITE_LUA });
  clients.push(c);
  return c as Scripted;
}

test('a user that may only EVALSHA runs a cached script, also in a transaction and on a duplicate', async () => {
  await admin.set('k', 'v');
  await admin.script('LOAD', LUA);
  await admin.script('LOAD', WRITE_LUA);
  const c = client('sha-only', 'sha-only-pw');
  assert.equal(await c.getIt('k'), 'v');
  const multi = c.multi() as unknown as ScriptedMulti;
  const results = await multi.setIt('k', 'w').getIt('k').exec();
  assert.deepEqual(results, [
    [null, 'OK'],
    [null, 'w'],
  ]);
  // BullMQ's blocking connection is a duplicate, on which it defines its commands again.
  const dup = c.duplicate() as Scripted;
  dup.defineCommand('getIt', { numberOfKeys: 1, lua: LUA });
  clients.push(dup);
  assert.equal(await dup.getIt('k'), 'w');
});

test('a script Redis does not have: refused plainly (NOPERM for its EVAL), nothing hangs', async () => {
  await admin.script('FLUSH');
  const c = client('sha-only', 'sha-only-pw');
  await assert.rejects(() => c.getIt('k'), /NOPERM|NOSCRIPT/);
  // Once cached again (the loader's job), the same client runs it.
  await admin.script('LOAD', LUA);
  assert.equal(await c.getIt('k'), 'w');
});

test('a user with every right heals a flushed cache by EVAL, as before', async () => {
  const c = client();
  await admin.script('FLUSH');
  assert.equal(await c.getIt('k'), 'w');
  await admin.script('FLUSH');
  assert.equal(await c.getIt('k'), 'w');
});

test('a user that may EVAL runs a transaction of uncached scripts whole, never half', async () => {
  const c = client();
  await admin.set('k', 'before');
  await admin.script('FLUSH');
  const multi = c.multi() as unknown as ScriptedMulti;
  // A plain write first: with EVALSHA the script's NOSCRIPT would come at EXEC, after this ran.
  const results = await (multi as unknown as { set(k: string, v: string): ScriptedMulti })
    .set('t', 'written')
    .setIt('k', 'after')
    .getIt('k')
    .exec();
  assert.deepEqual(results, [
    [null, 'OK'],
    [null, 'OK'],
    [null, 'after'],
  ]);
});

test('read-only: scripts go as EVALSHA_RO, which a read-only user may run and which may not write', async () => {
  await admin.set('k', 'w');
  await admin.script('LOAD', LUA);
  await admin.script('LOAD', WRITE_LUA);
  const c = client('sha-ro', 'sha-ro-pw', true);
  assert.equal(await c.getIt('k'), 'w');
  await assert.rejects(() => c.setIt('k', 'x'), /Write commands are not allowed|NOPERM|can't access/);
  assert.equal(await admin.get('k'), 'w');
});

test('a pinned script command stays a plain object: its name and sha are data, not accessors', async () => {
  await admin.set('k', 'w');
  await admin.script('LOAD', LUA);
  // Every command the wrapper hands on, seen underneath it.
  const sent: { name: string; args: unknown[] }[] = [];
  const raw = new Redis(server.port, '127.0.0.1', {
    username: 'sha-only',
    password: 'sha-only-pw',
    maxRetriesPerRequest: 1,
  });
  clients.push(raw);
  const send = raw.sendCommand.bind(raw);
  raw.sendCommand = ((command: { name: string; args: unknown[] }, ...rest: unknown[]) => {
    sent.push(command);
    return (send as (...a: unknown[]) => unknown)(command, ...rest);
  }) as typeof raw.sendCommand;
  const c = sendScriptsBySha(raw) as Scripted;
  c.defineCommand('getIt', { numberOfKeys: 1, lua: LUA });
  assert.equal(await c.getIt('k'), 'w');
  const command = sent.find((s) => s.name === 'evalsha');
  assert.ok(command, `an EVALSHA was sent (saw ${sent.map((s) => s.name).join(', ')})`);
  // An accessor on each command (or a defined index on its arguments) made every script call cost about
  // twice the client CPU of plain ioredis: V8 then handles the object and its array by their slow paths.
  assert.ok('value' in Object.getOwnPropertyDescriptor(command, 'name')!, 'name is a data property');
  assert.ok('value' in Object.getOwnPropertyDescriptor(command.args, 0)!, 'the sha is a data element');
  assert.equal(command.args[0], await admin.script('LOAD', LUA));
});

test('read-only, a user that may EVAL: a flushed cache heals by EVAL_RO, twice on one connection', async () => {
  await admin.set('k', 'w');
  const c = client(undefined, undefined, true);
  for (let i = 0; i < 2; i++) {
    await admin.script('FLUSH');
    assert.equal(await c.getIt('k'), 'w');
  }
  // Still read-only after the resends: the script that writes is refused.
  await assert.rejects(() => c.setIt('k', 'x'), /Write commands are not allowed|ERR/);
  assert.equal(await admin.get('k'), 'w');
});
