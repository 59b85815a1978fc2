// Redis Cluster through configuration: REDIS_CLUSTER_NODES gives a connector of ioredis Cluster
// clients. With the queue prefix in a hash tag every key of the queue (and the watcher's and worker's
// own keys next to it) hashes to one slot, so BullMQ's scripts and ours run; without one the apps refuse
// to start, naming QUEUE_PREFIX.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, parseEnv } from '@podset/config';
import { kubeConfigFor, type Kube, type PodSet } from '@podset/kube';
import { ReconcileQueue, bullKeys, startReconcileWorker } from '@podset/queue';
import { redisConnector, type RedisConnector } from '@podset/redis';
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { dashboardEnv } from '../../apps/dashboard/src/config.ts';
import { DataLossDetector, EventLog, RedisCheckpoint } from '../../apps/watcher/src/index.ts';
import { redisKeys, watcherEnv } from '../../apps/watcher/src/config.ts';
import { workerEnv } from '../../apps/worker/src/config.ts';
import { startWorker } from '../../apps/worker/src/worker.ts';
import { startDashboard } from '../../apps/dashboard/src/server.ts';
import { fakeKube } from '../../apps/worker/test/fake-kube.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { checkQueueBasics } from './queue-basics.ts';
import { compileCacheEnv, waitFor } from '@podset/testkit';
import { keySlot, startCluster, type ClusterSetup } from './support.ts';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const NODE = path.join(REPO, 'node_modules/.bin/node');
const PREFIX = '{podset}';

let cluster: ClusterSetup;
let connector: RedisConnector;
const log = silentLogger;

before(async () => {
  cluster = await startCluster();
  connector = redisConnector(
    parseEnv(workerEnv, { REDIS_CLUSTER_NODES: cluster.nodes.join(','), QUEUE_PREFIX: PREFIX }),
  );
});
after(async () => {
  await cluster?.close();
});

test('Cluster: requests collapse and a worker reconciles each key once, prefix {podset}', async () => {
  assert.equal(connector.mode, 'cluster');
  const { queue, worker } = await checkQueueBasics(connector, {
    prefix: PREFIX,
    queueName: 'cluster-basics',
  });
  try {
    // The keys really are spread over a cluster: the queue's all sit in one slot, other keys elsewhere.
    const slot = await keySlot(cluster.ports[0]!, `${queue.jobPrefix}wait`);
    assert.equal(await keySlot(cluster.ports[0]!, bullKeys(queue.jobPrefix).dedup('default/web')), slot);
    const slots = new Set(
      await Promise.all(['a', 'b', 'c', 'd', 'e'].map((k) => keySlot(cluster.ports[0]!, k))),
    );
    assert.ok(slots.size > 1);
  } finally {
    await worker.close();
    await queue.close();
  }
});

test('Cluster: a prefix without a hash tag is refused at start-up, naming QUEUE_PREFIX', async (t) => {
  const nodes = cluster.nodes.join(',');
  for (const [name, spec] of [
    ['watcher', watcherEnv],
    ['worker', workerEnv],
    ['dashboard', dashboardEnv],
  ] as const) {
    assert.throws(
      () => redisConnector(parseEnv(spec, { REDIS_CLUSTER_NODES: nodes, QUEUE_PREFIX: 'podset' })),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.some(
          (p) => p.variable === 'QUEUE_PREFIX' && /hash tag such as \{podset\}/.test(p.message),
        ),
      name,
    );
  }
  await t.test('the apps exit 2 with the message', async () => {
    for (const app of ['watcher', 'worker', 'dashboard']) {
      const child = spawn(NODE, [path.join(REPO, `apps/${app}/src/main.ts`)], {
        env: {
          PATH: process.env.PATH,
          ...compileCacheEnv(),
          REDIS_CLUSTER_NODES: nodes,
          QUEUE_PREFIX: 'podset',
          LOG_LEVEL: 'silent',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 2, `${app}: ${stderr}`);
      assert.match(
        stderr,
        /QUEUE_PREFIX: must contain a hash tag such as \{podset\} with Redis Cluster/,
        app,
      );
    }
  });
  await t.test('why: without the tag the queue keys span slots and Redis refuses the scripts', async () => {
    // The same connector with the validation bypassed (what the check at start-up prevents).
    const unchecked: RedisConnector = { ...connector, client: (tuning) => connector.client(tuning) };
    const queue = new ReconcileQueue({ connection: unchecked, prefix: 'podset', queueName: 'no-tag' });
    try {
      await assert.rejects(queue.request('default/web', { source: 'live' }), /CROSSSLOT/);
    } finally {
      await queue.close();
    }
  });
});

test("Cluster: the watcher's checkpoint, event log and data-loss sentinel", async () => {
  const keys = redisKeys({
    QUEUE_PREFIX: PREFIX,
    QUEUE_NAME: 'podset-reconcile',
    EVENT_LOG_KEY: undefined,
    LEASE_NAME: 'podset-watcher',
  });
  const redis = connector.client({ maxRetriesPerRequest: 3 });
  const checkpoint = new RedisCheckpoint({ redis, key: keys.checkpoint, everyEvents: 2, logger: log });
  let losses = 0;
  const detector = new DataLossDetector({ redis, key: keys.sentinel, logger: log, onLoss: () => losses++ });
  try {
    // Same slot as the queue's own keys (one hash tag for all).
    const slot = await keySlot(cluster.ports[0]!, `${PREFIX}:podset-reconcile:wait`);
    for (const key of Object.values(keys)) assert.equal(await keySlot(cluster.ports[0]!, key), slot, key);

    await checkpoint.save('podsets', '100');
    await checkpoint.save('pods', '120', { force: true });
    const reread = new RedisCheckpoint({ redis, key: keys.checkpoint, logger: log });
    try {
      assert.equal(await reread.load('podsets'), '100');
      assert.equal(await reread.load('pods'), '120');
    } finally {
      reread.close();
    }

    const events = new EventLog({ redis, key: keys.eventLog, maxLen: 100 });
    const t0 = new Date().toISOString();
    await events.append({ t: t0, type: 'ADDED', kind: 'PodSet', key: 'default/web', name: 'web', rv: '100' });
    await events.append({
      t: t0,
      type: 'MODIFIED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-1',
      rv: '121',
    });
    const recent = await events.recent(10);
    assert.deepEqual(
      recent.map((e) => [e.type, e.name, e.rv]),
      [
        ['MODIFIED', 'web-1', '121'],
        ['ADDED', 'web', '100'],
      ],
    );

    await detector.start();
    assert.equal(await detector.check(), false, 'sentinel present');
    await redis.del(keys.sentinel); // what a flush of that node would do
    assert.equal(await detector.check(), true, 'a lost sentinel is noticed');
    assert.equal(losses, 1);
  } finally {
    detector.stop();
    checkpoint.close();
    redis.disconnect();
  }
});

test('Cluster: the assembled worker (projection expectations, readiness PING) on the cluster', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 3);
  const kc = kubeConfigFor(1, { name: 'u' });
  const w = await startWorker(
    {
      kubeConfig: kc,
      redis: connector,
      queueName: 'cluster-worker',
      queuePrefix: PREFIX,
      concurrency: 2,
      kubeQps: 0,
      kubeBurst: 10,
      createBurst: 8,
      requeuePendingMs: 60_000,
      maxAttempts: 3,
      finishedPodsToKeep: 3,
      shutdownTimeoutMs: 5_000,
      httpPort: -1,
      instance: 'cluster-test',
      stateSource: 'projection',
      projectionHmacKeys: { current: 'cluster-test-projection-key-0123456789' },
    },
    { planner, log, kube: f.kube, checkApi: async () => {} },
  );
  const queue = new ReconcileQueue({ connection: connector, prefix: PREFIX, queueName: 'cluster-worker' });
  const redis = connector.client();
  try {
    await queue.request('default/web', { source: 'live', rv: '100' });
    await waitFor('3 pods', async () => (f.pods.size === 3 ? true : undefined));
    // No watcher has made the projection ready, so the worker read the API; its creates are expected in
    // the projection (a two-key script: both keys under the tag, one slot).
    // (Its fields are the pods' names, and '@q' when the pass noted its creates quiet.)
    await waitFor('creates expected', async () => {
      const fields = await redis.hkeys(`${PREFIX}:cluster-worker:proj:exp:default/web`);
      return fields.filter((f) => !f.startsWith('@')).length === 3 ? true : undefined;
    });
    const r = await fetch(`http://127.0.0.1:${w.httpPort}/readyz`);
    assert.equal(r.status, 200, await r.clone().text());
    assert.match(await r.text(), /redis: ok/);
  } finally {
    redis.disconnect();
    await queue.close();
    await w.close();
  }
});

test('Cluster: the dashboard reads the queue and the event log', async () => {
  const queueName = 'cluster-dashboard';
  const keys = redisKeys({
    QUEUE_PREFIX: PREFIX,
    QUEUE_NAME: queueName,
    EVENT_LOG_KEY: undefined,
    LEASE_NAME: 'x',
  });
  const queue = new ReconcileQueue({ connection: connector, prefix: PREFIX, queueName });
  const worker = startReconcileWorker({
    connection: connector,
    prefix: PREFIX,
    queueName,
    concurrency: 1,
    handler: async () => {},
  });
  const redis = connector.client();
  const podSet: PodSet = {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: { replicas: 2 },
    status: { replicas: 2, readyReplicas: 2, observedGeneration: 1 },
  };
  const kube = {
    client: { server: 'fake' },
    podSets: {
      list: () => Promise.resolve({ items: [podSet], metadata: {} }),
      listAll: () => Promise.resolve({ items: [podSet], metadata: {} }),
    },
  } as unknown as Kube;
  const token = 'cluster-test-token-0123456789';
  const dashboard = await startDashboard(
    {
      kubeConfig: new KubeConfig(),
      redis: connector,
      queueName,
      queuePrefix: PREFIX,
      eventLogKeys: [keys.eventLog],
      port: 0,
      host: '127.0.0.1',
      credentials: { token },
      readOnly: true,
      secureCookie: false,
      sessionMaxAgeSeconds: 3600,
      eventsPerPodSet: 5,
      eventLogScan: 100,
      jobScan: 100,
      httpPort: 0,
      kubeQps: 5,
      kubeBurst: 10,
    },
    { log, kube },
  );
  try {
    await new EventLog({ redis, key: keys.eventLog }).append({
      t: new Date().toISOString(),
      type: 'ADDED',
      kind: 'PodSet',
      key: 'default/web',
      name: 'web',
      rv: '7',
    });
    await queue.request('default/web', { source: 'live' });
    await waitFor('reconciled', async () =>
      (await queue.queue.getCompletedCount()) === 1 ? true : undefined,
    );
    const headers = { authorization: `Bearer ${token}` };
    const overview = (await (await fetch(`${dashboard.url}/api/overview`, { headers })).json()) as {
      podSets: { key: string; lastReconcile?: { result: string }; events: { rv: string }[] }[];
      errors: string[];
    };
    assert.deepEqual(overview.errors, []);
    const row = overview.podSets.find((p) => p.key === 'default/web');
    assert.equal(row?.lastReconcile?.result, 'completed');
    assert.deepEqual(
      row?.events.map((e) => e.rv),
      ['7'],
    );
    const ready = await fetch(`${dashboard.url}/readyz`, { headers });
    assert.equal(ready.status, 200, await ready.clone().text());
    const metrics = await (await fetch(`${dashboard.url}/metrics`, { headers })).text();
    assert.match(metrics, /podset_queue_jobs\{[^}]*state="completed"[^}]*\} 1/);
  } finally {
    await dashboard.close();
    redis.disconnect();
    await worker.close();
    await queue.close();
  }
});

test("Cluster: a deleted PodSet's finished jobs and event-log entries are forgotten (stream in the queue's slot or not)", async () => {
  const queueName = 'cluster-forget';
  const queue = new ReconcileQueue({ connection: connector, prefix: PREFIX, queueName });
  const worker = startReconcileWorker({
    connection: connector,
    prefix: PREFIX,
    queueName,
    concurrency: 2,
    handler: async () => {},
  });
  const redis = connector.client();
  const ownSlot = redisKeys({
    QUEUE_PREFIX: PREFIX,
    QUEUE_NAME: queueName,
    EVENT_LOG_KEY: undefined,
    LEASE_NAME: 'x',
  }).eventLog;
  const elsewhere = 'audit:podset-events';
  try {
    assert.notEqual(await keySlot(cluster.ports[0]!, elsewhere), await keySlot(cluster.ports[0]!, ownSlot));
    for (const key of ['default/web', 'default/web-2']) {
      await queue.request(key, { source: 'live' });
      for (const stream of [ownSlot, elsewhere]) {
        await new EventLog({ redis, key: stream }).append({
          t: '',
          type: 'ADDED',
          kind: 'PodSet',
          key,
          name: '',
          rv: '',
        });
      }
    }
    await waitFor('reconciled', async () =>
      (await queue.queue.getCompletedCount()) === 2 ? true : undefined,
    );
    assert.deepEqual(await queue.forgetKey('default/web', { eventLogKey: ownSlot }), {
      completed: 1,
      failed: 0,
      events: 1,
      truncated: false,
    });
    assert.equal((await queue.forgetKey('default/web', { eventLogKey: elsewhere })).events, 1);
    const completed = await queue.queue.getCompleted();
    assert.deepEqual(
      completed.map((j) => j.name),
      ['default/web-2'],
    );
    for (const stream of [ownSlot, elsewhere]) {
      const left = await new EventLog({ redis, key: stream }).recent(10);
      assert.deepEqual(
        left.map((e) => e.key),
        ['default/web-2'],
        stream,
      );
    }
  } finally {
    redis.disconnect();
    await worker.close();
    await queue.close();
  }
});
