// The watch loop against an in-memory API: where a watch starts and resumes — the list's resourceVersion
// without a checkpoint, the checkpoint with one (whatever its format), the last event's after a cut or a
// clean end, a bookmark's — and a checkpoint the API refuses.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, type RvFormat } from '../test/fake-api.ts';
import { useWatchLoops } from '../test/watch-loop-support.ts';
import { CHECKPOINT_REFUSED } from './watch-loop.ts';

const setup = useWatchLoops();

test('without a checkpoint: lists, hands over every object, then watches from the list RV', async () => {
  const t = setup();
  t.api.change('a', 'ADDED');
  t.api.change('b', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.api.calls.watch === 1 && t.api.streams.size === 1, 'watch');
  assert.equal(t.api.calls.list, 1);
  assert.deepEqual(
    t.sink.pages.flatMap((p) => p.objects.map((o) => o.metadata?.name)),
    ['a', 'b'],
  );
  assert.equal(t.api.calls.watchFrom[0], '102');
  assert.equal(t.checkpoint.rvs.get('podsets/*'), '102');
  const rv = t.api.change('c', 'ADDED');
  await t.sink.until(() => t.loop.resourceVersion === rv, 'event c');
  assert.deepEqual(t.sink.names(), [`ADDED:c@${rv}`]);
  t.controller.abort();
  await running;
});

test('with a checkpoint: resumes from it without listing and replays what came after', async () => {
  const t = setup({ checkpoint: '101' });
  t.api.change('a', 'ADDED'); // 101, already seen
  t.api.change('b', 'ADDED'); // 102, missed while down
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'replayed event');
  assert.equal(t.api.calls.list, 0);
  assert.deepEqual(t.api.calls.watchFrom, ['101']);
  assert.deepEqual(t.sink.names(), ['ADDED:b@102']);
  t.controller.abort();
  await running;
});

test('a cut connection re-watches from the last RV: nothing missed, nothing relisted', async () => {
  const t = setup({ checkpoint: '100' });
  const running = t.start();
  await t.sink.until(() => t.api.streams.size === 1, 'watch open');
  t.api.change('a', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  t.api.cut();
  t.api.change('b', 'MODIFIED'); // made while the watch is broken
  await t.sink.until(() => t.sink.events.length === 2, 'b after reconnect');
  assert.deepEqual(t.sink.names(), ['ADDED:a@101', 'MODIFIED:b@102']);
  assert.equal(t.loop.counters.restarts.reset, 1);
  assert.equal(t.api.calls.watchFrom[1], '101');
  assert.equal(t.api.calls.list, 0);
  t.controller.abort();
  await running;
});

test('a clean end (server timeout) re-watches from the last RV at once', async () => {
  const t = setup({ checkpoint: '100' });
  const running = t.start();
  t.api.change('a', 'ADDED');
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  t.api.endAll();
  await t.sink.until(() => t.api.calls.watch === 2 && t.api.streams.size === 1, 're-watch');
  assert.equal(t.api.calls.watchFrom[1], '101');
  assert.equal(t.loop.counters.restarts.closed, 1);
  t.controller.abort();
  await running;
});

test('bookmarks advance the RV', async () => {
  const t = setup({ checkpoint: '100' });
  const running = t.start();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  for (let i = 0; i < 6; i++) {
    t.api.bookmark();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(t.loop.counters.restarts.stall, 0);
  assert.equal(t.loop.counters.events.BOOKMARK, 6);
  assert.equal(t.checkpoint.rvs.get('podsets/*'), '106');
  assert.equal(t.sink.events.length, 0);
  t.controller.abort();
  await running;
});

test('a resourceVersion of another format than decimal is opaque: resumed from as the checkpoint holds it', async () => {
  const opaque: RvFormat = {
    issue: (n) => `v1:${n.toString(36)}`,
    read: (rv) => (/^v1:[0-9a-z]+$/.test(rv) ? parseInt(rv.slice(3), 36) : undefined),
  };
  const t = setup({ checkpoint: opaque.issue(101) });
  t.api.rvFormat = opaque;
  t.api.change('a', 'ADDED'); // 101, already seen
  const b = t.api.change('b', 'ADDED'); // 102, missed while down
  const running = t.start();
  await t.sink.until(() => t.loop.resourceVersion === b, 'the replayed event taken');
  assert.equal(t.api.calls.list, 0, 'no relist: the API accepted the checkpoint');
  assert.deepEqual(t.api.calls.watchFrom, [opaque.issue(101)]);
  assert.deepEqual(t.sink.names(), [`ADDED:b@${b}`]);
  t.controller.abort();
  await running;
});

test('a checkpoint the API refuses (400 at connect, or 422 in the stream) relists once, then watches from the list RV', async () => {
  const t = setup({ checkpoint: 'no-version-of-this-server' });
  t.api.change('a', 'ADDED');
  const running = t.start();
  await t.sink.until(() => t.sink.pages.length === 1 && t.api.streams.size === 1, 'relist, then a watch');
  assert.deepEqual(t.api.calls.watchFrom, ['no-version-of-this-server', '101']);
  assert.equal(t.api.calls.list, 1);
  assert.equal(t.loop.counters.restarts['client-error'], 1);
  assert.equal(t.sink.pages[0]?.cause, CHECKPOINT_REFUSED);
  assert.equal(t.checkpoint.rvs.get('podsets/*'), '101', "the list's RV replaces the refused checkpoint");
  t.controller.abort();
  await running;

  const u = setup({ checkpoint: '100' });
  u.api.errorEvent = { type: 'ERROR', object: { code: 422, message: 'resourceVersion: Invalid value' } };
  const again = u.start();
  await u.sink.until(() => u.sink.pages.length === 1, 'relist after an in-stream 422');
  assert.equal(u.sink.pages[0]?.cause, CHECKPOINT_REFUSED);
  u.controller.abort();
  await again;
});

test('a 400 once the API has accepted the resourceVersion is no verdict on it: re-watched from it, no relist', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.change('a', 'ADDED'); // 101
  const running = t.start();
  await t.sink.until(() => t.sink.events.length === 1, 'a');
  t.api.failNext.push(new ApiError(400));
  t.api.cut();
  const b = t.api.change('b', 'ADDED');
  await t.sink.until(() => t.loop.resourceVersion === b, 'b');
  assert.equal(t.api.calls.list, 0);
  assert.equal(t.loop.counters.restarts['client-error'], 1);
  assert.deepEqual(t.api.calls.watchFrom, ['100', '101', '101']);
  t.controller.abort();
  await running;
});
