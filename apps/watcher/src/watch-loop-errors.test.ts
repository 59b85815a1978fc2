// The watch loop against an in-memory API: a watch that stalls or stays quiet, a slow sink, throttling,
// server errors, an unreachable server, a missing CRD and an object of another kind; and stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../test/fake-api.ts';
import { RecordingSink, useWatchLoops } from '../test/watch-loop-support.ts';
import { RecordingLogger } from '@podset/testkit';
import type { WatchEvent } from './watch-loop.ts';

const setup = useWatchLoops();

test('a silent stall (open, nothing sent, not ended at its timeout) is restarted from the last RV', async () => {
  const t = setup({ checkpoint: '100', timeoutSeconds: 1, stallGraceMs: 200 });
  const running = t.start();
  t.api.change('a', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  t.api.stall(); // the fake server no longer sends anything, nor ends the watch at its timeout
  t.api.change('b', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 2, 'b after the stall was noticed');
  assert.equal(t.loop.counters.restarts.stall, 1);
  assert.equal(t.loop.counters.restarts.closed, 0);
  assert.equal(t.api.calls.watchFrom[1], '101');
  assert.deepEqual(t.sink.names(), ['ADDED:a@101', 'ADDED:b@102']);
  t.controller.abort();
  await running;
});

test('a quiet watch (no event, no bookmark) is not restarted for its quiet: the server ends it at its timeout', async () => {
  // A real API server sends a quiet watch nothing at all, not even bookmarks. Each watch here lasts its
  // 1 s timeout, five times the stall grace: an inactivity watchdog would cut every one of them.
  const t = setup({ checkpoint: '100', timeoutSeconds: 1, stallGraceMs: 200 });
  const running = t.start();
  await t.sink.until(() => t.api.calls.watchFrom.length >= 3, 'a third watch, after two ended');
  assert.equal(t.loop.counters.restarts.stall, 0, JSON.stringify(t.loop.counters.restarts));
  assert.deepEqual(t.api.calls.watchFrom.slice(0, 3), ['100', '100', '100']);
  assert.equal(t.api.calls.list, 0);
  t.controller.abort();
  await running;
});

test('a watch whose sink is slow past the deadline is not taken for stalled', async () => {
  // The sink holds the one event in flight for 1.5 s: the server's end of the 1 s watch waits unread.
  const slow = new (class extends RecordingSink {
    override event(ev: WatchEvent) {
      return new Promise<void>((resolve) => setTimeout(resolve, 1500)).then(() => super.event(ev));
    }
  })();
  const t = setup({ checkpoint: '100', timeoutSeconds: 1, stallGraceMs: 200, sink: slow, maxInFlight: 1 });
  const running = t.start();
  t.api.change('a', 'ADDED');
  await t.sink.until(() => t.loop.counters.restarts.closed >= 1, 'the watch ended by the server');
  assert.equal(t.loop.counters.restarts.stall, 0, JSON.stringify(t.loop.counters.restarts));
  assert.deepEqual(t.sink.names(), ['ADDED:a@101']);
  t.controller.abort();
  await running;
});

test('429 waits for Retry-After, 5xx backs off, then the watch resumes without loss', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.failNext.push(new ApiError(429, 0.2), new ApiError(503), new ApiError(500));
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  assert.equal(t.loop.counters.restarts.throttled, 1);
  assert.equal(t.loop.counters.restarts['server-error'], 2);
  assert.deepEqual(t.api.calls.watchFrom, ['100', '100', '100', '100']);
  assert.equal(t.api.calls.list, 0);
  t.controller.abort();
  await running;
});

test('an unreachable server (API restart) is retried until it answers', async () => {
  const t = setup({ checkpoint: '100' });
  for (let i = 0; i < 4; i++) t.api.failNext.push(new Error('connect ECONNREFUSED 127.0.0.1:1'));
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  assert.equal(t.loop.counters.restarts.unreachable, 4);
  t.controller.abort();
  await running;
});

test('an in-stream ERROR other than 410 re-watches from the same RV', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.errorEvent = { type: 'ERROR', object: { code: 500, message: 'internal error' } };
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  assert.equal(t.loop.counters.restarts['server-error'], 1);
  assert.equal(t.api.calls.list, 0);
  t.controller.abort();
  await running;
});

test('stop aborts at once, also during backoff', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.failNext.push(new ApiError(429, 3600));
  const running = t.start();
  await t.sink.until(() => t.loop.counters.restarts.throttled === 1, 'throttled');
  t.controller.abort();
  await running;
});

test('a plain 504 (no ResourceVersionTooLarge cause) is a server error: retried from the same RV, no relist', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.errorEvent = { type: 'ERROR', object: { code: 504, message: 'gateway timeout' } };
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  assert.equal(t.loop.counters.restarts['server-error'], 1);
  assert.equal(t.api.calls.list, 0);
  t.controller.abort();
  await running;
});

test('an object of another kind on the stream is skipped: not handed on, its RV not taken', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.change('a', 'ADDED');
  t.api.change('junk', 'ADDED', { kind: 'ConfigMap', apiVersion: 'v1' });
  const running = t.start();
  await t.sink.until(() => t.loop.counters.unexpected === 1, 'the junk to be seen');
  t.api.change('b', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 2, 'a and b');
  assert.deepEqual(
    t.sink.events.map((e) => e.object.metadata?.name),
    ['a', 'b'],
  );
  assert.equal(t.loop.counters.events.ADDED, 2);
  t.controller.abort();
  await running;
});

test('a 404 on PodSets says once that the CRD is missing and how to install it, keeps retrying, and says once that it appeared', async () => {
  const logger = new RecordingLogger();
  const t = setup({ checkpoint: '100', logger });
  t.api.failNext.push(new ApiError(404), new ApiError(404), new ApiError(404));
  t.api.change('a', 'ADDED');
  const done = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a, after the CRD appeared');
  t.controller.abort();
  await done;
  const loop = t.loop;
  assert.equal(loop.counters.restarts['client-error'], 3);
  const warnings = logger.messages('warn');
  const infos = logger.messages('info');
  // One warning for the three 404s (each retry is a debug line), and one info line when it is served.
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0] ?? '', /podsets\.podset\.io.*crds\/podset\.yaml/);
  assert.equal(infos.filter((l) => /podsets\.podset\.io.*installed now/.test(l)).length, 1, infos.join('\n'));
});
