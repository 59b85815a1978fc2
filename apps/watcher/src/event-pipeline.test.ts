import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PodSetChangeFilter } from './change-filter.ts';
import type { Admission, ChangeGate } from './change-gate.ts';
import { EventPipeline, type ReconcileRequester } from './event-pipeline.ts';
import type { QueueAnswer, WatcherRequest } from './request.ts';
import type { EventRecord } from './event-log.ts';
import { silentLogger } from '@podset/log';
import type { WatchEvent } from './watch-loop.ts';

/** The queue's answers to `items`: each created. */
const created = (items: readonly WatcherRequest[]) => items.map(() => ({ outcome: 'created' as const }));

/** A queue whose requests complete only when the test says so; `batches`: the keys of each call. */
class ManualQueue implements ReconcileRequester {
  readonly calls: { key: string; source: string; settle: (err?: Error) => void }[] = [];
  readonly batches: string[][] = [];
  requestAll(items: readonly WatcherRequest[]) {
    this.batches.push(items.map((i) => i.key));
    return Promise.all(
      items.map(
        ({ key, opts }) =>
          new Promise<QueueAnswer>((resolve, reject) => {
            this.calls.push({
              key,
              source: opts.source,
              settle: (err) => (err === undefined ? resolve({ outcome: 'created' }) : reject(err)),
            });
          }),
      ),
    );
  }
}

const tick = () => new Promise((r) => setImmediate(r));

/** A spec change (each RV a new generation), so every one of them may change a plan. */
const podSetEvent = (name: string, rv: string): WatchEvent => ({
  stream: 'podsets/*',
  resource: 'podsets',
  type: 'MODIFIED',
  object: { metadata: { namespace: 'default', name, resourceVersion: rv, generation: Number(rv) } },
  rv,
});

test('the events of one batch request each key once, in one call; a later batch requests at once, without waiting for it', async () => {
  const queue = new ManualQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
  const first = [
    enq.event(podSetEvent('web', '10')),
    enq.event(podSetEvent('web', '11')),
    enq.event(podSetEvent('api', '12')),
  ];
  await tick();
  await tick();
  assert.deepEqual(
    queue.batches,
    [['default/web', 'default/api']],
    'one call, one request per key of the batch',
  );
  const later = [enq.event(podSetEvent('web', '13')), enq.event(podSetEvent('web', '14'))];
  await tick();
  await tick();
  // The queue merges a key's requests: nothing to hold back while an earlier one is on its way.
  assert.deepEqual(queue.batches, [['default/web', 'default/api'], ['default/web']]);
  let laterDone = false;
  void Promise.all(later).then(() => (laterDone = true));
  queue.calls[2]!.settle();
  await tick();
  assert.equal(laterDone, true, 'the later events settle with their own request');
  queue.calls[0]!.settle();
  queue.calls[1]!.settle();
  await Promise.all(first);
  assert.equal(enq.coalesced, 2, 'web@11 in its batch, web@14 in its batch');
  assert.equal(enq.requested.live, 3);
});

test('a failed request fails its batch; a later batch has its own request', async () => {
  const queue = new ManualQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
  const first = enq.event(podSetEvent('web', '1'));
  await tick();
  await tick();
  const second = enq.event(podSetEvent('web', '2'));
  await tick();
  await tick();
  assert.equal(queue.calls.length, 2);
  queue.calls[0]!.settle(new Error('redis down'));
  await assert.rejects(first, /redis down/);
  queue.calls[1]!.settle();
  await second;
});

test('the event log is appended in event order, a batch in one call, even when requests complete out of order', async () => {
  const queue = new ManualQueue();
  const appended: string[][] = [];
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    eventLog: {
      append: () => Promise.reject(new Error('a live event is appended with its batch')),
      appendMany: (rs: readonly EventRecord[]) => {
        appended.push(rs.map((r) => `${r.key}@${r.rv}`));
        return Promise.resolve();
      },
    },
  });
  const all = [
    enq.event(podSetEvent('a', '1')),
    enq.event(podSetEvent('b', '2')),
    enq.event(podSetEvent('c', '3')),
  ];
  await tick();
  all.push(enq.event(podSetEvent('d', '4')));
  await tick();
  await tick();
  assert.deepEqual(appended, [['default/a@1', 'default/b@2', 'default/c@3'], ['default/d@4']]);
  for (const c of [...queue.calls].reverse()) c.settle();
  await Promise.all(all);
});

test('a relist page requests each distinct key at bulk priority', async () => {
  const requests: string[] = [];
  const enq = new EventPipeline({
    gate: new PodSetChangeFilter(),
    queue: {
      requestAll: (items) => {
        for (const { key, opts } of items) requests.push(`${key}:${opts.source}`);
        return Promise.resolve(created(items));
      },
    },
    logger: silentLogger,
  });
  const owner = { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'u', controller: true };
  await enq.listed({
    stream: 'pods/*',
    resource: 'pods',
    cause: '410 Gone',
    objects: [
      { metadata: { namespace: 'd', name: 'web-1', ownerReferences: [owner] } },
      { metadata: { namespace: 'd', name: 'web-2', ownerReferences: [owner] } },
      { metadata: { namespace: 'd', name: 'stray' } },
    ],
  });
  assert.deepEqual(requests, ['d/web:bulk']);
  assert.equal(enq.requested.bulk, 1);
});

/** Records requests; they complete at once, or fail while `failing` is set. */
function recordingQueue() {
  const keys: string[] = [];
  const q = {
    keys,
    failing: false,
    requestAll(items: readonly WatcherRequest[]) {
      if (q.failing) return Promise.reject(new Error('redis down'));
      keys.push(...items.map((i) => i.key));
      return Promise.resolve(created(items));
    },
  };
  return q;
}

const podSet = (
  over: { generation?: number; rv: string; status?: object } & Record<string, unknown>,
): WatchEvent => {
  const { generation = 1, rv, status, ...meta } = over;
  return {
    stream: 'podsets/*',
    resource: 'podsets',
    type: 'MODIFIED',
    object: {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { namespace: 'default', name: 'web', uid: 'u1', generation, resourceVersion: rv, ...meta },
      ...(status !== undefined ? { status } : {}),
    } as WatchEvent['object'],
    rv,
  };
};

test('a PodSet event that changed only its status requests no reconcile (the operator never wakes itself up)', async () => {
  const queue = recordingQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
  await enq.event({ ...podSet({ rv: '1' }), type: 'ADDED' });
  assert.deepEqual(queue.keys, ['default/web']);
  // The worker's own status writes: same generation, finalizers, labels, deletion.
  await enq.event(podSet({ rv: '2', status: { replicas: 1 } }));
  await enq.event(podSet({ rv: '3', status: { conditions: [{ type: 'ReplicaFailure' }] } }));
  await enq.event(podSet({ rv: '4', annotations: { note: 'x' } }));
  // The worker's revision annotation (its record of the template history).
  await enq.event(podSet({ rv: '5', annotations: { note: 'x', 'podset.io/revision': '2' } }));
  assert.deepEqual(queue.keys, ['default/web'], 'status or annotation changes request nothing');
  assert.equal(enq.unchanged, 4);
});

test('a PodSet event that changed what a plan reads requests a reconcile', async () => {
  const cases: [string, WatchEvent][] = [
    ['a new generation (spec change)', podSet({ rv: '2', generation: 2 })],
    ['a finalizer added', podSet({ rv: '2', finalizers: ['podset.io/cleanup'] })],
    ['a label changed', podSet({ rv: '2', labels: { tier: 'web' } })],
    ['deletion started', podSet({ rv: '2', deletionTimestamp: '2026-01-01T00:00:00Z' })],
    ['deleted', { ...podSet({ rv: '2' }), type: 'DELETED' }],
  ];
  for (const [what, ev] of cases) {
    const queue = recordingQueue();
    const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
    await enq.event({ ...podSet({ rv: '1' }), type: 'ADDED' });
    await enq.event(ev);
    assert.deepEqual(queue.keys, ['default/web', 'default/web'], what);
  }
});

test('a relisted PodSet is remembered: its later status-only events request nothing', async () => {
  const queue = recordingQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
  await enq.listed({
    stream: 'podsets/*',
    resource: 'podsets',
    cause: 'start',
    objects: [podSet({ rv: '1' }).object],
  });
  await enq.event(podSet({ rv: '2', status: { replicas: 3 } }));
  assert.deepEqual(queue.keys, ['default/web'], 'only the relist request');
});

test('an event whose request failed is requested again when the watch re-delivers it', async () => {
  const queue = recordingQueue();
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: new PodSetChangeFilter() });
  await enq.event({ ...podSet({ rv: '1' }), type: 'ADDED' });
  queue.failing = true;
  await assert.rejects(enq.event(podSet({ rv: '2', generation: 2 })), /redis down/);
  queue.failing = false;
  await enq.event(podSet({ rv: '2', generation: 2 })); // the watch resumes from RV 1
  assert.deepEqual(queue.keys, ['default/web', 'default/web']);
});

/** A gate that owes what the test says and records what the pipeline tells it. */
function scriptedGate(owed: (ev: WatchEvent) => boolean) {
  const log: string[] = [];
  const gate: ChangeGate = {
    admit: async (events) =>
      events.map(({ ev, key }) => {
        log.push(`admit ${key}@${ev.rv}`);
        return {
          owed: owed(ev),
          requested: async () => void log.push(`requested ${key}@${ev.rv}`),
          failed: () => void log.push(`failed ${key}@${ev.rv}`),
        };
      }),
    listed: async (page) => void log.push(`listed ${page.objects.length}`),
    relistStarted: async (stream) => void log.push(`relist ${stream}`),
    relistDone: async (info) => void log.push(`relisted ${info.stream}`),
    relistingAll: () => undefined,
    resumable: async () => true,
  };
  return { gate, log };
}

/** A gate whose every event owes a request, each admission with what `extra` adds for its event. */
function owingGate(extra: (ev: WatchEvent) => Partial<Admission>): ChangeGate {
  return {
    ...scriptedGate(() => true).gate,
    admit: async (events) =>
      events.map(({ ev }) => ({
        owed: true,
        requested: async () => undefined,
        failed: () => undefined,
        ...extra(ev),
      })),
  };
}

test('the pipeline requests what the gate says is owed, and tells it whether the request went through', async () => {
  const queue = recordingQueue();
  const { gate, log } = scriptedGate((ev) => ev.rv !== '2');
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  await enq.event(podSetEvent('web', '1'));
  await enq.event(podSetEvent('web', '2'));
  queue.failing = true;
  await assert.rejects(enq.event(podSetEvent('web', '3')), /redis down/);
  assert.deepEqual(queue.keys, ['default/web'], 'rv 2 owed nothing; rv 3 failed');
  assert.deepEqual(log, [
    'admit default/web@1',
    'requested default/web@1',
    'admit default/web@2',
    'admit default/web@3',
    'failed default/web@3',
  ]);
  assert.equal(enq.unchanged, 1);
});

test('relists go through the gate before their keys are requested in bulk', async () => {
  const queue = recordingQueue();
  const { gate, log } = scriptedGate(() => true);
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  await enq.relistStarted('podsets/*');
  await enq.listed({
    stream: 'podsets/*',
    resource: 'podsets',
    cause: 'start',
    objects: [podSet({ rv: '1' }).object],
  });
  await enq.relistDone({ stream: 'podsets/*', resource: 'podsets', namespace: undefined });
  assert.deepEqual(log, ['relist podsets/*', 'listed 1', 'relisted podsets/*']);
  assert.deepEqual(queue.keys, ['default/web']);
});

test('a batch: one request per owing key, every owing event recorded as requested; a failure fails the whole batch', async () => {
  const queue = recordingQueue();
  const { gate, log } = scriptedGate((ev) => ev.rv !== '2');
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  await Promise.all([
    enq.event(podSetEvent('web', '1')),
    enq.event(podSetEvent('web', '2')),
    enq.event(podSetEvent('web', '3')),
  ]);
  assert.deepEqual(queue.keys, ['default/web'], 'one request for the three events');
  assert.deepEqual(log, [
    'admit default/web@1',
    'admit default/web@2',
    'admit default/web@3',
    'requested default/web@1',
    'requested default/web@3',
  ]);
  log.length = 0;
  queue.failing = true;
  const batch = [enq.event(podSetEvent('web', '4')), enq.event(podSetEvent('api', '2'))];
  await assert.rejects(batch[0]!, /redis down/);
  await assert.rejects(batch[1]!, /redis down/, 'the event that owed nothing fails with its batch');
  assert.deepEqual(log, [
    'admit default/web@4',
    'admit default/api@2',
    'failed default/web@4',
    'failed default/api@2',
  ]);
});

test("an owed event's record of its request travels in the request's own transaction, not after it", async () => {
  const sent: WatcherRequest[] = [];
  const calledAfter: string[] = [];
  const gate = owingGate((ev) => ({
    requested: async () => void calledAfter.push(ev.rv!),
    ...(ev.rv === '2' ? {} : { record: { key: 'req:web', field: `f${ev.rv}`, value: `d${ev.rv}` } }),
  }));
  const queue: ReconcileRequester = {
    requestAll: async (items) => {
      sent.push(...items);
      return created(items);
    },
  };
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  await Promise.all(['1', '2', '3'].map((rv) => enq.event(podSetEvent('web', rv))));
  assert.deepEqual(sent, [
    {
      key: 'default/web',
      opts: { source: 'live' },
      record: [
        { key: 'req:web', field: 'f1', value: 'd1' },
        { key: 'req:web', field: 'f3', value: 'd3' },
      ],
    },
  ]);
  assert.deepEqual(calledAfter, ['2'], 'only the event without a record is recorded after its request');
});

test('a key is requested as having no job only when every event of the batch that owes it found none', async () => {
  const sent: WatcherRequest[] = [];
  const gate = owingGate((ev) => (ev.rv === '3' ? {} : { noJob: true }));
  const queue: ReconcileRequester = {
    requestAll: async (items) => {
      sent.push(...items);
      return created(items);
    },
  };
  const enq = new EventPipeline({ queue, logger: silentLogger, gate });
  await Promise.all([
    enq.event(podSetEvent('web', '1')),
    enq.event(podSetEvent('web', '2')),
    enq.event(podSetEvent('api', '3')),
    enq.event(podSetEvent('api', '4')),
  ]);
  assert.deepEqual(
    sent.map((r) => [r.key, r.noJob === true]),
    [
      ['default/web', true],
      ['default/api', false],
    ],
  );
});

test('what each event came to is counted: requested, coalesced, covered, merged, unchanged, superseded, unkeyed', async () => {
  const queue = new ManualQueue();
  const answers: Record<string, Pick<Admission, 'owed' | 'queueAnswer' | 'superseded'>> = {
    '1': { owed: true },
    '2': { owed: true },
    '3': { owed: false, queueAnswer: 'covered' },
    '4': { owed: false },
    '5': { owed: true },
    // api's two events: merged into its pending job in the gate's call (a request made, of the key once).
    '6': { owed: false, queueAnswer: 'merged' },
    '7': { owed: false, queueAnswer: 'merged' },
    // db's first event: not folded, its later one in the batch folded for it.
    '8': { owed: false, superseded: true },
  };
  const gate: ChangeGate = {
    ...scriptedGate(() => true).gate,
    admit: async (events) =>
      events.map(({ ev }) => ({
        ...answers[ev.rv!]!,
        requested: async () => undefined,
        failed: () => undefined,
      })),
  };
  const seen: Record<string, number> = {};
  const enqueued: [string, number][] = [];
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate,
    onEventOutcomes: (counts) => {
      for (const [k, n] of Object.entries(counts)) seen[k] = (seen[k] ?? 0) + n;
    },
    onEnqueued: (source, n) => enqueued.push([source, n]),
  });
  const stray: WatchEvent = {
    ...podSetEvent('x', '9'),
    resource: 'pods',
    object: { metadata: { name: 'p' } },
  };
  const first = [1, 2, 3, 4].map((rv) => enq.event(podSetEvent('web', String(rv))));
  first.push(enq.event(stray), enq.event(podSetEvent('api', '6')), enq.event(podSetEvent('api', '7')));
  first.push(enq.event(podSetEvent('db', '8')));
  await tick();
  await tick();
  const second = enq.event(podSetEvent('web', '5')); // web's request is still on its way: its own request
  await tick();
  await tick();
  assert.deepEqual(seen, {
    requested: 2,
    coalesced: 1,
    covered: 1,
    merged: 2,
    unchanged: 1,
    superseded: 1,
    unkeyed: 1,
  });
  queue.calls[0]!.settle();
  queue.calls[1]!.settle();
  await Promise.all([...first, second]);
  assert.deepEqual(queue.batches, [['default/web'], ['default/web']], 'one request per batch; api none');
  assert.deepEqual(
    [enq.unkeyed, enq.coalesced, enq.covered, enq.merged, enq.unchanged, enq.superseded],
    [1, 1, 1, 2, 1, 1],
  );
  // api counts as one live request the queue merged; web's two as created.
  assert.deepEqual(enq.requested, { live: 3, bulk: 0 });
  assert.deepEqual(enq.queueAnswers, { created: 2, merged: 1, covered: 0 });
  assert.equal(
    enqueued.reduce((n, [source, k]) => n + (source === 'live' ? k : 0), 0),
    3,
  );
});

test("event-log records and the relist marker carry the time of the pipeline's clock", async () => {
  const at = Date.parse('2030-05-06T07:08:09.010Z');
  const clock = { now: () => at, elapsed: () => at, sleep: () => Promise.resolve() };
  const records: EventRecord[] = [];
  const enq = new EventPipeline({
    queue: recordingQueue(),
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    clock,
    eventLog: {
      append: async (r: EventRecord) => void records.push(r),
      appendMany: async (rs: readonly EventRecord[]) => void records.push(...rs),
    },
  });
  await enq.event({ ...podSet({ rv: '1' }), type: 'ADDED' });
  await enq.listed({ stream: 'podsets/*', resource: 'podsets', objects: [], cause: 'test' });
  assert.deepEqual(
    records.map((r) => [r.type, r.t]),
    [
      ['ADDED', '2030-05-06T07:08:09.010Z'],
      ['RELIST', '2030-05-06T07:08:09.010Z'],
    ],
  );
});

test('the request stage hands on what the queue did per key: counted as created, merged or covered', async () => {
  const answers = { 'default/a': 'created', 'default/b': 'merged', 'default/c': 'covered' } as const;
  const queue: ReconcileRequester = {
    requestAll: async (items) => items.map((i) => ({ outcome: answers[i.key as keyof typeof answers] })),
  };
  const enq = new EventPipeline({ queue, logger: silentLogger, gate: owingGate(() => ({})) });
  await Promise.all(['a', 'b', 'c'].map((name, i) => enq.event(podSetEvent(name, String(i + 1)))));
  assert.deepEqual(enq.queueAnswers, { created: 1, merged: 1, covered: 1 });
  assert.equal(enq.requested.live, 3);
});
