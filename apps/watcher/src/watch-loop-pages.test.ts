// The watch loop's paged relist: the next page asked for while the sink takes this one, pages handed on in
// order, and a page that fails (in the sink, or to come) relisting whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../test/fake-api.ts';
import { useWatchLoops } from '../test/watch-loop-support.ts';

const setup = useWatchLoops();

/** The fake's objects served one per page, each list call recorded with its continue token and signal. */
function paged(t: ReturnType<typeof setup>, fail?: (call: number) => Error | undefined) {
  const calls: { cont: string | undefined; signal: AbortSignal | undefined }[] = [];
  t.api.list = async (_r, _ns, o: { continue?: string; signal?: AbortSignal }) => {
    calls.push({ cont: o.continue, signal: o.signal });
    t.api.calls.list++;
    const err = fail?.(calls.length);
    if (err !== undefined) throw err;
    const all = [...t.api.objects.values()];
    const at = o.continue === undefined ? 0 : Number(o.continue);
    return {
      items: all.slice(at, at + 1),
      metadata: {
        resourceVersion: String(t.api.rv),
        ...(at + 1 < all.length ? { continue: String(at + 1) } : {}),
      },
    };
  };
  return calls;
}

/** sink.listed held until released, per call. */
function holdPages(t: ReturnType<typeof setup>, outcome: (call: number) => 'ok' | 'fail' = () => 'ok') {
  const held: (() => void)[] = [];
  let n = 0;
  const original = t.sink.listed.bind(t.sink);
  t.sink.listed = (page) => {
    const call = ++n;
    return new Promise<void>((resolve, reject) => {
      held.push(() => {
        if (outcome(call) === 'fail') reject(new Error('redis down'));
        else void original(page).then(resolve);
      });
    });
  };
  return {
    held,
    async release(): Promise<void> {
      await t.sink.until(() => held.length > 0, 'a page held');
      held.shift()!();
    },
  };
}

const listedNames = (t: ReturnType<typeof setup>) =>
  t.sink.pages.map((p) => p.objects.map((o) => o.metadata?.name).join(','));

test('a paged relist asks for the next page while the sink takes this one, and hands pages on in order', async () => {
  const t = setup();
  for (const name of ['a', 'b', 'c']) t.api.change(name, 'ADDED');
  const calls = paged(t);
  const pages = holdPages(t);
  void t.start();
  await t.sink.until(() => calls.length === 2 && pages.held.length === 1, 'page a held, b asked for');
  assert.equal(t.sink.pages.length, 0, 'b is not handed on before a was taken');
  await pages.release();
  await t.sink.until(() => calls.length === 3 && pages.held.length === 1, 'page b held, c asked for');
  assert.deepEqual(listedNames(t), ['a']);
  await pages.release();
  await pages.release();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  assert.deepEqual(listedNames(t), ['a', 'b', 'c']);
  assert.deepEqual(
    calls.map((c) => c.cont),
    [undefined, '1', '2'],
  );
  assert.equal(t.loop.counters.relists, 1);
  assert.equal(t.api.calls.watchFrom[0], '103');
});

test('a page the sink fails drops the page asked for ahead of it and relists whole', async () => {
  const t = setup();
  for (const name of ['a', 'b']) t.api.change(name, 'ADDED');
  const calls = paged(t);
  const pages = holdPages(t, (call) => (call === 1 ? 'fail' : 'ok'));
  void t.start();
  await t.sink.until(() => calls.length === 2 && pages.held.length === 1, 'page a held, b asked for');
  await pages.release(); // a fails
  await t.sink.until(() => calls.length >= 3, 'relisted from the start');
  assert.equal(calls[1]?.signal?.aborted, true, 'the page ahead was dropped');
  assert.equal(calls[2]?.cont, undefined);
  assert.equal(t.loop.counters.restarts['sink-error'], 1);
  assert.equal(t.loop.resourceVersion, undefined, 'nothing advanced');
  await pages.release();
  await pages.release();
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  assert.deepEqual(listedNames(t), ['a', 'b']);
  assert.equal(t.loop.counters.relists, 1);
});

test('a page ahead that fails to come fails the relist once the page before it was taken', async () => {
  const t = setup();
  for (const name of ['a', 'b']) t.api.change(name, 'ADDED');
  const calls = paged(t, (call) => (call === 2 ? new ApiError(500) : undefined));
  const pages = holdPages(t);
  void t.start();
  await t.sink.until(() => calls.length === 2 && pages.held.length === 1, 'page a held, b failed');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(t.loop.counters.restarts['server-error'], 0, 'not before a was taken');
  await pages.release();
  await t.sink.until(() => t.loop.counters.restarts['server-error'] === 1, 'the failed page ends the relist');
  assert.equal(t.loop.counters.relists, 0);
  await pages.release(); // a again
  await pages.release(); // b
  await t.sink.until(() => t.api.streams.size === 1, 'watch');
  assert.deepEqual(listedNames(t), ['a', 'a', 'b']);
  assert.equal(t.loop.counters.relists, 1);
});
