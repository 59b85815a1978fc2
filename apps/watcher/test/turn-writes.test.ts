// What one turn of the watcher sends Redis on its own connection (the projection's folds and the event
// log), counted on a real Redis: the socket writes of that connection and the server's command counts.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { ProjectionReader, type ProjectedPod } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { parseEventEntries, type EventLogEntry } from '@podset/event-log';
import { EventPipeline } from '../src/event-pipeline.ts';
import { EventLog, eventRecord } from '../src/event-log.ts';
import { silentLogger } from '@podset/log';
import { Projector } from '../src/projector.ts';
import { watcherProjection } from '../src/queue-cover.ts';
import type { WatcherRequest } from '../src/request.ts';
import type { WatchEvent } from '../src/watch-loop.ts';

const redis = useRedis();
/** The watcher's connection, as watcher.ts makes it (auto-pipelined). */
let conn: Redis;
/** Socket writes on `conn` so far. */
let writes = 0;
/** What `conn` wrote, while set. */
let written: string[] | undefined;

before(async () => {
  await redis.ready;
  conn = new Redis(redis.url, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
  await conn.ping();
  const stream = conn.stream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    writes++;
    written?.push(String(args[0]));
    return write(...args);
  }) as typeof stream.write;
});
after(() => conn.disconnect());

const PREFIX = '{tw}';

/** An pipeline over the projection of queue `name`, its event log at `logKey`; requests are recorded. */
function watcherOf(name: string, logKey: string, quietHoldMs = 0) {
  const eventLog = new EventLog({ redis: conn, key: logKey, maxLen: 1000 });
  const base = `${PREFIX}:${name}`;
  const writer = watcherProjection({
    client: conn,
    prefix: PREFIX,
    queueName: name,
    cover: true,
    statusCollapseMs: 0,
    // As watcher.ts decides: appended with the folds when under the queue's base.
    ...(logKey.startsWith(`${base}:`) ? { eventLogKey: logKey } : {}),
  });
  const requests: WatcherRequest[] = [];
  const pipeline = new EventPipeline({
    queue: {
      requestAll: async (items) => {
        requests.push(...items);
        return items.map(() => ({ outcome: 'created' as const }));
      },
    },
    logger: silentLogger,
    gate: new Projector(writer, ['pods/*'], silentLogger, eventLog),
    eventLog,
    quietHoldMs,
  });
  return { pipeline, requests, writer };
}

let rv = 1000;
function podEvent(podset: string, pod: string, phase: string): WatchEvent {
  const object: ProjectedPod = {
    metadata: {
      name: pod,
      namespace: 'ns',
      uid: `uid-${pod}`,
      resourceVersion: String(++rv),
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: podset, uid: `uid-${podset}`, controller: true },
      ],
    },
    status: { phase },
  };
  return { stream: 'pods/*', resource: 'pods', type: 'MODIFIED', object, rv: String(rv) };
}

async function commandCalls(): Promise<Record<string, number>> {
  const text = await redis.client.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of text.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) calls[m[1]!] = Number(m[2]);
  return calls;
}

/** One turn of `events` (handed on together, as a watch read hands them on): writes and server calls. */
async function turn(pipeline: EventPipeline, events: readonly WatchEvent[]) {
  const before = await commandCalls();
  const writesBefore = writes;
  await Promise.all(events.map((ev) => pipeline.event(ev)));
  const written = writes - writesBefore;
  const after = await commandCalls();
  const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  return { writes: written, scripts: delta('evalsha') + delta('eval'), xadds: delta('xadd') };
}

test('a turn of many events, the event log with them, is one socket write and one script call', async () => {
  const { pipeline, requests, writer } = watcherOf('one', `${PREFIX}:one:watcher:events`);
  assert.equal(writer.appendsLog, true);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]); // Redis learns the script
  // Four keys, each key's five in a row: a stream entry per key.
  const events = Array.from({ length: 20 }, (_, i) =>
    podEvent(`ps-${Math.floor(i / 5)}`, `p-${i}`, 'Pending'),
  );
  assert.deepEqual(await turn(pipeline, events), { writes: 1, scripts: 1, xadds: 4 });
  // Every event logged, in order, and folded; each key owed once.
  const logged = await records(`${PREFIX}:one:watcher:events`, 1);
  assert.deepEqual(
    logged.map((r) => r.name),
    events.map((e) => e.object.metadata?.name),
  );
  assert.deepEqual(
    requests.slice(1).map((r) => r.key),
    ['ns/ps-0', 'ns/ps-1', 'ns/ps-2', 'ns/ps-3'],
  );
  assert.equal(await redis.client.hlen(`${PREFIX}:one:proj:pods:ns/ps-0`), 5);
});

test('a turn whose events concern no PodSet still logs them in one call', async () => {
  const { pipeline } = watcherOf('unkeyed', `${PREFIX}:unkeyed:watcher:events`);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const orphan = podEvent('x', 'orphan', 'Pending');
  orphan.object.metadata!.ownerReferences = [];
  assert.deepEqual(await turn(pipeline, [orphan]), { writes: 1, scripts: 1, xadds: 1 });
  assert.equal(await redis.client.xlen(`${PREFIX}:unkeyed:watcher:events`), 2);
});

test('an event log outside the projection’s hash slot is appended in a call of its own', async () => {
  const { pipeline, writer } = watcherOf('apart', 'elsewhere:events');
  assert.equal(writer.appendsLog, false);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const events = Array.from({ length: 5 }, (_, i) => podEvent('ps', `q-${i}`, 'Pending'));
  // One key's run: one entry.
  assert.deepEqual(await turn(pipeline, events), { writes: 1, scripts: 2, xadds: 1 });
  assert.equal(await redis.client.xlen('elsewhere:events'), 2);
  assert.equal((await records('elsewhere:events', 1)).length, 5);
});

test("a kubelet's writes that move nothing a plan reads cost no write of their own; the readiness change takes them along and requests", async () => {
  const { pipeline, requests } = watcherOf('hold', `${PREFIX}:hold:watcher:events`, 60_000);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const created = podEvent('web', 'web-1', 'Pending');
  await turn(pipeline, [created]);
  const requestsBefore = requests.length;
  const writesBefore = writes;
  const bound = podEvent('web', 'web-1', 'Pending');
  bound.object = { ...bound.object, spec: { nodeName: 'node-1' } } as WatchEvent['object'];
  const creating = podEvent('web', 'web-1', 'Pending');
  creating.object = {
    ...creating.object,
    spec: { nodeName: 'node-1' },
    status: {
      phase: 'Pending',
      containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }],
    },
  } as WatchEvent['object'];
  const held = [pipeline.event(bound), pipeline.event(creating)];
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.equal(writes, writesBefore, 'the binding and the container-status write are held: nothing sent');
  const ready = podEvent('web', 'web-1', 'Running');
  ready.object = {
    ...ready.object,
    spec: { nodeName: 'node-1' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as WatchEvent['object'];
  await Promise.all([...held, pipeline.event(ready)]);
  assert.equal(writes - writesBefore, 1, 'all three in one write');
  assert.deepEqual(
    requests.slice(requestsBefore).map((r) => r.key),
    ['ns/web'],
    'the readiness change requested',
  );
  const entry = await redis.client.hget(`${PREFIX}:hold:proj:pods:ns/web`, 'web-1');
  assert.match(entry ?? '', /\tRunning\t1\t.*\tnode-1\t/, 'the projection holds the pod ready, on its node');
  const logged = await records(`${PREFIX}:hold:watcher:events`, 0);
  assert.deepEqual(
    logged.slice(-3).map((r) => r.rv),
    [bound.rv, creating.rv, ready.rv],
    'logged in arrival order',
  );
});

test("a worker's creates, each ADDED in a turn of its own, cost one write between them; the one that meets the last expectation still requests", async () => {
  const { pipeline, requests } = watcherOf('creates', `${PREFIX}:creates:watcher:events`, 60_000);
  // The PodSet at a scale of `replicas`: each scale is a spec change, which the API server marks by a generation.
  const scaled = (replicas: number): WatchEvent => ({
    stream: 'podsets/*',
    resource: 'podsets',
    type: 'MODIFIED',
    rv: String(++rv),
    object: {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: {
        name: 'web',
        namespace: 'ns',
        uid: 'uid-web',
        resourceVersion: String(rv),
        generation: replicas + 1,
      },
      spec: { replicas },
    } as WatchEvent['object'],
  });
  // Redis learns the script; the projector, both streams' epochs.
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending'), scaled(0)]);
  const names = Array.from({ length: 10 }, (_, i) => `web-${i}`);
  const reader = new ProjectionReader({ client: redis.client, prefix: PREFIX, queueName: 'creates' });
  assert.equal(await reader.expect('ns/web', 'create', names), 10);
  const requestsBefore = requests.length;
  const before = await commandCalls();
  const writesBefore = writes;
  const created = [];
  for (const name of names) {
    created.push(pipeline.event({ ...podEvent('web', name, 'Pending'), type: 'ADDED' }));
    await new Promise((r) => setImmediate(r));
  }
  assert.equal(writes, writesBefore, 'the creates wait for company');
  // A change of the PodSet's spec (never held) takes them along.
  await Promise.all([...created, pipeline.event(scaled(11))]);
  const after = await commandCalls();
  assert.equal(writes - writesBefore, 1, 'eleven events, one write');
  assert.equal((after['evalsha'] ?? 0) - (before['evalsha'] ?? 0), 1, 'one fold call');
  assert.deepEqual(
    requests.slice(requestsBefore).map((r) => r.key),
    ['ns/web'],
  );
  assert.equal(await redis.client.hlen(`${PREFIX}:creates:proj:exp:ns/web`), 0, 'every create seen');
  assert.equal(await redis.client.hlen(`${PREFIX}:creates:proj:pods:ns/web`), 10);
});

/** The argument counts of the EVALSHA commands in what `conn` wrote (RESP arrays: `*count`, then `evalsha`). */
function evalshaArgs(out: readonly string[]): number[] {
  return [...out.join('').matchAll(/\*(\d+)\r\n\$7\r\nevalsha\r\n/gi)].map((m) => Number(m[1]));
}

/** The stream's records after the first `skip`, in order, as the reader gives them (without their ids). */
async function records(key: string, skip: number): Promise<Omit<EventLogEntry, 'id'>[]> {
  return (await redis.client.xrange(key, '-', '+'))
    .flatMap(([id, fields]) => parseEventEntries(id, fields))
    .slice(skip)
    .map(({ id: _, ...r }) => r);
}

/** `ev`'s record as eventRecord makes it, as the reader gives it back. */
function recordOf(ev: WatchEvent, t: string): Omit<EventLogEntry, 'id'> {
  return Object.fromEntries(
    Object.entries(eventRecord(ev.resource, ev.type, ev.object, t)).filter(([, v]) => v !== undefined),
  ) as Omit<EventLogEntry, 'id'>;
}

test('the event log gets, field for field, the records the watcher makes of its events', async () => {
  const logKey = `${PREFIX}:entries:watcher:events`;
  const { pipeline } = watcherOf('entries', logKey);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const ready = podEvent('web', 'web-1', 'Running');
  ready.object.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
  const leaving = podEvent('web', 'web-2', 'Running');
  leaving.object.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
  leaving.object.metadata!.deletionTimestamp = '2026-12-04T10:00:00Z';
  const gone = { ...podEvent('web', 'web-3', 'Succeeded'), type: 'DELETED' as const };
  const orphan = podEvent('x', 'orphan', 'Pending');
  orphan.object.metadata!.ownerReferences = [];
  const released = podEvent('x', 'released', 'Running');
  released.object.metadata!.ownerReferences = [];
  released.object.metadata!.labels = { 'podset.io/name': 'web' };
  const noPhase = podEvent('web', 'web-4', 'Pending');
  noPhase.object.status = {};
  const podSet = (type: 'ADDED' | 'MODIFIED', deleting: boolean): WatchEvent => ({
    stream: 'podsets/*',
    resource: 'podsets',
    type,
    rv: String(++rv),
    object: {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: {
        name: 'web',
        namespace: 'ns',
        uid: 'uid-web',
        resourceVersion: String(rv),
        generation: 1,
        ...(deleting ? { deletionTimestamp: '2026-12-04T10:00:00Z' } : {}),
      },
      spec: { replicas: 2 },
    } as WatchEvent['object'],
  });
  const events = [
    ready,
    orphan,
    leaving,
    podSet('ADDED', false),
    gone,
    released,
    noPhase,
    podSet('MODIFIED', true),
  ];
  written = [];
  await turn(pipeline, events);
  const args = evalshaArgs(written);
  written = undefined;
  // evalsha, sha, numkeys, the index and the stream; n and five shared; the log's cap; the keyed events'
  // eight each; the log's three per run of one key's records: ns/web's, the orphan's, ns/web's six.
  assert.deepEqual(args, [12 + 7 * 8 + 3 * 3]);
  const logged = await records(logKey, 1);
  const t = logged[0]!.t;
  assert.deepEqual(
    logged,
    events.map((ev) => recordOf(ev, t)),
  );
});

test('a pod event costs the fold call 8 arguments and its key’s run of records 3 more, its event-log record included', async () => {
  const { pipeline } = watcherOf('args', `${PREFIX}:args:watcher:events`);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  // Keys in runs of 1, 2, 3 and 4.
  const keyOf = (i: number) => (i < 1 ? 0 : i < 3 ? 1 : i < 6 ? 2 : 3);
  const events = Array.from({ length: 10 }, (_, i) => {
    const ev = podEvent(`ps-${keyOf(i)}`, `a-${i}`, 'Running');
    ev.object.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    return ev;
  });
  written = [];
  await turn(pipeline, events);
  const args = evalshaArgs(written);
  written = undefined;
  assert.equal(args.length, 1, 'one fold call');
  // evalsha, sha, numkeys, the index and the stream; n and five shared; the log's cap; eight of the fold's
  // per event; per run of one key's records its time, its key and the records.
  assert.equal(args[0], 12 + 10 * 8 + 4 * 3);
  const logged = await records(`${PREFIX}:args:watcher:events`, 1);
  assert.deepEqual(
    logged,
    events.map((ev) => recordOf(ev, logged[0]!.t)),
  );
});

/** Calls of node:crypto's hash (the digests' SHA-1s) while `run` runs. */
async function hashesDuring(run: () => Promise<void>): Promise<number> {
  const original = crypto.hash;
  let calls = 0;
  crypto.hash = ((...args: Parameters<typeof original>) => {
    calls++;
    return original(...args);
  }) as typeof original;
  // The modules that imported it by name see the counting one.
  syncBuiltinESMExports();
  try {
    await run();
  } finally {
    crypto.hash = original;
    syncBuiltinESMExports();
  }
  return calls;
}

test("with the hold on, a pod event is hashed once: the hold's digest is the fold's", async () => {
  const { pipeline } = watcherOf('hashes', `${PREFIX}:hashes:watcher:events`, 60_000);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const events = Array.from({ length: 6 }, (_, i) => podEvent(`ps-${i % 2}`, `h-${i}`, 'Pending'));
  const hashes = await hashesDuring(async () => void (await turn(pipeline, events)));
  // One digest per event at most: the SHA-1 of its plan inputs and of its status inputs (fewer where a digest
  // of the same inputs is remembered), never a second encoding's two more.
  assert.ok(hashes / events.length <= 2, `${hashes} hashes for ${events.length} events`);
  const stored = await redis.client.hget(`${PREFIX}:hashes:proj:pods:ns/ps-0`, 'h-0');
  assert.match(stored ?? '', /\tPending\t0\t/, 'folded as before');
});

test('a turn of more events than one fold call takes: the first call appends every record', async () => {
  const logKey = `${PREFIX}:many:watcher:events`;
  const { pipeline } = watcherOf('many', logKey);
  await turn(pipeline, [podEvent('warm', 'w-1', 'Pending')]);
  const events = Array.from({ length: 150 }, (_, i) => podEvent(`ps-${i % 7}`, `m-${i}`, 'Pending'));
  written = [];
  await turn(pipeline, events);
  const args = evalshaArgs(written);
  written = undefined;
  // 100 events a call; the log goes with the first: 150 runs of one record (the keys alternate).
  // The second call has no stream key and no log: evalsha, sha, numkeys, the index, n and five shared.
  assert.deepEqual(args, [12 + 100 * 8 + 150 * 3, 10 + 50 * 8]);
  const logged = await records(logKey, 1);
  assert.deepEqual(
    logged,
    events.map((ev) => recordOf(ev, logged[0]!.t)),
  );
});
