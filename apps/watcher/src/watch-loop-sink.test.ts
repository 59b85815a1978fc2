// The watch loop and its sink: events are handed on without waiting, the resourceVersion advances only past
// what the sink took, and a sink failure re-delivers from the last good version once all in flight settled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useWatchLoops } from '../test/watch-loop-support.ts';

const setup = useWatchLoops();

test('a sink failure re-delivers the event instead of skipping it', async () => {
  const t = setup({ checkpoint: '100' });
  let failures = 1;
  const original = t.sink.event.bind(t.sink);
  t.sink.event = (ev) => (failures-- > 0 ? Promise.reject(new Error('redis down')) : original(ev));
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a re-delivered');
  assert.deepEqual(t.sink.names(), ['ADDED:a@101']);
  assert.deepEqual(t.api.calls.watchFrom, ['100', '100']);
  t.controller.abort();
  await running;
});

test('events are handed on without waiting, but the RV only advances past events the sink has taken', async () => {
  const t = setup({ checkpoint: '100' });
  const held = new Map<string, () => void>();
  const original = t.sink.event.bind(t.sink);
  t.sink.event = (ev) =>
    ev.rv === '101'
      ? new Promise<void>((resolve) => held.set('101', () => void original(ev).then(resolve)))
      : original(ev);
  const running = t.start();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  t.api.change('a', 'ADDED'); // 101: held
  t.api.change('b', 'ADDED'); // 102
  t.api.change('c', 'ADDED'); // 103
  await t.sink.until(() => t.sink.events.length === 2, 'b and c taken while a is held');
  assert.equal(t.loop.resourceVersion, '100', 'not past the held event');
  assert.equal(t.checkpoint.rvs.get('podsets/*'), '100');
  held.get('101')!();
  await t.sink.until(() => t.loop.resourceVersion === '103', 'RV after a is taken');
  assert.equal(t.checkpoint.rvs.get('podsets/*'), '103');
  void running;
});

test('a failure behind later successes ends the watch at once and re-delivers from the last good RV', async () => {
  const t = setup({ checkpoint: '100' });
  let fail = true;
  const original = t.sink.event.bind(t.sink);
  t.sink.event = (ev) => {
    if (ev.rv === '102' && fail) {
      fail = false;
      return new Promise<void>((_, reject) => setTimeout(() => reject(new Error('redis down')), 50));
    }
    return original(ev);
  };
  const running = t.start();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  t.api.change('a', 'ADDED'); // 101 ok
  t.api.change('b', 'ADDED'); // 102 fails (late)
  t.api.change('c', 'ADDED'); // 103 ok
  await t.sink.until(() => t.loop.counters.restarts['sink-error'] === 1, 'sink error');
  await t.sink.until(
    () => t.sink.names().filter((n) => n.startsWith('ADDED:b')).length === 1,
    'b re-delivered',
  );
  await t.sink.until(() => t.loop.resourceVersion === '103', 'caught up');
  assert.equal(t.api.calls.watchFrom[1], '101', 're-watch from the last event before the failure');
  assert.deepEqual(t.sink.names(), ['ADDED:a@101', 'ADDED:c@103', 'ADDED:b@102', 'ADDED:c@103']);
  void running;
});

test('after a sink failure the stream re-watches only once every event it handed on has settled', async () => {
  const t = setup({ checkpoint: '100' });
  let failed = false;
  let release: (() => void) | undefined;
  const original = t.sink.event.bind(t.sink);
  t.sink.event = (ev) => {
    if (ev.rv === '101' && !failed) {
      failed = true;
      return Promise.reject(new Error('redis down'));
    }
    // 102's first delivery is still on its way when 101 fails (a command queued while Redis reconnects).
    if (ev.rv === '102' && release === undefined)
      return new Promise<void>((resolve) => (release = () => void original(ev).then(resolve)));
    return original(ev);
  };
  const running = t.start();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  t.api.change('a', 'ADDED'); // 101 fails at once
  t.api.change('b', 'ADDED'); // 102 held
  await t.sink.until(() => failed && typeof release === 'function', '101 failed, 102 held');
  // Generous on purpose: without the wait a re-watch comes within the 10–50 ms backoff.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(t.api.calls.watchFrom.length, 1, 'no re-watch while 102 may still land');
  assert.equal(t.loop.resourceVersion, '100');
  release?.();
  await t.sink.until(() => t.loop.counters.restarts['sink-error'] === 1, 'sink error');
  await t.sink.until(() => t.api.calls.watchFrom.length === 2, 're-watch once 102 settled');
  await t.sink.until(() => t.loop.resourceVersion === '102', 'caught up');
  assert.equal(t.api.calls.watchFrom[1], '100');
  assert.deepEqual(t.sink.names(), ['ADDED:b@102', 'ADDED:a@101', 'ADDED:b@102']);
  void running;
});
