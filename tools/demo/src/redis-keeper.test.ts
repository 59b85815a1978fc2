import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { keepRedis, MAX_RESTARTS } from './redis-keeper.ts';

/** A stand-in server: `die()` ends its current process; restart() gives it a new one. */
function fakeServer() {
  let current = new EventEmitter();
  let pid = 100;
  return {
    port: 6379,
    get process() {
      return current as unknown as ChildProcess;
    },
    get pids() {
      return { server: pid, watchdog: 1 };
    },
    restarts: 0,
    async restart() {
      this.restarts++;
      current = new EventEmitter();
      pid++;
      await Promise.resolve();
    },
    die() {
      current.emit('exit', null, 'SIGKILL');
    },
  };
}

test('a redis-server that dies is said and restarted after a doubling delay; too many deaths stop the run', async () => {
  const server = fakeServer();
  const said: string[] = [];
  const gaveUp: string[] = [];
  const slept: number[] = [];
  let now = 0;
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  keepRedis(
    'demo',
    server,
    { say: (l) => said.push(l), giveUp: (l) => gaveUp.push(l) },
    { now: () => now, sleep: async (ms) => void slept.push(ms) },
  );
  for (let i = 1; i <= MAX_RESTARTS; i++) {
    server.die();
    await settled();
    assert.equal(server.restarts, i);
    now += 1000;
  }
  assert.deepEqual(slept, [1000, 2000, 4000, 8000, 16000]);
  assert.match(said[0] ?? '', /^demo: its redis-server on port 6379 died \(SIGKILL\); restarting it in 1 s/);
  assert.match(said[1] ?? '', /^demo: redis-server is back on port 6379 \(pid 101\)$/);
  assert.deepEqual(gaveUp, []);
  server.die();
  await settled();
  assert.equal(server.restarts, MAX_RESTARTS, 'not restarted a sixth time');
  assert.equal(gaveUp.length, 1);
  assert.match(gaveUp[0] ?? '', /died 6 times within 120 s .*stopping the demo$/);
});

test('deaths further apart than the window are each restarted after the first delay; a stopped keeper does nothing', async () => {
  const server = fakeServer();
  const slept: number[] = [];
  let now = 0;
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  const keeper = keepRedis(
    'operator',
    server,
    { say: () => undefined, giveUp: () => assert.fail('gave up') },
    { now: () => now, sleep: async (ms) => void slept.push(ms) },
  );
  for (let i = 0; i < 8; i++) {
    server.die();
    await settled();
    now += 200_000;
  }
  assert.deepEqual(slept, Array(8).fill(1000));
  keeper.stop();
  server.die();
  await settled();
  assert.equal(server.restarts, 8);
});
