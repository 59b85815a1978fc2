// The watch loop against an in-memory API: what relists (410 Gone in the stream or at connect, a
// resourceVersion the server never reached, a relist requested from outside, also during a relist) and
// what a relist hands on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../test/fake-api.ts';
import { useWatchLoops } from '../test/watch-loop-support.ts';

const setup = useWatchLoops();

test('410 Gone relists, requests every key, and watches from the new list RV', async () => {
  const t = setup({ checkpoint: '50' });
  t.api.oldest = 90; // the checkpoint is older than what the server keeps
  t.api.change('a', 'ADDED');
  t.api.change('b', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.pages.length === 1 && t.api.streams.size === 1, 'relist + watch');
  assert.equal(t.loop.counters.restarts.gone, 1);
  assert.equal(t.loop.counters.relists, 1);
  assert.equal(t.sink.pages[0]?.cause, '410 Gone');
  assert.deepEqual(
    t.sink.pages[0]?.objects.map((o) => o.metadata?.name),
    ['a', 'b'],
  );
  assert.deepEqual(t.api.calls.watchFrom, ['50', '102']);
  t.api.change('c', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 1, 'c');
  t.controller.abort();
  await running;
});

test('an HTTP 410 at connect also relists', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.failNext.push(new ApiError(410));
  const running = t.start();
  await t.sink.until(() => t.sink.pages.length === 1 && t.api.streams.size === 1, 'relist');
  assert.equal(t.loop.counters.restarts.gone, 1);
  t.controller.abort();
  await running;
});

test('requestRelist drops the watch and relists (e.g. Redis lost the queue)', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1 && t.api.streams.size === 1, 'a');
  t.loop.requestRelist('redis lost its data');
  await t.sink.until(() => t.sink.pages.length === 1 && t.api.streams.size === 1, 'relist');
  assert.equal(t.sink.pages[0]?.cause, 'redis lost its data');
  assert.equal(t.loop.counters.restarts['relist-requested'], 1);
  t.controller.abort();
  await running;
});

test('a relist requested while a relist is under way is done again afterwards', async () => {
  const t = setup();
  t.api.change('a', 'ADDED');
  let asked = false;
  const original = t.sink.listed.bind(t.sink);
  t.sink.listed = (page) => {
    if (!asked) {
      asked = true;
      t.loop.requestRelist('redis lost its data'); // what was just listed went into a Redis that lost it
    }
    return original(page);
  };
  void t.start();
  await t.sink.until(
    () => t.sink.pages.length === 2 && t.api.streams.size === 1,
    'second relist, then watch',
  );
  assert.deepEqual(
    t.sink.pages.map((p) => p.cause),
    ['no checkpoint', 'redis lost its data'],
  );
});

test('a resourceVersion the server never reached (504 ResourceVersionTooLarge) relists, as client-go does', async () => {
  const tooLarge = {
    code: 504,
    reason: 'Timeout',
    message: 'Timeout: Too large resource version: 900, current: 102',
    details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
  };
  // In the stream (as kube-apiserver and kube-sim send it) …
  const t = setup({ checkpoint: '900' });
  t.api.errorEvent = { type: 'ERROR', object: tooLarge };
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.pages.length === 1, 'relist after in-stream 504');
  assert.equal(t.loop.counters.restarts.gone, 1);
  assert.deepEqual(
    t.sink.pages[0]?.objects.map((o) => o.metadata?.name),
    ['a'],
  );
  t.controller.abort();
  await running;

  // … and as the answer to the watch request itself.
  const u = setup({ checkpoint: '900' });
  u.api.failNext.push(Object.assign(new ApiError(504), { status: tooLarge }));
  const again = u.start();
  await u.sink.until(() => u.sink.pages.length === 1, 'relist after HTTP 504');
  assert.equal(u.loop.counters.restarts.gone, 1);
  u.controller.abort();
  await again;
});
