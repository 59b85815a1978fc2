// What a batch costs the watcher's process apart from Redis: its promises, counted (at a cluster's pace a
// batch holds one or two events, so a batch's own machinery is much of an event's cost).
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { test } from 'node:test';
import { silentLogger } from '@podset/log';
import type { Admission, ChangeGate } from './change-gate.ts';
import { EventPipeline } from './event-pipeline.ts';
import type { WatcherRequest } from './request.ts';
import type { WatchEvent } from './watch-loop.ts';

test('a batch that owes nothing goes through no request stage: 9 promises from event to settled, not 17', async () => {
  const answers = (events: readonly unknown[]): Admission[] =>
    events.map(() => ({ owed: false, requested: () => Promise.resolve(), failed: () => undefined }));
  const gate: ChangeGate = {
    admit: (events) => Promise.resolve(answers(events)),
    listed: () => Promise.resolve(),
    relistStarted: () => Promise.resolve(),
    relistDone: () => Promise.resolve(),
    relistingAll: () => undefined,
    resumable: () => Promise.resolve(true),
  };
  const requests: WatcherRequest[][] = [];
  const enq = new EventPipeline({
    queue: { requestAll: async (items) => (requests.push([...items]), []) },
    logger: silentLogger,
    gate,
  });
  const ev: WatchEvent = {
    stream: 'pods/*',
    resource: 'pods',
    type: 'MODIFIED',
    rv: '1',
    object: { metadata: { namespace: 'ns', name: 'a', labels: { 'podset.io/name': 'web' } } },
  };
  await enq.event(ev);
  let promises = 0;
  const hook = createHook({
    init: (_id, type) => void (type === 'PROMISE' && promises++),
  });
  hook.enable();
  await enq.event(ev);
  hook.disable();
  assert.equal(enq.unchanged, 2);
  assert.deepEqual(requests, []);
  assert.ok(promises <= 9, `${promises} promises`);
});
