import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPodReady } from '@podset/reconcile';
import type { Admission, ChangeGate, KeyedEvent } from './change-gate.ts';
import { EventPipeline, type EventPipelineOptions } from './event-pipeline.ts';
import { digestHint, hintChange } from './hold.ts';
import { encodedPod, inputsChange } from '@podset/state';
import { silentLogger } from '@podset/log';
import { FakeClock } from '@podset/testkit';
import type { WatcherRequest } from './request.ts';
import type { WatchEvent } from './watch-loop.ts';

/** A gate that records each batch it admits (one Redis call with the projection); owed: ADDED or ready pods. */
class RecordingGate implements ChangeGate {
  readonly batches: string[][] = [];
  fail: Error | undefined;
  admit(events: readonly KeyedEvent[]): Promise<Admission[]> {
    this.batches.push(events.map(({ ev }) => `${ev.object.metadata?.name}@${ev.rv}`));
    if (this.fail !== undefined) return Promise.reject(this.fail);
    return Promise.resolve(
      events.map(({ ev }) => ({
        owed: ev.type === 'ADDED' || (ev.resource === 'pods' && isPodReady(ev.object)),
        requested: () => Promise.resolve(),
        failed: () => undefined,
      })),
    );
  }
  listed = () => Promise.resolve();
  relistStarted = () => Promise.resolve();
  relistDone = () => Promise.resolve();
  relistingAll = () => undefined;
  resumable = () => Promise.resolve(true);
}

class RecordingQueue {
  readonly requests: string[][] = [];
  readonly delays: (number | undefined)[] = [];
  requestAll(items: readonly WatcherRequest[]) {
    this.requests.push(items.map((i) => i.key));
    for (const i of items) this.delays.push(i.opts.delayMs);
    return Promise.resolve(items.map(() => ({ outcome: 'created' as const })));
  }
}

const tick = () => new Promise((r) => setImmediate(r));
const turns = async (n = 4) => {
  for (let i = 0; i < n; i++) await tick();
};

interface PodShape {
  name?: string;
  node?: string;
  ready?: boolean;
  owner?: string;
  /** A field the projection does not keep (a kubelet's container statuses). */
  waiting?: string;
}

function podEvent(type: WatchEvent['type'], rv: string, p: PodShape = {}): WatchEvent {
  const name = p.name ?? 'web-1';
  return {
    stream: 'pods/*',
    resource: 'pods',
    type,
    rv,
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        namespace: 'default',
        name,
        uid: `uid-${name}`,
        resourceVersion: rv,
        labels: { 'podset.io/name': p.owner ?? 'web' },
      },
      ...({ spec: p.node === undefined ? {} : { nodeName: p.node } } as object),
      status: {
        phase: p.ready === true ? 'Running' : 'Pending',
        conditions: [{ type: 'Ready', status: p.ready === true ? 'True' : 'False' }],
        ...(p.waiting === undefined
          ? {}
          : { containerStatuses: [{ name: 'c', state: { waiting: { reason: p.waiting } } }] }),
      },
    } as WatchEvent['object'],
  };
}

function pipeline(
  holdMs = 60_000,
  statusCollapseMs = 0,
  more: Partial<EventPipelineOptions> = {},
  gate: RecordingGate = new RecordingGate(),
) {
  const queue = new RecordingQueue();
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate,
    quietHoldMs: holdMs,
    statusCollapseMs,
    ...more,
  });
  return { gate, queue, enq };
}

test("a pod's kubelet lifecycle: the binding and the container-status write cost no call of their own; readiness still requests, and takes them along in order", async () => {
  const { gate, queue, enq } = pipeline();
  const added = enq.event(podEvent('ADDED', '1'));
  await turns();
  const bound = enq.event(podEvent('MODIFIED', '2', { node: 'n1' }));
  await turns();
  const creating = enq.event(podEvent('MODIFIED', '3', { node: 'n1', waiting: 'ContainerCreating' }));
  await turns();
  await added;
  assert.deepEqual(gate.batches, [['web-1@1']], 'the binding and the status write are held: no call');
  assert.equal(enq.held, 2);
  let settled = false;
  void Promise.all([bound, creating]).then(() => (settled = true));
  await turns();
  assert.equal(settled, false, 'a held event settles only once it went with a batch');
  const ready = enq.event(podEvent('MODIFIED', '4', { node: 'n1', ready: true }));
  await Promise.all([bound, creating, ready]);
  assert.deepEqual(gate.batches, [['web-1@1'], ['web-1@2', 'web-1@3', 'web-1@4']]);
  assert.deepEqual(queue.requests, [['default/web'], ['default/web']], 'the readiness change requested');
  assert.equal(enq.unchanged, 2, 'the held events were admitted like any other');
});

test('a held event alone goes on its own after the hold', async () => {
  const { gate, enq } = pipeline(5);
  await enq.event(podEvent('ADDED', '1'));
  await enq.event(podEvent('MODIFIED', '2', { waiting: 'ContainerCreating' }));
  assert.deepEqual(gate.batches, [['web-1@1'], ['web-1@2']]);
  assert.equal(enq.held, 1);
});

test('an event that moves an input is never held: readiness, a relabel, a deletion; nor an event after the pod was deleted', async () => {
  const { gate, enq } = pipeline();
  await enq.event(podEvent('ADDED', '1'));
  await enq.event(podEvent('MODIFIED', '2', { ready: true }));
  await enq.event(podEvent('MODIFIED', '3', { ready: true, owner: 'api' }));
  await enq.event(podEvent('DELETED', '4', { ready: true, owner: 'api' }));
  await enq.event(podEvent('MODIFIED', '5', { ready: true, owner: 'api' }));
  assert.equal(enq.held, 0);
  assert.equal(gate.batches.length, 5);
});

function podSetEvent(
  type: WatchEvent['type'],
  rv: string,
  m: { generation?: number; labels?: Record<string, string>; finalizers?: string[]; deleting?: boolean } = {},
  readyReplicas = 0,
): WatchEvent {
  return {
    stream: 'podsets/*',
    resource: 'podsets',
    type,
    rv,
    object: {
      metadata: {
        namespace: 'default',
        name: 'web',
        uid: 'uid-web',
        resourceVersion: rv,
        generation: m.generation ?? 1,
        ...(m.labels !== undefined ? { labels: m.labels } : {}),
        ...(m.finalizers !== undefined ? { finalizers: m.finalizers } : {}),
        ...(m.deleting === true ? { deletionTimestamp: '2026-12-07T12:00:00Z' } : {}),
      },
      status: { readyReplicas },
    } as WatchEvent['object'],
  };
}

test("a PodSet's first event is not held; a quiet event that finds its turn already batching goes with it", async () => {
  const { gate, enq } = pipeline();
  await enq.event(podEvent('ADDED', '1'));
  await Promise.all([
    enq.event(podSetEvent('MODIFIED', '2')),
    enq.event(podEvent('MODIFIED', '3', { waiting: 'Pulling' })),
  ]);
  assert.deepEqual(gate.batches, [['web-1@1'], ['web@2', 'web-1@3']]);
  assert.equal(enq.held, 0);
});

test("a PodSet's status write (its plan inputs as before) is held and goes first into the batch of the event that releases it", async () => {
  const { gate, queue, enq } = pipeline();
  await enq.event(podSetEvent('ADDED', '1'));
  const status = enq.event(podSetEvent('MODIFIED', '2', {}, 1));
  await turns();
  assert.deepEqual(gate.batches, [['web@1']], 'the status write waits: no call of its own');
  assert.equal(enq.held, 1);
  // A pod event that owes a request releases it: the status write is folded before that request is made.
  await Promise.all([status, enq.event(podEvent('ADDED', '3'))]);
  assert.deepEqual(gate.batches, [['web@1'], ['web@2', 'web-1@3']]);
  assert.deepEqual(queue.requests, [['default/web'], ['default/web']]);
  assert.equal(enq.unchanged, 1, 'the held status write was admitted like any other event');
});

test('a PodSet event that moves a plan input is never held: generation, labels, finalizers, deletion; nor one after it was deleted or a relist began', async () => {
  const { gate, enq } = pipeline();
  await enq.event(podSetEvent('ADDED', '1'));
  await enq.event(podSetEvent('MODIFIED', '2', { generation: 2 }));
  await enq.event(podSetEvent('MODIFIED', '3', { generation: 2, labels: { team: 'a' } }));
  await enq.event(podSetEvent('MODIFIED', '4', { generation: 2, labels: { team: 'a' }, finalizers: ['f'] }));
  const deleting = { generation: 2, labels: { team: 'a' }, finalizers: ['f'], deleting: true };
  await enq.event(podSetEvent('MODIFIED', '5', deleting));
  assert.equal(enq.held, 0, 'each moved a plan input');
  await enq.event(podSetEvent('DELETED', '6', deleting));
  await enq.event(podSetEvent('MODIFIED', '7', deleting));
  assert.equal(enq.held, 0, 'nothing remembered of it after its DELETED');
  const held = enq.event(podSetEvent('MODIFIED', '8', deleting, 1));
  await turns();
  assert.equal(enq.held, 1, 'a status write after a change is held');
  await enq.relistStarted('podsets/*');
  await Promise.all([held, enq.event(podSetEvent('MODIFIED', '9', deleting, 2))]);
  assert.equal(enq.held, 1, 'nothing remembered after the relist began: not held');
  assert.equal(gate.batches.length, 8);
  assert.deepEqual(gate.batches.at(-1), ['web@8', 'web@9']);
});

test('a pod of no PodSet is held; a relist forgets what was seen', async () => {
  const { gate, enq } = pipeline();
  const orphan = podEvent('MODIFIED', '1', { name: 'stray' });
  delete orphan.object.metadata!.labels;
  const held = enq.event(orphan);
  await enq.event(podEvent('ADDED', '2'));
  await held;
  assert.equal(enq.held, 1);
  await enq.relistStarted('pods/*');
  await enq.event(podEvent('MODIFIED', '3'));
  assert.equal(enq.held, 1, 'nothing remembered of web-1 after the relist began: not held');
  assert.deepEqual(gate.batches, [['web-1@2'], ['web-1@3']], 'the orphan went with a batch, in no fold');
});

test('a batch that fails fails the held events it took along (the watch re-delivers them)', async () => {
  const { gate, enq } = pipeline();
  await enq.event(podEvent('ADDED', '1'));
  const creating = enq.event(podEvent('MODIFIED', '2', { waiting: 'ContainerCreating' }));
  await turns();
  gate.fail = new Error('redis down');
  const ready = enq.event(podEvent('MODIFIED', '3', { ready: true }));
  await assert.rejects(creating, /redis down/);
  await assert.rejects(ready, /redis down/);
});

/** A gate that answers as the projection does for a pod: status-only when only phase or readiness moved. */
class StatusGate extends RecordingGate {
  override admit(events: readonly KeyedEvent[]): Promise<Admission[]> {
    return super
      .admit(events)
      .then((answers) =>
        answers.map((a, i) =>
          events[i]!.ev.type === 'ADDED' ? a : { ...a, ...(a.owed ? { statusOnly: true } : {}) },
        ),
      );
  }
}

test('with a collapse window at least the hold, a readiness change alone is held too, and still requests (due after the window)', async () => {
  const gate = new StatusGate();
  const queue = new RecordingQueue();
  const enq = new EventPipeline({
    queue,
    logger: silentLogger,
    gate,
    quietHoldMs: 5,
    statusCollapseMs: 1000,
  });
  // web-2 stays not ready: web-1's readiness leaves the PodSet not all ready, so its request waits.
  await Promise.all([
    enq.event(podEvent('ADDED', '1')),
    enq.event(podEvent('ADDED', '1', { name: 'web-2' })),
  ]);
  await enq.event(podEvent('MODIFIED', '2', { ready: true }));
  assert.equal(enq.held, 1, 'the readiness change waited for company');
  assert.deepEqual(gate.batches, [['web-1@1', 'web-2@1'], ['web-1@2']]);
  assert.deepEqual(queue.requests, [['default/web'], ['default/web']]);
  assert.deepEqual(queue.delays, [undefined, 1000]);

  // The last pod's readiness leaves them all ready: due at once, so not held either.
  await enq.event(podEvent('MODIFIED', '3', { name: 'web-2', ready: true }));
  assert.equal(enq.held, 1, 'the last readiness went at once');
  assert.deepEqual(queue.delays, [undefined, 1000, undefined]);

  // A window shorter than the hold: readiness is never held.
  const { gate: shortGate, enq: short } = pipeline(60_000, 10);
  await Promise.all([
    short.event(podEvent('ADDED', '1')),
    short.event(podEvent('ADDED', '1', { name: 'web-2' })),
  ]);
  await short.event(podEvent('MODIFIED', '2', { ready: true }));
  assert.equal(short.held, 0);
  assert.equal(shortGate.batches.length, 2);
});

/** A pod as its PodSet's worker creates it: the controller reference is there from its ADDED on. */
function createdPod(type: WatchEvent['type'], name: string, rv: string): WatchEvent {
  const ev = podEvent(type, rv, { name });
  ev.object.metadata!.ownerReferences = [
    { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true },
  ];
  return ev;
}

test("a worker's creates, each ADDED in a turn of its own, wait for company and go in one call; a deletion goes at once and takes them along", async () => {
  const { gate, queue, enq } = pipeline();
  const added = [];
  for (let i = 1; i <= 3; i++) {
    added.push(enq.event(createdPod('ADDED', `web-${i}`, String(i))));
    await turns();
  }
  assert.deepEqual(gate.batches, [], 'no call for the creates yet');
  assert.equal(enq.held, 3);
  await Promise.all([...added, enq.event(createdPod('DELETED', 'web-0', '4'))]);
  assert.deepEqual(gate.batches, [['web-1@1', 'web-2@2', 'web-3@3', 'web-0@4']], 'in order, in one call');
  assert.deepEqual(queue.requests, [['default/web']], 'what they owe is requested, once');
});

test('an ADDED is not held when no PodSet controls the pod yet (it may need adopting), nor for a pod seen before', async () => {
  const { gate, enq } = pipeline();
  await enq.event(podEvent('ADDED', '1', { name: 'loose' }));
  await enq.event(createdPod('MODIFIED', 'web-1', '2'));
  await enq.event(createdPod('ADDED', 'web-1', '3'));
  assert.equal(enq.held, 0);
  assert.equal(gate.batches.length, 3);
});

test('the events of one hold share one promise: they go into one batch and settle with it', async () => {
  const { enq } = pipeline();
  await enq.event(podEvent('ADDED', '1'));
  const bound = enq.event(podEvent('MODIFIED', '2', { node: 'n1' }));
  await turns();
  const creating = enq.event(podEvent('MODIFIED', '3', { node: 'n1', waiting: 'ContainerCreating' }));
  assert.equal(enq.held, 2);
  assert.equal(bound, creating);
  await Promise.all([bound, enq.event(podEvent('MODIFIED', '4', { node: 'n1', ready: true }))]);
});

/** A pipeline on a fake clock, its pod watch read in paced turns `pauseMs` apart. */
function pacedPipeline(holdMs: number, pauseMs: number, statusCollapseMs = 0) {
  const clock = new FakeClock();
  const more = { podTurnPauseMs: pauseMs, clock };
  return { ...pipeline(holdMs, statusCollapseMs, more, new StatusGate()), clock };
}

test('paced turns: the quiet events of two turns go in one call, and the hold waits a turn longer only when nothing comes', async () => {
  const { gate, enq, clock } = pacedPipeline(50, 50);
  await enq.event(podEvent('ADDED', '1', { name: 'loose' })); // of no PodSet's making: not held
  // Turn 1: a binding, held.
  const bound = enq.event(podEvent('MODIFIED', '2', { name: 'loose', node: 'n1' }));
  await turns();
  // The hold alone would have gone now, a call between two turns; paced, it waits for the next turn.
  await clock.advance(50);
  await turns();
  assert.deepEqual(gate.batches, [['loose@1']]);
  // Turn 2, a pause after turn 1: quiet too, and takes the held binding along.
  await clock.advance(5);
  const creating = enq.event(podEvent('MODIFIED', '3', { name: 'loose', node: 'n1', waiting: 'Pulling' }));
  await Promise.all([bound, creating]);
  assert.deepEqual(gate.batches, [['loose@1'], ['loose@2', 'loose@3']]);
  assert.equal(enq.held, 2);

  // A quiet event after which nothing comes goes on its own, the hold and a pause later.
  const last = enq.event(podEvent('MODIFIED', '4', { name: 'loose', node: 'n1', waiting: 'Starting' }));
  await turns();
  await clock.advance(99);
  await turns();
  assert.equal(gate.batches.length, 2, 'still held before the hold and the pause are over');
  await clock.advance(1);
  await last;
  assert.deepEqual(gate.batches.at(-1), ['loose@4']);
});

test('paced turns: a readiness change is held only when its window is at least the hold and the pause', async () => {
  for (const [pauseMs, held] of [
    [0, 1],
    [50, 0],
  ] as const) {
    // A window of 80 ms: longer than the hold (50), shorter than the hold and a pause (100).
    const { enq, clock } = pacedPipeline(50, pauseMs, 80);
    await Promise.all([
      enq.event(podEvent('ADDED', '1')),
      enq.event(podEvent('ADDED', '1', { name: 'web-2' })),
    ]);
    const ready = enq.event(podEvent('MODIFIED', '2', { ready: true }));
    await turns();
    await clock.advance(100);
    await ready;
    assert.equal(enq.held, held, `pause ${pauseMs} ms`);
  }
});

test('the hold remembers a digest as a small integer that tells none, status and plan as the digests do', () => {
  const pod = (o: { uid?: string; phase?: string; ready?: boolean; labels?: Record<string, string> }) =>
    encodedPod({
      metadata: {
        namespace: 'default',
        name: 'web-1',
        uid: o.uid ?? 'u1',
        labels: o.labels ?? { 'podset.io/name': 'web' },
      },
      status: {
        phase: o.phase ?? 'Running',
        conditions: [{ type: 'Ready', status: o.ready === true ? 'True' : 'False' }],
      },
    }).digest;
  const variants = [
    pod({}),
    pod({ ready: true }),
    pod({ phase: 'Pending' }),
    pod({ phase: 'Failed', ready: true }),
    pod({ uid: 'u2' }),
    pod({ uid: 'u2', ready: true }),
    pod({ labels: { 'podset.io/name': 'web', tier: 'a' } }),
  ];
  for (const before of variants) {
    for (const after of variants) {
      const hint = digestHint(after);
      assert.ok(Number.isInteger(hint) && hint >= 0 && hint < 2 ** 30, `${hint}: a Smi on every V8`);
      assert.equal(hintChange(digestHint(before), hint), inputsChange(before, after), `${before} → ${after}`);
    }
  }
});
