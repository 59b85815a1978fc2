// The watchdog's decisions on a scripted Redis (a stand-in client and clock): no kill within the bound, one
// kill past it, the kill named after what Redis says runs (FUNCTION KILL for a function), an UNKILLABLE
// script tried again only after another bound, and any reply but BUSY handed to the caller's backoff.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RedisClient } from '@podset/redis';
import { BusyWatchdog, type BusyKillResult } from './redis-busy-watchdog.ts';

const BUSY_SCRIPT = 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.';
const BUSY_FUNCTION =
  'BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.';

/** A Redis whose PING answers `pings` in turn (a string: that error) and whose KILL answers `kill`. */
function fakeRedis(pings: (string | null)[], kill: () => Promise<string>) {
  const sent: string[] = [];
  const client = {
    options: { host: '10.0.0.1', port: 6379 },
    ping: () => {
      const next = pings.shift() ?? null;
      return next === null ? Promise.resolve('PONG') : Promise.reject(new Error(next));
    },
    call: (command: string, sub: string) => {
      sent.push(`${command} ${sub}`);
      return kill();
    },
  };
  return { client: client as unknown as RedisClient, sent };
}

function watchdog(client: RedisClient, clock: { t: number }) {
  const kills: BusyKillResult[] = [];
  const lines: string[] = [];
  const w = new BusyWatchdog({
    client,
    boundMs: 5000,
    clock: { elapsed: () => clock.t },
    log: (l) => lines.push(l),
    onKill: (r) => kills.push(r),
  });
  return { w, kills, lines };
}

test('BUSY within the bound: no kill; past it: one SCRIPT KILL, counted and logged once', async () => {
  const clock = { t: 0 };
  const redis = fakeRedis([BUSY_SCRIPT, BUSY_SCRIPT, BUSY_SCRIPT], async () => 'OK');
  const { w, kills, lines } = watchdog(redis.client, clock);
  await w.check();
  clock.t = 4000;
  await w.check();
  assert.deepEqual(redis.sent, [], 'not yet: 4 s of BUSY, bound 5 s');
  clock.t = 5000;
  await w.check();
  assert.deepEqual(redis.sent, ['SCRIPT KILL']);
  assert.deepEqual(kills, ['killed']);
  assert.equal(lines.length, 1);
  assert.match(lines[0] ?? '', /10\.0\.0\.1:6379 answered BUSY for 5\.0 s .*sent SCRIPT KILL: killed/);
  await w.check();
  assert.deepEqual(kills, ['killed'], 'PONG afterwards: nothing more');
});

test('a PONG between two BUSY spells starts the bound again', async () => {
  const clock = { t: 0 };
  const redis = fakeRedis([BUSY_SCRIPT, null, BUSY_SCRIPT], async () => 'OK');
  const { w } = watchdog(redis.client, clock);
  await w.check();
  clock.t = 3000;
  await w.check();
  clock.t = 6000;
  await w.check();
  assert.deepEqual(redis.sent, [], 'two spells of under 5 s each');
});

test('a function gets FUNCTION KILL', async () => {
  const clock = { t: 0 };
  const redis = fakeRedis([BUSY_FUNCTION, BUSY_FUNCTION], async () => 'OK');
  const { w } = watchdog(redis.client, clock);
  await w.check();
  clock.t = 5000;
  await w.check();
  assert.deepEqual(redis.sent, ['FUNCTION KILL']);
});

test('UNKILLABLE is counted, logged for a person, and tried again only after another bound', async () => {
  const clock = { t: 0 };
  const redis = fakeRedis(Array(5).fill(BUSY_SCRIPT), () =>
    Promise.reject(new Error('UNKILLABLE Sorry the script already executed write commands')),
  );
  const { w, kills, lines } = watchdog(redis.client, clock);
  await w.check();
  clock.t = 5000;
  await w.check();
  clock.t = 6000;
  await w.check();
  assert.deepEqual(kills, ['unkillable'], 'one try within the next bound');
  assert.match(lines[0] ?? '', /unkillable .*SHUTDOWN NOSAVE/);
  clock.t = 10_000;
  await w.check();
  assert.deepEqual(kills, ['unkillable', 'unkillable']);
});

test('NOTBUSY (the script ended meanwhile) is counted as such', async () => {
  const clock = { t: 0 };
  const redis = fakeRedis([BUSY_SCRIPT, BUSY_SCRIPT], () =>
    Promise.reject(new Error('NOTBUSY No scripts in execution right now.')),
  );
  const { w, kills } = watchdog(redis.client, clock);
  await w.check();
  clock.t = 5000;
  await w.check();
  assert.deepEqual(kills, ['not_busy']);
});

test('a reply other than BUSY is thrown for the caller to back off', async () => {
  const redis = fakeRedis(['WRONGPASS invalid username-password pair'], async () => 'OK');
  const { w } = watchdog(redis.client, { t: 0 });
  await assert.rejects(w.check(), /WRONGPASS/);
  assert.deepEqual(redis.sent, []);
});
