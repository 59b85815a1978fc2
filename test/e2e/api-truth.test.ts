// Redis decides whether to act; the API decides what. Each finding of issue 37 that turned something
// wrong in Redis into a pod create or delete, reproduced against the real thing: Redis with the shipped
// ACL file, the watcher and a worker as processes each with its own Redis user, PROJECTION_HMAC_KEY set,
// kube-sim over HTTP. The attacker is a Redis client holding one app user's password (and for finding 4
// the HMAC key too). A watch on every pod, opened before the first attack, sees every pod change: no pod
// is created from a spec the API's PodSet does not have, no pod is deleted but the one this test deletes
// by hand, no PodSet ever has more pods than its replicas, and everything converges once the attacks stop.
// Also what is still taken from Redis without an API read, and how it ends: the finalizer's removal (never
// without one now), and a status-only plan (a gone pod counted in place of a real one until a relist).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, ReconcileQueue } from '@podset/queue';
import { aclUsername, type AppUser, urlConnector } from '@podset/redis';
import { sendScriptsBySha, watcherKeyspace } from '@podset/redis';
import { EntryTags, ProjectionReader } from '@podset/state';
import { freePort, type Proc } from '@podset/testkit';
import { activePodsOf } from './support/check.ts';
import { watchPods } from './support/pod-watch.ts';
import { parts, projectionCaughtUp } from './support/projected-entries.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const prefix = process.env.E2E_QUEUE_PREFIX || DEFAULT_PREFIX;
const queueName = process.env.E2E_QUEUE_NAME || DEFAULT_QUEUE_NAME;
const REAL_IMAGE = 'busybox:1.36';
const REPLICAS: Record<string, number> = {
  tone: 3,
  ttwo: 2,
  tthree: 2,
  tfour: 2,
  tnine: 2,
  tfin: 2,
  tghost: 2,
};

interface PodEvent {
  type: string;
  object: {
    metadata: {
      name: string;
      namespace?: string;
      deletionTimestamp?: string;
      ownerReferences?: { uid: string; controller?: boolean }[];
    };
    spec?: {
      hostPID?: boolean;
      hostNetwork?: boolean;
      containers?: { image?: string; securityContext?: { privileged?: boolean } }[];
    };
  };
}

let env: OperatorEnv;
let metricsPort: number;
let worker: Proc;
/** The attackers: Redis clients with one app user's password each. */
let asWorker: Redis;
let asWatcher: Redis;
let projection: ProjectionReader;
let watch: { events: PodEvent[]; stop(): void };
/** Pods this test deletes by hand: the only pods that may go. */
const victims = new Set<string>();

function as(app: AppUser): Redis {
  // Cached scripts by sha, as the apps send them: the users may not EVAL (nor may the attacker), but
  // whoever holds a password may EVALSHA what the loader cached.
  const client = sendScriptsBySha(
    new Redis(env.redis.port, '127.0.0.1', {
      username: aclUsername(app),
      password: env.redisUsers.passwords[app],
      maxRetriesPerRequest: 1,
    }),
  );
  client.on('error', () => undefined);
  return client;
}

/** Queues a reconcile of `key` as `app`'s Redis user would (the attacker's "and queued a job"). */
async function queueJob(app: AppUser, key: string): Promise<void> {
  const url = `redis://${aclUsername(app)}:${encodeURIComponent(env.redisUsers.passwords[app])}@127.0.0.1:${env.redis.port}`;
  // Through a connector, whose clients send the cached scripts by sha as the apps do.
  const queue = new ReconcileQueue({ connection: urlConnector(url), prefix, queueName });
  try {
    await queue.request(key, { source: 'live', reason: 'attacker' });
  } finally {
    await queue.close();
  }
}

/** Every pod event in every namespace from resourceVersion `rv` on, until stop(). */
const podsOf = (name: string) => activePodsOf(env.podSet(name)!, env.pods());

/**
 * Resolves once the worker's log shows a reconcile of `key` that started at or after `sinceMs` finished
 * ("reconciled", its start being its time less its duration), or the key ended: a reconcile that read
 * what the attack left in Redis.
 */
async function reconciledAfter(key: string, sinceMs: number): Promise<void> {
  await env.waitFor(`a reconcile of ${key} to finish`, () => {
    const done = worker.lines().some((line) => {
      if (!line.includes(`"podset":"${key}"`)) return false;
      const l = JSON.parse(line) as { time?: number; ms?: number; msg?: string };
      if (l.msg === 'reconciled') return (l.time ?? 0) - (l.ms ?? 0) >= sinceMs;
      return (l.msg ?? '').includes('key ended') && (l.time ?? 0) >= sinceMs;
    });
    return done ? [] : ['not yet'];
  });
}

/** The worker's GETs of PodSets and LISTs of pods in `namespace` after audit mark `mark`. */
const apiReadsAfter = (mark: number, name: string) =>
  env.sim.audit
    .query({ after: mark, user: 'worker', namespace: 'default' })
    .filter(
      (e) =>
        (e.verb === 'get' && e.resource === 'podsets' && e.name === name) ||
        (e.verb === 'list' && e.resource === 'pods'),
    );

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const m = new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text);
  return m === null ? 0 : Number(m[1]);
}

before(async () => {
  // The shipped ACL rules, each app its own user; `default` keeps every right for the harness's checks.
  env = await startEnv({ name: 'api-truth', redisAcl: true });
  await applyCrd(env);
  metricsPort = await freePort();
  env.startWatcher('watcher-0');
  worker = env.startWorker('worker-0', { HTTP_PORT: String(metricsPort) });
  asWorker = as('worker');
  asWatcher = as('watcher');
  projection = new ProjectionReader({ client: asWorker, prefix, queueName });
  const names = Object.keys(REPLICAS);
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest(
      'ps.yaml',
      names.map((n) => podSetManifest(n, REPLICAS[n]!)),
    ),
  ]);
  await env.waitConverged(names, { timeoutMs: 90_000 });
  // The attacks begin once the projection shows every PodSet at the API's version (projectionCaughtUp).
  await projectionCaughtUp(env, asWorker, projection, names);
  watch = watchPods<PodEvent>(env, env.sim.resourceVersion(), null);
});

after(async () => {
  watch?.stop();
  asWorker?.disconnect();
  asWatcher?.disconnect();
  await env?.close();
});

test('1. worker password, an old pod entry written back: no real pod is deleted, the status names only real pods', async () => {
  const key = 'default/tone';
  const pods = projection.keys(key).pods;
  const victim = podsOf('tone')[0]!.metadata.name as string;
  const recorded = (await asWorker.hget(pods, victim))!;
  victims.add(victim);
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitFor('tone has replaced its pod', () =>
    podsOf('tone').length === 3 && !podsOf('tone').some((p) => p.metadata.name === victim) ? [] : ['not yet'],
  );
  await env.waitConverged(['tone']);
  const [epoch, rv, tag, payload] = parts(recorded);
  await asWorker.hset(pods, victim, [String(Number(epoch) + 1000), rv, tag, payload].join('\t'));
  const sinceMs = Date.now();
  await queueJob('worker', key);
  await reconciledAfter(key, sinceMs);
  assert.equal(podsOf('tone').length, 3, 'no real pod deleted for the ghost');
  const names = (env.podSet('tone')!.status as { podNames?: string[] } | undefined)?.podNames ?? [];
  assert.ok(!names.includes(victim), `the status does not name the gone pod: ${names.join(', ')}`);
});

test('2. worker password, pod entries deleted three times: no pod is created beyond replicas', async () => {
  const key = 'default/ttwo';
  for (let round = 0; round < 3; round++) {
    await asWorker.del(projection.keys(key).pods);
    const sinceMs = Date.now();
    await queueJob('worker', key);
    await reconciledAfter(key, sinceMs);
  }
  assert.equal(podsOf('ttwo').length, 2, 'still the 2 pods of replicas: 2');
  assert.ok(
    (await metric('podset_projection_api_reads_total', 'reason="acting"')) >= 3,
    'read before acting',
  );
});

test('3. watcher password, after a worker restart: a deleted PodSet written back creates no pod', async () => {
  const key = 'default/tthree';
  const psKey = projection.keys(key).podset;
  const recorded = (await asWatcher.get(psKey))!;
  await env.kubectl(['delete', 'ps', 'tthree', '--timeout=60s']);
  await env.waitFor('tthree and its pods gone', () =>
    env.podSet('tthree') === undefined &&
    !env.pods().some((p) => String(p.metadata.name).startsWith('tthree-'))
      ? []
      : ['still there'],
  );
  const created = () =>
    watch.events.filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('tthree-')).length;
  const createdBefore = created();
  // The restarted worker has seen nothing of it: the replayed entry is not a replay to it.
  assert.equal((await worker.stop(10_000)).code, 0, worker.describe());
  worker = env.startWorker('worker-1', { HTTP_PORT: String(metricsPort) });
  const [epoch, ...rest] = recorded.split('\t');
  await asWatcher.set(psKey, [String(Number(epoch) + 1000), ...rest].join('\t'));
  for (let round = 0; round < 2; round++) {
    const sinceMs = Date.now();
    await queueJob('watcher', key);
    await reconciledAfter(key, sinceMs);
  }
  assert.equal(created() - createdBefore, 0, 'no pod created for a PodSet the API no longer has');
  assert.ok((await metric('podset_reconcile_keys_ended_total', 'reason="NotFound"')) >= 1, 'the key ended');
});

test('4. watcher password and HMAC key: a re-tagged privileged template and an invented kube-system PodSet make no pod', async () => {
  const tags = new EntryTags({ current: env.projectionKey });
  const retag = (key: string, rv: string, payload: string) =>
    tags.tag({ kind: 'podset', key, field: '@ps', rv, payload });
  const key = 'default/tfour';
  const psKey = projection.keys(key).podset;
  const [epoch, rv, , payload] = parts((await asWatcher.get(psKey))!);
  const ps = JSON.parse(payload) as {
    metadata: { uid: string; namespace: string; name: string };
    spec: {
      template: { spec: { hostPID?: boolean; containers: { image: string; securityContext?: object }[] } };
    };
  };
  ps.spec.template.spec.containers[0]!.image = 'evil.example/root:1';
  ps.spec.template.spec.containers[0]!.securityContext = { privileged: true };
  ps.spec.template.spec.hostPID = true;
  const forged = JSON.stringify(ps);
  await asWatcher.set(psKey, [epoch, rv, retag(key, rv, forged), forged].join('\t'));
  // An invented PodSet in kube-system, tagged, with its job.
  const evilKey = 'kube-system/evil';
  const evil = JSON.stringify({
    ...ps,
    metadata: { ...ps.metadata, namespace: 'kube-system', name: 'evil', uid: 'evil-uid' },
  });
  await asWatcher.set(
    projection.keys(evilKey).podset,
    [epoch, rv, retag(evilKey, rv, evil), evil].join('\t'),
  );
  const sinceMs = Date.now();
  await queueJob('watcher', key);
  await queueJob('watcher', evilKey);
  await reconciledAfter(key, sinceMs);
  await reconciledAfter(evilKey, sinceMs);
  const inKubeSystem = watch.events.filter((e) => e.object.metadata.namespace === 'kube-system');
  assert.deepEqual(inKubeSystem, [], 'no pod in kube-system');
  assert.equal(podsOf('tfour').length, 2);
});

test('9. worker password, a pod entry with a huge resourceVersion and a bad tag: the key is not on API reads for good', async () => {
  const key = 'default/tnine';
  const pods = projection.keys(key).pods;
  const pod = podsOf('tnine')[0]!.metadata.name as string;
  const [epoch, , , payload] = parts((await asWorker.hget(pods, pod))!);
  const HUGE = '99999999999999999999';
  await asWorker.hset(pods, pod, [epoch, HUGE, 'A'.repeat(22), payload].join('\t'));
  let sinceMs = Date.now();
  await queueJob('worker', key);
  await reconciledAfter(key, sinceMs);
  // The pod's next event is folded again: the forged entry no longer holds it back.
  await env.kubectl(['label', 'pod', pod, 'touched=1']);
  await env.waitFor("the pod's entry is the watcher's again", async () => {
    const entry = await asWorker.hget(pods, pod);
    return entry !== null && parts(entry)[1] !== HUGE ? [] : [`entry rv ${entry && parts(entry)[1]}`];
  });
  // A settled PodSet's reconcile now plans from the projection again: no API read.
  const mark = env.sim.audit.mark();
  sinceMs = Date.now();
  await queueJob('worker', key);
  await reconciledAfter(key, sinceMs);
  assert.deepEqual(
    apiReadsAfter(mark, 'tnine').map((e) => `${e.verb} ${e.resource}`),
    [],
    'reads the projection',
  );
});

test('finalizer. watcher password and HMAC key: a live PodSet shown as being deleted, its pod entries deleted: its finalizer stays, no pod goes', async () => {
  const tags = new EntryTags({ current: env.projectionKey });
  const key = 'default/tfin';
  const keys = projection.keys(key);
  const [epoch, rv, , payload] = parts((await asWatcher.get(keys.podset))!);
  const ps = JSON.parse(payload) as { metadata: Record<string, unknown> };
  ps.metadata.deletionTimestamp = new Date().toISOString();
  const forged = JSON.stringify(ps);
  const tag = tags.tag({ kind: 'podset', key, field: '@ps', rv, payload: forged });
  await asWatcher.set(keys.podset, [epoch, rv, tag, forged].join('\t'));
  await asWatcher.del(keys.pods);
  const finalizerReads = await metric('podset_projection_api_reads_total', 'reason="finalizer"');
  const sinceMs = Date.now();
  await queueJob('watcher', key);
  await reconciledAfter(key, sinceMs);
  assert.deepEqual(env.podSet('tfin')!.metadata.finalizers, ['podset.io/cleanup'], 'the finalizer stays');
  assert.equal(podsOf('tfin').length, 2, 'no pod deleted');
  assert.equal(
    (await metric('podset_projection_api_reads_total', 'reason="finalizer"')) - finalizerReads,
    1,
    'one API read before letting it go, which said no',
  );
});

test('status. worker password, a gone pod written back in place of a real one: the real pod missing sends the reconcile to the API, whose status names the real pods; the next relist removes the entry', async () => {
  const key = 'default/tghost';
  const pods = projection.keys(key).pods;
  const victim = podsOf('tghost')[0]!.metadata.name as string;
  const recorded = (await asWorker.hget(pods, victim))!;
  victims.add(victim);
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitFor('tghost has replaced its pod', () =>
    podsOf('tghost').length === 2 && !podsOf('tghost').some((p) => p.metadata.name === victim)
      ? []
      : ['not yet'],
  );
  await env.waitConverged(['tghost']);
  // One real pod's entry hidden, the gone one's written back with its epoch raised: still two pods shown.
  const hidden = podsOf('tghost')[0]!.metadata.name as string;
  await asWorker.hdel(pods, hidden);
  const [epoch, rv, tag, payload] = parts(recorded);
  await asWorker.hset(pods, victim, [String(Number(epoch) + 1000), rv, tag, payload].join('\t'));
  const actingReads = await metric('podset_projection_api_reads_total', 'reason="acting"');
  const sinceMs = Date.now();
  await queueJob('worker', key);
  await reconciledAfter(key, sinceMs);
  const named = () => (env.podSet('tghost')!.status as { podNames?: string[] } | undefined)?.podNames ?? [];
  const real = () =>
    podsOf('tghost')
      .map((p) => p.metadata.name as string)
      .sort();
  // The hidden pod is one the last status named: missing from the projection, it sends the reconcile to
  // the API (as a pod relabelled out would), and the status written is the API's: the real pods.
  assert.ok(!named().includes(victim), `status does not name the gone pod: ${named().join(', ')}`);
  assert.deepEqual(named(), real(), 'status names the real pods');
  assert.ok(
    (await metric('podset_projection_api_reads_total', 'reason="acting"')) - actingReads >= 1,
    'the reconcile read the API',
  );
  assert.equal(podsOf('tghost').length, 2, 'no pod created or deleted for it');
  // The entry written back stays until a relist (here: the watcher's data-loss check finds its sentinel
  // gone), which removes it. Left, it would keep every reconcile of the key on API reads.
  const admin = new Redis(env.redis.port, '127.0.0.1', { password: env.redisUsers.admin });
  try {
    await admin.del(watcherKeyspace(prefix, queueName, 'podset-watcher').sentinel);
  } finally {
    admin.disconnect();
  }
  await env.waitFor('the entry written back removed by the relist', async () =>
    (await asWorker.hexists(pods, victim)) === 0 ? [] : [`${victim} still projected`],
  );
  assert.deepEqual(named(), real(), 'status names the real pods');
});

test('after the attacks: every pod made from the API template, only the pod deleted by hand went, no surplus, all converge', async () => {
  const names = Object.keys(REPLICAS).filter((n) => n !== 'tthree');
  await env.waitConverged(names, { timeoutMs: 60_000 });
  assert.ok(!watch.events.some((e) => e.type.startsWith('WATCH FAILED')), 'the watch held');
  for (const e of watch.events.filter((x) => x.type === 'ADDED')) {
    const spec = e.object.spec;
    assert.equal(spec?.containers?.[0]?.image, REAL_IMAGE, `${e.object.metadata.name}: the API's image`);
    assert.notEqual(spec?.containers?.[0]?.securityContext?.privileged, true, 'not privileged');
    assert.notEqual(spec?.hostPID, true, 'no hostPID');
    assert.notEqual(spec?.hostNetwork, true, 'no hostNetwork');
  }
  const deleted = new Set(
    watch.events
      .filter((e) => e.type === 'DELETED' || e.object.metadata.deletionTimestamp !== undefined)
      .map((e) => e.object.metadata.name)
      .filter((n) => !n.startsWith('tthree-')),
  );
  assert.deepEqual([...deleted].sort(), [...victims].sort(), 'only the pod deleted by hand went');
  // Live pods per owner, event by event: never more than its replicas.
  const uidOf = new Map(names.map((n) => [env.podSet(n)!.metadata.uid as string, n]));
  const live = new Map<string, Set<string>>();
  for (const e of watch.events) {
    const owner = e.object.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
    const name = owner === undefined ? undefined : uidOf.get(owner);
    if (name === undefined) continue;
    const set = live.get(name) ?? new Set<string>();
    live.set(name, set);
    if (e.type === 'DELETED' || e.object.metadata.deletionTimestamp !== undefined)
      set.delete(e.object.metadata.name);
    else set.add(e.object.metadata.name);
    assert.ok(set.size <= REPLICAS[name]!, `${name}: ${set.size} pods for replicas ${REPLICAS[name]}`);
  }
  for (const n of names) assert.equal(podsOf(n).length, REPLICAS[n], `${n} converged`);
  env.assertAllRunning([...env.procs.filter((p) => p.name === 'worker-0')]);
});
