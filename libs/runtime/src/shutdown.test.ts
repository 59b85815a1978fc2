import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { Shutdown, type ShutdownOptions } from './shutdown.ts';

/** A Shutdown on a stand-in process: signals are emitted by the test, exits and lines recorded. */
function harness(options: Partial<ShutdownOptions> = {}) {
  const emitter = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  let exited: (code: number) => void = () => undefined;
  const exitedOnce = new Promise<number>((resolve) => (exited = resolve));
  const shutdown = new Shutdown({
    name: 'app',
    emitter: emitter as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
    exit: (code) => {
      exits.push(code);
      exited(code);
    },
    write: (line) => lines.push(line),
    ...options,
  });
  return { shutdown, emitter, exits, lines, exitedOnce };
}

test('a signal after start-up runs stop once and exits 0', async () => {
  const h = harness();
  let stops = 0;
  h.shutdown.onStop(async () => {
    stops++;
  });
  assert.equal(h.shutdown.signal.aborted, false);
  h.emitter.emit('SIGTERM');
  assert.equal(await h.exitedOnce, 0);
  assert.equal(stops, 1);
  assert.equal(h.shutdown.signal.aborted, true);
  assert.equal(h.shutdown.received, 'SIGTERM');
  assert.deepEqual(h.exits, [0]);
});

test('a signal during start-up is remembered: stop runs as soon as the app has started', async () => {
  const h = harness();
  h.emitter.emit('SIGTERM');
  assert.equal(h.shutdown.signal.aborted, true, 'start-up steps can see the request');
  assert.deepEqual(h.exits, [], 'no exit before the app has a stop routine');
  assert.match(h.lines.join(''), /app: SIGTERM received during start-up/);
  let stopped = false;
  h.shutdown.onStop(async () => {
    stopped = true;
  });
  assert.equal(await h.exitedOnce, 0);
  assert.equal(stopped, true);
});

test('a stop that throws exits 1 and says why', async () => {
  const h = harness();
  h.shutdown.onStop(() => Promise.reject(new Error('redis gone')));
  h.emitter.emit('SIGINT');
  assert.equal(await h.exitedOnce, 1);
  assert.match(h.lines.join(''), /error while shutting down: redis gone/);
});

test('a stop that hangs is cut off by the guard with the configured code', async () => {
  const h = harness({ timeoutExitCode: 0 });
  h.shutdown.onStop(() => new Promise<void>(() => undefined), { timeoutMs: 50 });
  h.emitter.emit('SIGTERM');
  assert.equal(await h.exitedOnce, 0);
  assert.match(h.lines.join(''), /did not finish within 50 ms/);
});

test('a start-up that never finishes is cut off too', async () => {
  const h = harness({ timeoutMs: 50 });
  h.emitter.emit('SIGTERM');
  assert.equal(await h.exitedOnce, 1);
});

test('a second signal exits at once without waiting for the stop', async () => {
  const h = harness();
  h.shutdown.onStop(() => new Promise<void>(() => undefined));
  h.emitter.emit('SIGINT');
  h.emitter.emit('SIGINT');
  assert.equal(await h.exitedOnce, 1);
  assert.match(h.lines.join(''), /received again/);
  assert.deepEqual(h.exits, [1], 'exits once');
  assert.equal(h.emitter.listenerCount('SIGINT'), 0, 'handlers removed on exit');
});
