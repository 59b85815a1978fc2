// A MODIFIED followed by another of its object in the same batch is not folded (superseded.ts), on a real
// Redis: for each sequence of events a converge sees (a pod's ADDED, binding and kubelet writes; a worker's
// creates awaited by name, by pending units, noted quiet; an awaited delete; a PodSet's status writes), the
// batch folded with the skip leaves the projection exactly as the same events folded one batch each (every
// entry, every expectation, the inputs recorded as requested), and owes a reconcile exactly when they do.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ProjectionReader, type ProjectedPod, type ProjectedPodSet } from '@podset/state';
import { silentLogger } from '@podset/log';
import { useRedis } from '@podset/testkit';
import type { Admission, KeyedEvent } from '../src/change-gate.ts';
import type { WatchedObject } from '../src/keys.ts';
import { Projector } from '../src/projector.ts';
import { watcherProjection } from '../src/queue-cover.ts';

const redis = useRedis();
const PREFIX = '{podset}';
const KEY = 'ns/web';
let n = 0;

before(async () => {
  await redis.ready;
});

interface Side {
  projector: Projector;
  reader: ProjectionReader;
  /** Events handed to the projection's fold (foldEach's items), over the side's life. */
  folded: { count: number };
}

/** A projection of its own (queue name), its watcher's side (a Projector) and a worker's (a reader). */
async function side(): Promise<Side> {
  const queueName = `sup-${++n}`;
  const writer = watcherProjection({
    client: redis.client,
    prefix: PREFIX,
    queueName,
    cover: false,
    statusCollapseMs: 0,
  });
  await writer.markReady();
  // Counts what reaches the fold: a skipped event must not (the answers alone would not show it).
  const folded = { count: 0 };
  const foldEach = writer.foldEach.bind(writer);
  writer.foldEach = (items, ...rest) => ((folded.count += items.length), foldEach(items, ...rest));
  const projector = new Projector(writer, ['pods/*', 'podsets/*'], silentLogger);
  await projector.relistStarted('pods/*');
  await projector.relistStarted('podsets/*');
  const reader = new ProjectionReader({ client: redis.client, prefix: PREFIX, queueName });
  return { projector, reader, folded };
}

let rv = 1000;

function pod(name: string, o: { node?: string; phase?: string; ready?: boolean; deleting?: boolean } = {}) {
  const object: ProjectedPod = {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: String(++rv),
      ...(o.deleting === true ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'ps-uid', controller: true },
      ],
    },
    spec: o.node !== undefined ? { nodeName: o.node } : {},
    status: {
      ...(o.phase !== undefined ? { phase: o.phase } : {}),
      ...(o.ready !== undefined
        ? { conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] }
        : {}),
    },
  };
  return object;
}

function podset(status: Record<string, unknown> = {}): ProjectedPodSet {
  return {
    metadata: { name: 'web', namespace: 'ns', uid: 'ps-uid', generation: 1, resourceVersion: String(++rv) },
    spec: { replicas: 2 },
    status,
  } as unknown as ProjectedPodSet;
}

type Type = 'ADDED' | 'MODIFIED' | 'DELETED';
const podEvent = (type: Type, object: ProjectedPod): KeyedEvent => ({
  key: KEY,
  ev: { stream: 'pods/*', resource: 'pods', type, rv: object.metadata.resourceVersion, object },
});
const podSetEvent = (type: Type, object: ProjectedPodSet): KeyedEvent => ({
  key: KEY,
  ev: {
    stream: 'podsets/*',
    resource: 'podsets',
    type,
    rv: object.metadata.resourceVersion,
    object: object as WatchedObject,
  },
});

/** Admits `events` as one batch or one batch each; every owed request goes through, as the watcher's do. */
async function admit(s: Side, events: readonly KeyedEvent[], oneBatch: boolean): Promise<Admission[]> {
  const answers: Admission[] = [];
  for (const batch of oneBatch ? [events] : events.map((e) => [e])) {
    const got = await s.projector.admit(batch);
    for (const a of got) if (a.owed) await a.requested();
    answers.push(...got);
  }
  return answers;
}

/** Everything the projection keeps of the key, in the layout workers and folds read. */
async function stored(s: Side) {
  const keys = s.reader.keys(KEY);
  const [podsetEntry, pods, expect, requested] = await Promise.all([
    redis.client.get(keys.podset),
    redis.client.hgetall(keys.pods),
    redis.client.hgetall(keys.expect),
    redis.client.hgetall(keys.requested),
  ]);
  // A tombstone's expiry is its fold's time plus the ttl: compared without it.
  for (const [field, value] of Object.entries(pods)) pods[field] = value.replace(/\n\d+$/, '\n…');
  // A pending unit's value carries its expiry, which differs by when each side reserved: compared by count.
  for (const [field, value] of Object.entries(expect)) expect[field] = value.replace(/^n\d+\t/, 'n…\t');
  for (const [field, value] of Object.entries(expect)) expect[field] = value.replace(/^([cdq])\d+/, '$1…');
  return { podsetEntry, pods, expect, requested };
}

/**
 * Runs `prepare` (a worker's records) and then `events` on two fresh projections, one batch against one
 * batch each; asserts the same stored state and the same owing, and answers the batched side's answers.
 */
async function sameAsApart(
  what: string,
  prepare: (s: Side) => Promise<void>,
  events: readonly KeyedEvent[],
): Promise<Admission[]> {
  const batched = await side();
  const apart = await side();
  await prepare(batched);
  await prepare(apart);
  const before = batched.folded.count;
  const inBatch = await admit(batched, events, true);
  const oneEach = await admit(apart, events, false);
  assert.equal(
    batched.folded.count - before,
    events.length - skippedOf(inBatch).length,
    `${what}: a skipped event is not folded`,
  );
  assert.deepEqual(await stored(batched), await stored(apart), `${what}: the same projection`);
  assert.equal(
    inBatch.some((a) => a.owed),
    oneEach.some((a) => a.owed),
    `${what}: owed exactly when the events folded one by one owe`,
  );
  return inBatch;
}

const skippedOf = (answers: readonly Admission[]) =>
  answers.flatMap((a, i) => (a.superseded === true ? [i] : []));

test("a pod's ADDED, binding and kubelet writes in one batch: the middle ones skipped, the same projection, owed", async () => {
  const events = [
    podEvent('ADDED', pod('a', { phase: 'Pending' })),
    podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1' })),
    podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1', ready: false })),
    podEvent('MODIFIED', pod('a', { phase: 'Running', node: 'n1', ready: true })),
  ];
  const answers = await sameAsApart('no expectations', async () => undefined, events);
  assert.deepEqual(skippedOf(answers), [1, 2]);
  assert.equal(answers[0]!.owed, true, 'the pod first seen owes its pass');
});

test('creates awaited by name and noted quiet: the same projection, and nothing owed once they show as made', async () => {
  const answers = await sameAsApart(
    'quiet creates',
    async (s) => void (await s.reader.expect(KEY, 'create', ['a', 'b'], { quiet: 'start' })),
    [
      podEvent('ADDED', pod('a', { phase: 'Pending' })),
      podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1' })),
      podEvent('ADDED', pod('b', { phase: 'Pending' })),
      podEvent('MODIFIED', pod('b', { phase: 'Pending', node: 'n2' })),
      podEvent('MODIFIED', pod('b', { phase: 'Pending', node: 'n2', ready: false })),
    ],
  );
  assert.deepEqual(skippedOf(answers), [3]);
  assert.equal(
    answers.some((a) => a.owed),
    false,
  );
});

test('creates awaited by pending units (their names not recorded yet): the same projection', async () => {
  await sameAsApart(
    'pending units',
    async (s) => void (await s.reader.reserveCreates(KEY, 2, { quiet: true })),
    [
      podEvent('ADDED', pod('a', { phase: 'Pending' })),
      podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1' })),
      podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1', ready: false })),
      podEvent('ADDED', pod('b', { phase: 'Pending' })),
    ],
  );
});

test('an awaited delete: its deleting writes skipped but the last before the DELETED; the same projection, owed', async () => {
  const shown = podEvent('ADDED', pod('old', { phase: 'Running', node: 'n1', ready: true }));
  const answers = await sameAsApart(
    'awaited delete',
    async (s) => {
      await admit(s, [shown], true);
      await s.reader.expect(KEY, 'delete', ['old']);
    },
    [
      podEvent('MODIFIED', pod('old', { phase: 'Running', node: 'n1', ready: true, deleting: true })),
      podEvent('MODIFIED', pod('old', { phase: 'Running', node: 'n1', ready: false, deleting: true })),
      podEvent('MODIFIED', pod('old', { phase: 'Succeeded', node: 'n1', ready: false, deleting: true })),
      podEvent('DELETED', pod('old', { phase: 'Succeeded', node: 'n1', ready: false, deleting: true })),
    ],
  );
  assert.deepEqual(skippedOf(answers), [0, 1]);
  assert.equal(
    answers.some((a) => a.owed),
    true,
  );
});

test("a PodSet's status writes in one batch: all but the last skipped, nothing owed; a spec change still owes", async () => {
  const added = podSetEvent('ADDED', podset());
  const prepare = async (s: Side) => void (await admit(s, [added], true));
  let answers = await sameAsApart('status writes', prepare, [
    podSetEvent('MODIFIED', podset({ replicas: 1 })),
    podSetEvent('MODIFIED', podset({ replicas: 2 })),
    podSetEvent('MODIFIED', podset({ replicas: 2, readyReplicas: 1 })),
  ]);
  assert.deepEqual(skippedOf(answers), [0, 1]);
  assert.equal(
    answers.some((a) => a.owed),
    false,
  );
  const relabelled = { ...podset({ replicas: 2 }) };
  relabelled.metadata = { ...relabelled.metadata, labels: { tier: 'web' } };
  answers = await sameAsApart('a label change, then a status write', prepare, [
    podSetEvent('MODIFIED', relabelled),
    podSetEvent('MODIFIED', {
      ...podset({ replicas: 2, readyReplicas: 2 }),
      metadata: { ...relabelled.metadata, resourceVersion: String(++rv) },
    }),
  ]);
  assert.deepEqual(skippedOf(answers), [0]);
  assert.equal(answers[1]!.owed, true, 'the later event owes what the skipped one did');
});

test('a create shown before its name was recorded, then moving on in one batch: the same projection, the same owing', async () => {
  const shown = podEvent('ADDED', pod('a', { phase: 'Pending' }));
  await sameAsApart(
    'named after it showed',
    async (s) => {
      await s.reader.reserveCreates(KEY, 2, { quiet: true });
      await admit(s, [shown], true);
      await s.reader.recordCreates(KEY, ['a', 'b'], { quiet: 'keep', unmade: 0 });
    },
    [
      podEvent('MODIFIED', pod('a', { phase: 'Pending', node: 'n1' })),
      podEvent('MODIFIED', pod('a', { phase: 'Running', node: 'n1', ready: true })),
      podEvent('ADDED', pod('b', { phase: 'Pending' })),
    ],
  );
});
