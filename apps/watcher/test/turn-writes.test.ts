// What one turn of the watcher sends Redis on its own connection (the projection's folds and the event
// log), counted on a real Redis: the socket writes of that connection and the server's command counts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import type { ProjectedPod } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { EventPipeline } from '../src/event-pipeline.ts';
import { EventLog } from '../src/event-log.ts';
import { silentLogger } from '../src/log.ts';
import { Projector } from '../src/projector.ts';
import { watcherProjection } from '../src/queue-cover.ts';
import type { WatcherRequest } from '../src/request.ts';
import type { WatchEvent } from '../src/watch-loop.ts';

const redis = useRedis();
/** The watcher's connection, as watcher.ts makes it (auto-pipelined). */
let conn: Redis;
/** Socket writes on `conn` so far. */
let writes = 0;

before(async () => {
  await redis.ready;
  conn = new Redis(redis.url, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
  await conn.ping();
  const stream = conn.stream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    writes++;
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
  const events = Array.from({ length: 20 }, (_, i) => podEvent(`ps-${i % 4}`, `p-${i}`, 'Pending'));
  assert.deepEqual(await turn(pipeline, events), { writes: 1, scripts: 1, xadds: 20 });
  // Every event logged, in order, and folded; each key owed once.
  const logged = await redis.client.xrange(`${PREFIX}:one:watcher:events`, '-', '+');
  assert.deepEqual(
    logged.slice(1).map(([, f]) => f[f.indexOf('name') + 1]),
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
  assert.deepEqual(await turn(pipeline, events), { writes: 1, scripts: 2, xadds: 5 });
  assert.equal(await redis.client.xlen('elsewhere:events'), 6);
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
  const logged = await redis.client.xrange(`${PREFIX}:hold:watcher:events`, '-', '+');
  assert.deepEqual(
    logged.slice(-3).map(([, f]) => f[f.indexOf('rv') + 1]),
    [bound.rv, creating.rv, ready.rv],
    'logged in arrival order',
  );
});
