// Status-only changes collapse with their neighbours: with the API fallback's gate (the projection's are
// tested on a real Redis in test/status-collapse.test.ts), a pod event is a plan change (requested due at
// once), a change of its phase or readiness alone (requested due after STATUS_COLLAPSE_MS), or nothing a
// plan reads (no request); a key's request is due at once when any of its events can change a plan.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PodSetChangeFilter } from './change-filter.ts';
import { EventPipeline, type ReconcileRequester } from './event-pipeline.ts';
import type { WatchedObject } from './keys.ts';
import { silentLogger } from '@podset/log';
import type { WatchEvent } from './watch-loop.ts';

const COLLAPSE_MS = 250;

/** Records each request's key and delay; a call completes at once, or when the test says so (`manual`). */
function delayQueue(manual = false) {
  const calls: { key: string; delayMs: number; settle: () => void }[] = [];
  const queue: ReconcileRequester = {
    requestAll: (items) =>
      new Promise((resolve) => {
        const settle = () => resolve(items.map(() => ({ outcome: 'created' as const })));
        for (const { key, opts } of items) calls.push({ key, delayMs: opts.delayMs ?? 0, settle });
        if (!manual) settle();
      }),
  };
  return { queue, calls, delays: () => calls.map((c) => c.delayMs) };
}

const tick = () => new Promise((r) => setImmediate(r));

const owner = { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'ps-1', controller: true };

interface PodShape {
  name?: string;
  uid?: string;
  phase?: string;
  ready?: boolean;
  node?: string;
  deleting?: boolean;
  owned?: boolean;
  hash?: string;
  annotations?: Record<string, string>;
}

function pod(o: PodShape = {}): WatchedObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      namespace: 'default',
      name: o.name ?? 'web-a',
      uid: o.uid ?? 'pod-1',
      labels: { 'podset.io/name': 'web', 'podset.io/template-hash': o.hash ?? 'h1' },
      ...(o.owned === false ? {} : { ownerReferences: [owner] }),
      ...(o.deleting === true ? { deletionTimestamp: '2026-12-01T00:00:00Z' } : {}),
      ...(o.annotations !== undefined ? { annotations: o.annotations } : {}),
    },
    ...(o.node !== undefined ? { spec: { nodeName: o.node, containers: [] } } : {}),
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  } as WatchedObject;
}

let rv = 0;
const podEvent = (type: WatchEvent['type'], object: WatchedObject): WatchEvent => ({
  stream: 'pods/*',
  resource: 'pods',
  type,
  object,
  rv: String(++rv),
});

type Owed = 'plan' | 'status' | 'nothing';

const pending = { phase: 'Pending', ready: false };

/** What the event after `before` came to with the API fallback's gate: a request due now, later, or none. */
async function owedAfter(before: WatchedObject | undefined, type: WatchEvent['type'], after: WatchedObject) {
  const { queue, calls } = delayQueue();
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    statusCollapseMs: COLLAPSE_MS,
  });
  // A pod of the PodSet not ready yet: a status-only change leaves it not all ready, so it waits the window.
  await enq.event(podEvent('ADDED', pod({ name: 'web-z', uid: 'pod-z', ...pending })));
  if (before !== undefined) await enq.event(podEvent('ADDED', before));
  const seen = calls.length;
  await enq.event(podEvent(type, after));
  const made = calls.slice(seen);
  assert.ok(made.length <= 1, 'one request at most');
  const owed: Owed = made.length === 0 ? 'nothing' : made[0]!.delayMs === COLLAPSE_MS ? 'status' : 'plan';
  if (owed === 'plan') assert.equal(made[0]!.delayMs, 0, 'a plan change is due at once');
  return owed;
}

const CASES: [string, WatchedObject | undefined, WatchEvent['type'], WatchedObject, Owed][] = [
  ['a pod first seen', undefined, 'ADDED', pod(pending), 'plan'],
  ['a pod first seen since a restart (MODIFIED)', undefined, 'MODIFIED', pod(), 'plan'],
  ['bound to a node', pod(pending), 'MODIFIED', pod({ ...pending, node: 'n1' }), 'nothing'],
  ['an annotation', pod(), 'MODIFIED', pod({ annotations: { a: 'b' } }), 'nothing'],
  ['Pending → Running', pod(pending), 'MODIFIED', pod({ phase: 'Running', ready: false }), 'status'],
  ['Ready False → True', pod({ ready: false }), 'MODIFIED', pod(), 'status'],
  ['Ready True → False', pod(), 'MODIFIED', pod({ ready: false }), 'status'],
  ['Running → Succeeded', pod(), 'MODIFIED', pod({ phase: 'Succeeded', ready: false }), 'plan'],
  ['Running → Failed', pod(), 'MODIFIED', pod({ phase: 'Failed', ready: false }), 'plan'],
  ['being deleted', pod(), 'MODIFIED', pod({ deleting: true }), 'plan'],
  ['being deleted and not ready', pod(), 'MODIFIED', pod({ deleting: true, ready: false }), 'plan'],
  ['deleted', pod(), 'DELETED', pod({ deleting: true }), 'plan'],
  ['released (controller reference removed)', pod(), 'MODIFIED', pod({ owned: false }), 'plan'],
  ['another template hash', pod(), 'MODIFIED', pod({ hash: 'h2' }), 'plan'],
  ['another pod of the name', pod(), 'MODIFIED', pod({ uid: 'pod-2' }), 'plan'],
];

test('API fallback: a pod event is a plan change (due now), a status-only change (due after the window), or nothing', async () => {
  for (const [what, before, type, after, expected] of CASES) {
    assert.equal(await owedAfter(before, type, after), expected, what);
  }
});

test('a key is due at once when any of its batch events can change a plan; status-only alone, after the window', async () => {
  const { queue, calls } = delayQueue();
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    statusCollapseMs: COLLAPSE_MS,
  });
  const names = ['web-a', 'web-b', 'web-c'];
  // A fourth pod stays not ready: no change here leaves the PodSet's pods all ready.
  await Promise.all(
    [...names, 'web-d'].map((name, i) =>
      enq.event(podEvent('ADDED', pod({ name, uid: `u${i}`, ...pending }))),
    ),
  );
  // The three turn ready in one batch: one request, due after the window.
  await Promise.all(names.map((name, i) => enq.event(podEvent('MODIFIED', pod({ name, uid: `u${i}` })))));
  // One turns not ready while another is deleted, in one batch: due at once.
  await Promise.all([
    enq.event(podEvent('MODIFIED', pod({ name: 'web-a', uid: 'u0', ready: false }))),
    enq.event(podEvent('MODIFIED', pod({ name: 'web-b', uid: 'u1', deleting: true }))),
  ]);
  assert.deepEqual(
    calls.map((c) => [c.key, c.delayMs]),
    [
      ['default/web', 0],
      ['default/web', COLLAPSE_MS],
      ['default/web', 0],
    ],
  );
});

test('STATUS_COLLAPSE_MS 0: a status-only change is requested due at once, as before', async () => {
  const { queue, delays } = delayQueue();
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    statusCollapseMs: 0,
  });
  await enq.event(podEvent('ADDED', pod(pending)));
  await enq.event(podEvent('MODIFIED', pod()));
  assert.deepEqual(delays(), [0, 0]);
});

test("batches while a key's request is in flight each request at their own events' delay (the queue keeps the earliest)", async () => {
  const { queue, calls } = delayQueue(true);
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    statusCollapseMs: COLLAPSE_MS,
  });
  const a = (o: PodShape) => pod({ name: 'web-a', uid: 'u0', ...o });
  const b = (o: PodShape) => pod({ name: 'web-b', uid: 'u1', ...o });
  const first = Promise.all([
    enq.event(podEvent('ADDED', a(pending))),
    enq.event(podEvent('ADDED', b(pending))),
  ]);
  await tick();
  await tick();
  // While the first request is in flight: a status-only change, then (another batch) a plan change.
  const later = [enq.event(podEvent('MODIFIED', a({})))];
  await tick();
  await tick();
  later.push(enq.event(podEvent('MODIFIED', b({ phase: 'Failed', ready: false }))));
  await tick();
  await tick();
  assert.deepEqual(
    calls.map((c) => c.delayMs),
    [0, COLLAPSE_MS, 0],
    'the status-only batch waits the window; the plan change is due at once',
  );
  for (const c of calls) c.settle();
  await Promise.all([first, ...later]);
});

test('API fallback: a failed request forgets the pod, so its re-delivered event is requested again (at once)', async () => {
  const calls: number[] = [];
  let failing = false;
  const queue: ReconcileRequester = {
    requestAll: async (items) => {
      if (failing) throw new Error('redis down');
      for (const { opts } of items) calls.push(opts.delayMs ?? 0);
      return items.map(() => ({ outcome: 'created' as const }));
    },
  };
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate: new PodSetChangeFilter(),
    statusCollapseMs: COLLAPSE_MS,
  });
  await enq.event(podEvent('ADDED', pod(pending)));
  failing = true;
  await assert.rejects(enq.event(podEvent('MODIFIED', pod())), /redis down/);
  failing = false;
  await enq.event(podEvent('MODIFIED', pod()));
  assert.deepEqual(calls, [0, 0], 're-delivered: requested again, as a pod first seen');
});

test('API fallback: a relist of pods remembers those it listed and forgets, in its namespace, those it did not', async () => {
  const gate = new PodSetChangeFilter();
  const other = {
    ...pod({ name: 'web-z', uid: 'z' }),
    metadata: { ...pod().metadata, namespace: 'other', name: 'web-z' },
  };
  await gate.admit([{ key: 'default/web', ev: podEvent('ADDED', pod({ name: 'gone', uid: 'g' })) }]);
  await gate.admit([{ key: 'other/web', ev: podEvent('ADDED', other) }]);
  assert.equal(gate.pods.size, 2);
  await gate.relistStarted('pods/default');
  await gate.listed(
    { stream: 'pods/default', resource: 'pods', cause: '410 Gone', objects: [pod(pending)] },
    () => 'default/web',
  );
  await gate.relistDone({ stream: 'pods/default', resource: 'pods', namespace: 'default' });
  assert.equal(gate.pods.size, 2, "web-a listed; gone forgotten; other's pod kept");
  const [after] = await gate.admit([{ key: 'default/web', ev: podEvent('MODIFIED', pod()) }]);
  assert.deepEqual([after?.owed, after?.statusOnly], [true, true], 'web-a was remembered from the relist');
});
