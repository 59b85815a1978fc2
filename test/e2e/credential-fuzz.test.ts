// What one app's Redis password alone can make the operator do to real pods: for each app user of the
// shipped ACL file, snapshot every key it can read once the PodSets converged, let the cluster move on
// (one pod of each PodSet deleted and replaced), then, as that user, write the stale snapshot back,
// delete every key it may write, and corrupt every key it may write — asking for a reconcile of every
// PodSet after each. A kube-sim pod watch opened before the attack sees every pod change: no pod is made
// from anything but its PodSet's template, no PodSet ever has more live pods than its replicas, no live
// pod is deleted while its PodSet has no more than its replicas, nothing crashes, and every PodSet still
// converges on a real change once the attacker stops. Real watcher and worker processes, each as its own
// Redis user, PROJECTION_HMAC_KEY set, kube-sim over HTTP, real kubectl.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, ReconcileQueue } from '@podset/queue';
import { aclUsername, type AppUser } from '@podset/redis';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';
import { podBreaches, watchPods, type PodSetTruth } from './support/pod-watch.ts';

const prefix = process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX;
const queueName = process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME;
const SETS: Record<string, number> = { 'fz-a': 2, 'fz-b': 3, 'fz-c': 1 };
const NAMES = Object.keys(SETS);

let env: OperatorEnv;
let admin: Redis;

before(async () => {
  env = await startEnv({ name: 'credential-fuzz', redisAcl: true });
  // The test's own reads (and ACL DRYRUN) as the administrator: `default` keeps every right here.
  admin = new Redis(env.redis.url, { maxRetriesPerRequest: 1 });
  await applyCrd(env);
  // Each app as its own Redis user (the harness's redisAcl).
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
  env.startWorker('worker-1');
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest(
      'fuzz.yaml',
      NAMES.map((n) => podSetManifest(n, SETS[n]!)),
    ),
  ]);
  await env.waitConverged(NAMES, { timeoutMs: 90_000 });
});
after(async () => {
  admin?.disconnect();
  await env?.close();
});

function as(app: AppUser): Redis {
  const client = new Redis(env.redis.port, '127.0.0.1', {
    username: aclUsername(app),
    password: env.redisUsers.passwords[app],
    maxRetriesPerRequest: 1,
  });
  client.on('error', () => undefined);
  return client;
}

/** Whether `app`'s user may run this command (ACL DRYRUN answers OK, or why not). */
async function may(app: AppUser, ...command: string[]): Promise<boolean> {
  return (await admin.call('ACL', 'DRYRUN', aclUsername(app), ...command)) === 'OK';
}

async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await admin.scan(cursor, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys.sort();
}

type Value =
  | { type: 'string'; value: string }
  | { type: 'hash'; value: Record<string, string> }
  | { type: 'list' | 'set'; value: string[] }
  | { type: 'zset'; value: string[] }
  | { type: 'stream'; value: [string, string[]][] };

/** A key's value as `client` reads it (type by type); undefined for a type this test does not copy. */
async function readValue(client: Redis, key: string): Promise<Value | undefined> {
  const type = await client.type(key);
  switch (type) {
    case 'string':
      return { type, value: (await client.get(key)) ?? '' };
    case 'hash':
      return { type, value: await client.hgetall(key) };
    case 'list':
      return { type, value: await client.lrange(key, 0, -1) };
    case 'set':
      return { type, value: await client.smembers(key) };
    case 'zset':
      return { type, value: await client.zrange(key, 0, -1, 'WITHSCORES') };
    case 'stream':
      return { type, value: (await client.xrange(key, '-', '+', 'COUNT', 500)) as [string, string[]][] };
    default:
      return undefined;
  }
}

/** Writes `v` to `key` as `client` (after deleting what is there). */
async function writeValue(client: Redis, key: string, v: Value): Promise<void> {
  const m = client.multi().del(key);
  switch (v.type) {
    case 'string':
      m.set(key, v.value);
      break;
    case 'hash':
      if (Object.keys(v.value).length > 0) m.hset(key, v.value);
      break;
    case 'list':
      if (v.value.length > 0) m.rpush(key, ...v.value);
      break;
    case 'set':
      if (v.value.length > 0) m.sadd(key, ...v.value);
      break;
    case 'zset':
      for (let i = 0; i + 1 < v.value.length; i += 2) m.zadd(key, v.value[i + 1]!, v.value[i]!);
      break;
    case 'stream':
      for (const [id, fields] of v.value) m.xadd(key, id, ...fields);
      break;
  }
  await m.exec();
}

/** A value of the same shape with every number made huge and every other string made garbage. */
function corrupt(v: Value): Value {
  const bad = (s: string): string => (s.trim() !== '' && Number.isFinite(Number(s)) ? '9e15' : 'garbage');
  switch (v.type) {
    case 'string':
      return { type: v.type, value: bad(v.value) };
    case 'hash':
      return {
        type: v.type,
        value: Object.fromEntries(Object.entries(v.value).map(([f, x]) => [f, bad(x)])),
      };
    case 'list':
    case 'set':
      return { type: v.type, value: [...v.value.map(bad), 'garbage'] };
    case 'zset':
      return { type: v.type, value: v.value.map((x, i) => (i % 2 === 1 ? '9e15' : x)) };
    case 'stream':
      return { type: v.type, value: v.value.map(([id, f]) => [id, f.map(bad)]) };
  }
}

/** What the API holds of each PodSet now: the truth the pods are checked against. */
function truthNow(): Map<string, PodSetTruth> {
  return new Map(
    NAMES.map((n) => {
      const ps = env.podSet(n)!;
      const spec = (
        ps as unknown as {
          spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
        }
      ).spec;
      return [
        n,
        {
          uid: ps.metadata.uid ?? '',
          replicas: spec.replicas,
          surge: 0,
          images: spec.template.spec.containers.map((c) => c.image),
        },
      ];
    }),
  );
}

/** Asks for a reconcile of every PodSet as `app` (refused or failed asks are part of the attack too). */
async function requestAll(app: AppUser): Promise<void> {
  const { REDIS_USERNAME, REDIS_PASSWORD } = env.appRedisEnv(app);
  const queue = new ReconcileQueue({
    connection: `redis://${REDIS_USERNAME}:${REDIS_PASSWORD}@127.0.0.1:${env.redis.port}`,
    prefix,
    queueName,
  });
  try {
    for (const n of NAMES)
      await queue.request(`default/${n}`, { source: 'live', reason: 'fuzz' }).catch(() => undefined);
  } finally {
    await queue.close().catch(() => undefined);
  }
}

/** Lets the workers meet what the attacker wrote: every PodSet reconciled since `sinceMs`, or 10 s. */
async function letWorkersRun(sinceMs: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (NAMES.every((n) => env.reconcilesSince(`default/${n}`, sinceMs) > 0)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

for (const app of ['worker', 'watcher', 'dashboard'] as const) {
  test(`${app}'s Redis password: stale, deleted and corrupted keys never become a wrong pod create or delete`, async () => {
    await env.waitConverged(NAMES, { timeoutMs: 90_000 });
    const client = as(app);
    const deletedByTest = new Set<string>();
    try {
      // 1. What the user can read, as it reads it, and which of those keys it may write.
      const snapshot = new Map<string, Value>();
      const writable: string[] = [];
      for (const key of await allKeys()) {
        if (!(await may(app, 'TYPE', key))) continue;
        const v = await readValue(client, key).catch(() => undefined);
        if (v === undefined) continue;
        snapshot.set(key, v);
        if (await may(app, 'DEL', key)) writable.push(key);
      }
      assert.ok(snapshot.size > 0, `${app} reads some keys`);
      if (app === 'dashboard') assert.deepEqual(writable, [], 'the dashboard user writes nothing');

      // 2. The cluster moves on: one pod of each PodSet deleted and replaced, so the snapshot is stale.
      for (const n of NAMES) {
        const victim = activePodsOf(env.podSet(n)!, env.pods())[0]!.metadata.name as string;
        deletedByTest.add(victim);
        await env.kubectl(['delete', 'pod', victim, '--wait=false']);
      }
      await env.waitConverged(NAMES, { timeoutMs: 90_000 });

      const initial = env.pods();
      const watch = watchPods(env, env.sim.resourceVersion());
      const truth = truthNow();
      try {
        // 3. The attack: write back, delete, corrupt — each followed by a reconcile of every PodSet.
        const phases: [string, (key: string) => Promise<unknown>][] = [
          ['write back the stale snapshot', (key) => writeValue(client, key, snapshot.get(key)!)],
          ['delete', (key) => client.del(key)],
          ['corrupt', (key) => writeValue(client, key, corrupt(snapshot.get(key)!))],
        ];
        for (const [, attack] of phases) {
          const sinceMs = Date.now();
          for (const key of writable) await attack(key).catch(() => undefined);
          await requestAll(app);
          await letWorkersRun(sinceMs);
        }
        env.assertAllRunning();
        assert.deepEqual(podBreaches(initial, watch.events, truth, deletedByTest), [], `as ${app}`);
      } finally {
        watch.stop();
      }
    } finally {
      client.disconnect();
    }

    // 4. The attacker stops: a real change still converges every PodSet.
    for (const n of NAMES) {
      SETS[n] = SETS[n]! + 1;
      await env.kubectl(['scale', 'ps', n, `--replicas=${SETS[n]}`]);
    }
    await env.waitConverged(NAMES, { timeoutMs: 90_000 });
    env.assertAllRunning();
  });
}
