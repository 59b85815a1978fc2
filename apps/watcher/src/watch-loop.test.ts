import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { ApiError, FakeApi, type RvFormat } from '../test/fake-api.ts';
import { silentLogger, type Logger } from '@podset/log';
import { RecordingLogger } from '@podset/testkit';
import {
  CHECKPOINT_REFUSED,
  WatchLoop,
  type Checkpointer,
  type ListedPage,
  type WatchEvent,
  type WatchSink,
} from './watch-loop.ts';

class MemoryCheckpoint implements Checkpointer {
  readonly rvs = new Map<string, string>();
  saves = 0;
  load(stream: string) {
    return Promise.resolve(this.rvs.get(stream));
  }
  save(stream: string, rv: string) {
    this.saves++;
    this.rvs.set(stream, rv);
    return Promise.resolve();
  }
}

class RecordingSink implements WatchSink {
  readonly events: WatchEvent[] = [];
  readonly pages: ListedPage[] = [];
  #waiters: (() => void)[] = [];
  event(ev: WatchEvent) {
    this.events.push(ev);
    this.#wake();
    return Promise.resolve();
  }
  listed(page: ListedPage) {
    this.pages.push(page);
    this.#wake();
    return Promise.resolve();
  }
  #wake() {
    for (const w of this.#waiters.splice(0)) w();
  }
  /** Resolves once `cond` holds (re-checked after every event/page); fails after 10 s. */
  async until(cond: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  names(): string[] {
    return this.events.map((e) => `${e.type}:${e.object.metadata?.name}@${e.rv}`);
  }
}

// Every loop is stopped after its test, pass or fail, so a failing test can't hang the file.
const running: { controller: AbortController; done?: Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.controller.abort();
    await r.done;
  }
});

interface SetupOptions {
  checkpoint?: string;
  logger?: Logger;
  /** A short timeout the fake server honours (each watch asks exactly this: no random spread). */
  timeoutSeconds?: number;
  stallGraceMs?: number;
  sink?: RecordingSink;
  maxInFlight?: number;
}

function setup(opts: SetupOptions = {}) {
  const api = new FakeApi();
  const checkpoint = new MemoryCheckpoint();
  const sink = opts.sink ?? new RecordingSink();
  if (opts.timeoutSeconds !== undefined) api.honourTimeout = true;
  if (opts.checkpoint !== undefined) checkpoint.rvs.set('podsets/*', opts.checkpoint);
  const loop = new WatchLoop({
    resource: 'podsets',
    namespace: undefined,
    api,
    sink,
    checkpoint,
    logger: opts.logger ?? silentLogger,
    ...(opts.timeoutSeconds !== undefined ? { timeoutSeconds: opts.timeoutSeconds, random: () => 0 } : {}),
    stallGraceMs: opts.stallGraceMs ?? 60_000,
    ...(opts.maxInFlight !== undefined ? { maxInFlight: opts.maxInFlight } : {}),
    backoff: { baseMs: 10, maxMs: 50 },
  });
  const controller = new AbortController();
  const entry: { controller: AbortController; done?: Promise<void> } = { controller };
  running.push(entry);
  const start = () => (entry.done = loop.run(controller.signal));
  return { api, checkpoint, sink, loop, controller, start };
}

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

test('stop aborts at once, also during backoff', async () => {
  const t = setup({ checkpoint: '100' });
  t.api.failNext.push(new ApiError(429, 3600));
  const running = t.start();
  await t.sink.until(() => t.loop.counters.restarts.throttled === 1, 'throttled');
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
