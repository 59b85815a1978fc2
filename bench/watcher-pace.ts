// The watcher's cost per pod at a cluster's pace, counted: its EventPipeline and Projector (the projection,
// the queue's live cover, the event log with the folds, the real ReconcileQueue) on a local redis-server,
// fed the kubelet lifecycle's events at a kubelet's pace. A PodSet every `--gap` ms: its ADDED; a worker's
// creates (the expectations recorded first, as a worker does) and their ADDED events 1 ms apart; the
// scheduler's bindings 2 ms apart; each pod's ContainerCreating status write 10 ms after its binding; its
// Running+Ready write after a startup delay of 1–1.5 s; the PodSet's status writes (after its first
// reconcile, and once its pods are ready). Requested jobs are removed 2 ms after they come due (as if a
// worker ran them), on a connection of their own. Events due in the same millisecond are handed on in
// one turn, as a watch read hands them on.
// Prints per pod: batches (flushes), fold calls, socket writes of the watcher's connections, Redis commands,
// timers and immediates set, hashes and HMACs made (node:crypto's hash, createHmac), and the process's CPU
// (load-dependent: give `uptime` beside it); with `--promises`, promises made (async_hooks: slower, so its CPU is not comparable).
//   node_modules/.bin/node bench/watcher-pace.ts [--podsets 100] [--replicas 10] [--gap 200] [--promises]
import { createHook } from 'node:async_hooks';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { silentLogger } from '@podset/log';
import { ReconcileQueue } from '@podset/queue';
import { urlConnector } from '@podset/redis';
import { ProjectionReader, type ProjectedPod, type ProjectedPodSet } from '@podset/state';
import { startRedis } from '@podset/testkit';
import { EventLog, EventPipeline, Projector, type WatchEvent, type WatchedObject } from '@podset/watcher';
import { watcherProjection } from '@podset/watcher/queue-cover';
import { parseCommandCosts } from './lib/redis-profile.ts';

const { values } = parseArgs({
  options: {
    podsets: { type: 'string', default: '100' },
    replicas: { type: 'string', default: '10' },
    gap: { type: 'string', default: '200' },
    'hold-ms': { type: 'string', default: '50' },
    'collapse-ms': { type: 'string', default: '1000' },
    promises: { type: 'boolean', default: false },
    /** Events built and dropped, the watcher not run: the harness's own CPU (the floor of the figure). */
    'harness-only': { type: 'boolean', default: false },
  },
});
const PODSETS = Number(values.podsets);
const REPLICAS = Number(values.replicas);
const GAP = Number(values.gap);
const PREFIX = '{bench}';
const QUEUE = 'reconcile';
const NS = 'default';

/** Replaces `owner[name]` with a wrapper that counts its calls into `tally[field]`. */
function countCalls<O extends object, T extends Record<string, number>>(
  owner: O,
  name: keyof O & string,
  tally: T,
  field: keyof T,
): void {
  const real = owner[name] as (...a: unknown[]) => unknown;
  (owner as Record<string, unknown>)[name] = (...a: unknown[]) => {
    (tally as Record<keyof T, number>)[field]++;
    return real(...a);
  };
}

// Timers and immediates set by anything in this process but the harness's own ticker (kept apart below).
const counts = { timeouts: 0, immediates: 0, promises: 0 };
const realSetTimeout = globalThis.setTimeout;
countCalls(globalThis, 'setTimeout', counts, 'timeouts');
countCalls(globalThis, 'setImmediate', counts, 'immediates');
// One-shot hashes (the inputs digests) and HMACs (the entries' integrity macs) made by the watcher's code.
const hashes = { hash: 0, hmac: 0 };
countCalls(crypto, 'hash', hashes, 'hash');
countCalls(crypto, 'createHmac', hashes, 'hmac');
syncBuiltinESMExports();
const promiseHook = createHook({
  init(_id, type) {
    if (type === 'PROMISE') counts.promises++;
  },
});

const T = '2026-12-04T12:00:00Z';
function podSetAt(i: number, rv: number, status?: Record<string, unknown>): ProjectedPodSet {
  return {
    metadata: {
      name: `ps-${i}`,
      namespace: NS,
      uid: `ps-uid-${i}`,
      generation: 1,
      resourceVersion: String(rv),
      creationTimestamp: T,
      labels: { app: 'bench' },
      finalizers: ['podset.io/cleanup'],
    },
    spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'bench' } }, template: {} },
    ...(status !== undefined ? { status } : {}),
  } as ProjectedPodSet;
}

/** Pod j of PodSet i at step s: 0 added, 1 bound, 2 ContainerCreating, 3 Running and Ready. */
function podAt(i: number, j: number, step: number, rv: number): ProjectedPod {
  const ps = `ps-${i}`;
  const conditions = [
    { type: 'PodScheduled', status: 'True', lastTransitionTime: T },
    ...(step >= 2
      ? [
          { type: 'Initialized', status: 'True', lastTransitionTime: T },
          { type: 'ContainersReady', status: step >= 3 ? 'True' : 'False', lastTransitionTime: T },
          { type: 'Ready', status: step >= 3 ? 'True' : 'False', lastTransitionTime: T },
        ]
      : []),
  ];
  const container = {
    name: 'app',
    image: 'nginx:1.27',
    ready: step >= 3,
    restartCount: 0,
    state: step >= 3 ? { running: { startedAt: T } } : { waiting: { reason: 'ContainerCreating' } },
  };
  return {
    metadata: {
      name: `${ps}-${j}`,
      namespace: NS,
      uid: `uid-${i}-${j}`,
      resourceVersion: String(rv),
      creationTimestamp: T,
      labels: { app: 'bench', 'podset.io/name': ps, 'podset.io/template-hash': 'abcdef' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: ps, uid: `ps-uid-${i}`, controller: true },
      ],
    },
    spec: {
      ...(step >= 1 ? { nodeName: `node-${(i * REPLICAS + j) % 50}` } : {}),
      containers: [{ name: 'app', image: 'nginx:1.27' }],
    },
    status: {
      phase: step >= 3 ? 'Running' : 'Pending',
      ...(step >= 1 ? { conditions } : {}),
      ...(step >= 2 ? { hostIP: '10.0.0.1', containerStatuses: [container] } : {}),
      ...(step >= 3 ? { podIP: `10.1.${i % 250}.${j}`, startTime: T } : {}),
    },
  } as ProjectedPod;
}

/** What happens at a time: watch events, or the worker's expectations of its creates. */
type Step = { at: number; event?: () => WatchEvent; expect?: { key: string; names: string[] } };

let rv = 1000;
function schedule(): Step[] {
  const steps: Step[] = [];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pod = (i: number, j: number, s: number) => (): WatchEvent => ({
    stream: 'pods/*',
    resource: 'pods' as const,
    type: s === 0 ? ('ADDED' as const) : ('MODIFIED' as const),
    object: podAt(i, j, s, ++rv),
    rv: String(rv),
  });
  const podset =
    (i: number, type: 'ADDED' | 'MODIFIED', status?: Record<string, unknown>) => (): WatchEvent => ({
      stream: 'podsets/*',
      resource: 'podsets' as const,
      type,
      object: podSetAt(i, ++rv, status) as WatchedObject,
      rv: String(rv),
    });
  for (let i = 0; i < PODSETS; i++) {
    const t0 = i * GAP;
    const names = Array.from({ length: REPLICAS }, (_, j) => `ps-${i}-${j}`);
    steps.push({ at: t0, event: podset(i, 'ADDED') });
    steps.push({ at: t0 + 4, expect: { key: `${NS}/ps-${i}`, names } });
    let lastReady = 0;
    for (let j = 0; j < REPLICAS; j++) {
      const added = t0 + 5 + j;
      const bound = t0 + 10 + REPLICAS + 2 * j;
      const ready = bound + 1000 + Math.floor(random() * 500);
      lastReady = Math.max(lastReady, ready);
      steps.push({ at: added, event: pod(i, j, 0) });
      steps.push({ at: bound, event: pod(i, j, 1) });
      steps.push({ at: bound + 10, event: pod(i, j, 2) });
      steps.push({ at: ready, event: pod(i, j, 3) });
    }
    steps.push({ at: t0 + 30, event: podset(i, 'MODIFIED', { replicas: REPLICAS, readyReplicas: 0 }) });
    steps.push({
      at: lastReady + 1000,
      event: podset(i, 'MODIFIED', { replicas: REPLICAS, readyReplicas: REPLICAS }),
    });
  }
  return steps.sort((a, b) => a.at - b.at);
}

const redis = await startRedis();
const admin = new Redis(redis.url);
// The watcher's connection, as watcher.ts makes it.
const conn = new Redis(redis.url, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
const queue = new ReconcileQueue({ connection: urlConnector(redis.url), queueName: QUEUE, prefix: PREFIX });
const drainer = new ReconcileQueue({ connection: urlConnector(redis.url), queueName: QUEUE, prefix: PREFIX });
const workerClient = new Redis(redis.url);
const worker = new ProjectionReader({ client: workerClient, prefix: PREFIX, queueName: QUEUE });
// Socket writes of the watcher's own connection (folds, event log), the queue's (merges) and BullMQ's (the
// request's transaction).
const sockets = { writes: 0, fold: 0, merge: 0, transaction: 0 };
const bytes = { fold: 0, merge: 0, transaction: 0 };
const queueClient = (queue as unknown as { client: Redis }).client;
const bullClient = (await queue.queue.getBackend().client) as unknown as Redis;
for (const [name, client] of [
  ['fold', conn],
  ['merge', queueClient],
  ['transaction', bullClient],
] as const) {
  await client.ping();
  const stream = client.stream;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    sockets.writes++;
    sockets[name]++;
    bytes[name] += Buffer.byteLength(args[0] as string);
    return write(...args);
  }) as typeof stream.write;
}
const eventLog = new EventLog({ redis: conn, key: `${PREFIX}:${QUEUE}:watcher:events`, maxLen: 10_000 });
const writer = watcherProjection({
  client: conn,
  prefix: PREFIX,
  queueName: QUEUE,
  cover: true,
  // As the watcher folds with tracing off.
  merge: true,
  statusCollapseMs: Number(values['collapse-ms']),
  eventLogKey: eventLog.key,
});
const projector = new Projector(writer, ['pods/*', 'podsets/*'], silentLogger, eventLog);
for (const stream of ['pods/*', 'podsets/*']) {
  await projector.relistStarted(stream);
  await projector.relistDone({
    stream,
    resource: stream === 'pods/*' ? 'pods' : 'podsets',
    namespace: undefined,
  });
}
let folds = 0;
const admit = projector.admit.bind(projector);
projector.admit = (events, records) => {
  folds++;
  return admit(events, records);
};
const requests = { calls: 0, keys: 0 };
const pipeline = new EventPipeline({
  queue: {
    async requestAll(items) {
      requests.calls++;
      requests.keys += items.length;
      const answers = await queue.requestAll(items);
      // Each job made is taken by a worker (removed) 2 ms after it comes due: a create's ADDED finds it gone.
      answers.forEach((a, i) => {
        if (a.outcome !== 'created') return;
        realSetTimeout(
          () => void drainer.queue.remove(a.jobId).catch(() => undefined),
          (items[i]!.opts.delayMs ?? 0) + 2,
        );
      });
      return answers;
    },
  },
  logger: silentLogger,
  gate: projector,
  eventLog,
  statusCollapseMs: Number(values['collapse-ms']),
  quietHoldMs: Number(values['hold-ms']),
});

const steps = schedule();
const pods = PODSETS * REPLICAS;
const cmd0 = parseCommandCosts(await admin.info('commandstats'));
const before = { ...counts, ...sockets, ...hashes };
if (values.promises) promiseHook.enable();
const cpu0 = process.cpuUsage();
const start = performance.now();
const pending: Promise<void>[] = [];
let failed = 0;
await new Promise<void>((done) => {
  let next = 0;
  const tick = () => {
    const now = performance.now() - start;
    while (next < steps.length && steps[next]!.at <= now) {
      const step = steps[next++]!;
      if (step.expect !== undefined)
        pending.push(worker.expect(step.expect.key, 'create', step.expect.names).then(() => undefined));
      if (step.event === undefined) continue;
      const ev = step.event();
      if (!values['harness-only']) pending.push(pipeline.event(ev).catch(() => void failed++));
    }
    if (next < steps.length) realSetTimeout(tick, Math.max(0, steps[next]!.at - now));
    else done();
  };
  tick();
});
await Promise.all(pending);
await new Promise((resolve) => realSetTimeout(resolve, 100));
const cpu = process.cpuUsage(cpu0);
promiseHook.disable();
const cmd1 = parseCommandCosts(await admin.info('commandstats'));
const per = (n: number) => (n / pods).toFixed(2);
const events = steps.filter((s) => s.event !== undefined).length;
const commands = [...cmd1]
  .map(([name, c]) => [name, c.calls - (cmd0.get(name)?.calls ?? 0)] as const)
  .filter(([name, calls]) => calls > 0 && name !== 'info')
  .sort((a, b) => b[1] - a[1]);
console.log(
  `${PODSETS} × ${REPLICAS} pods, a PodSet every ${GAP} ms, ${events} events (${(events / pods).toFixed(2)} per pod), ` +
    `${failed} failed, held ${pipeline.held}\n` +
    `per pod: batches (folds) ${per(folds)}, socket writes ${per(sockets.writes - before.writes)} ` +
    `(fold ${per(sockets.fold - before.fold)}, merge ${per(sockets.merge - before.merge)}, ` +
    `transaction ${per(sockets.transaction - before.transaction)}), ` +
    `requestAll calls ${per(requests.calls)} (keys ${per(requests.keys)}), ` +
    `timeouts ${per(counts.timeouts - before.timeouts)}, immediates ${per(counts.immediates - before.immediates)}` +
    (values.promises ? `, promises ${per(counts.promises - before.promises)}` : '') +
    `\n  hashes per pod ${per(hashes.hash - before.hash)}, HMACs ${per(hashes.hmac - before.hmac)}` +
    `\n  CPU ${((cpu.user + cpu.system) / 1000 / pods).toFixed(3)} ms per pod (the whole process, harness included)` +
    `\n  Redis commands per pod: ${commands.map(([name, calls]) => `${name} ${per(calls)}`).join(', ')}`,
);
console.log(
  `  bytes per pod: ${Object.entries(bytes)
    .map(([k, v]) => `${k} ${(v / pods).toFixed(0)}`)
    .join(', ')}`,
);
conn.disconnect();
admin.disconnect();
await queue.close();
await drainer.close();
workerClient.disconnect();
await redis.close();
