// Redis is not trusted: PodSet and pod entries forged in the projection (a changed image, the same
// without its namespace, privileged: true, a deletionTimestamp, another namespace than the key's, a pod
// entry that claims another PodSet's pod) and an older valid entry written back are never planned from.
// The watcher and the worker run as processes with their real start-up; a kube-sim watch on pods, opened
// before the first forgery, sees every pod change: no pod with a forged spec is ever created, nothing is
// deleted but the pods this test deletes itself, the worker logs each refused entry by its key (never
// its payload) and counts it (its /metrics), and every PodSet converges from the API.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME, ReconcileQueue } from '@podset/queue';
import { urlConnector } from '@podset/redis';
import { ProjectionReader } from '@podset/state';
import { freePort } from '@podset/testkit';
import { activePodsOf } from './support/check.ts';
import { watchPods } from './support/pod-watch.ts';
import { parts, projectionCaughtUp } from './support/projected-entries.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

const FORGED_IMAGE = 'evil.example/forged:1';
const REAL_IMAGE = 'busybox:1.36';

/** The part of a stored PodSet a forger changes. */
interface StoredPodSet {
  metadata: { namespace?: string; deletionTimestamp?: string };
  spec: {
    template: { spec: { containers: { image: string; securityContext?: { privileged: boolean } }[] } };
  };
}

interface PodEvent {
  type: string;
  object: {
    metadata: { name: string; deletionTimestamp?: string };
    spec?: { containers?: { image?: string; securityContext?: { privileged?: boolean } }[] };
  };
}

let env: OperatorEnv;
let redis: Redis;
let projection: ProjectionReader;
let metricsPort: number;

before(async () => {
  env = await startEnv({ name: 'projection-forgery' });
  await applyCrd(env);
  metricsPort = await freePort();
  env.startWatcher('watcher-0');
  // One worker: what it saw of a key is what a replay is checked against (it keeps that in memory).
  env.startWorker('worker-0', { HTTP_PORT: String(metricsPort) });
  redis = new Redis(env.redis.url);
  projection = new ProjectionReader({ client: redis, prefix: DEFAULT_PREFIX, queueName: DEFAULT_QUEUE_NAME });
});
after(async () => {
  redis?.disconnect();
  await env?.close();
});

const apply = (objects: unknown[]) => env.kubectl(['apply', '-f', env.writeManifest('ps.yaml', objects)]);

/** Every pod event in `default` from resourceVersion `rv` on, until stop(). */
/** Rewrites PodSet `name`'s stored JSON with `change`, keeping its epoch, rv and tag (no key to re-tag). */
async function forgePodSet(name: string, change: (ps: StoredPodSet) => void): Promise<void> {
  const key = projection.keys(`default/${name}`).podset;
  const [epoch, rv, tag, payload] = parts((await redis.get(key))!);
  const ps = JSON.parse(payload) as StoredPodSet;
  change(ps);
  await redis.set(key, [epoch, rv, tag, JSON.stringify(ps)].join('\t'));
}

/** Asks the queue for a reconcile of `key` directly, as the watcher would. */
async function requestReconcile(key: string): Promise<void> {
  const queue = new ReconcileQueue({
    connection: urlConnector(env.redis.url),
    prefix: DEFAULT_PREFIX,
    queueName: DEFAULT_QUEUE_NAME,
  });
  try {
    await queue.request(key, { source: 'live', reason: 'test' });
  } finally {
    await queue.close();
  }
}

const podsOf = (name: string) => activePodsOf(env.podSet(name)!, env.pods());
const imageOf = (pod: unknown) =>
  (pod as { spec?: { containers?: { image?: string }[] } }).spec?.containers?.[0]?.image;

/** Deletes one pod of `name` (a reconcile of its key follows); returns its name. */
async function deleteOnePod(name: string): Promise<string> {
  const victim = podsOf(name)[0]!.metadata.name as string;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  return victim;
}

async function refusedCount(): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^podset_projection_integrity_failures_total\{([^}]*)\} (\S+)$/gm)) {
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

test('forged projected entries are never planned from: refused, logged by key, counted, read from the API', async () => {
  const forged = ['fimage', 'fnons', 'fpriv', 'fdel', 'fotherns', 'fpod'];
  await apply([...forged, 'fneighbour'].map((n) => podSetManifest(n, 2)));
  await env.waitConverged([...forged, 'fneighbour']);
  await projectionCaughtUp(env, redis, projection, [...forged, 'fneighbour']);
  const watch = watchPods<PodEvent>(env, env.sim.resourceVersion());
  const victims = new Set<string>();
  try {
    await forgePodSet('fimage', (ps) => {
      ps.spec.template.spec.containers[0]!.image = FORGED_IMAGE;
    });
    await forgePodSet('fnons', (ps) => {
      ps.spec.template.spec.containers[0]!.image = FORGED_IMAGE;
      delete ps.metadata.namespace;
    });
    await forgePodSet('fpriv', (ps) => {
      ps.spec.template.spec.containers[0]!.securityContext = { privileged: true };
    });
    await forgePodSet('fdel', (ps) => {
      ps.metadata.deletionTimestamp = new Date().toISOString();
    });
    await forgePodSet('fotherns', (ps) => {
      ps.metadata.namespace = 'kube-system';
    });
    // A pod entry under fpod that claims fneighbour's pod as fpod's (its owner uid, ready): planned
    // from, fpod would have three pods for two replicas and could delete its neighbour's.
    const pods = projection.keys('default/fpod').pods;
    const [epoch, rv, tag, fields] = parts(Object.values(await redis.hgetall(pods))[0]!);
    const neighbour = podsOf('fneighbour')[0]!.metadata.name as string;
    await redis.hset(pods, neighbour, [epoch, rv, tag, fields].join('\t'));

    // A reconcile of each key: one pod of each deleted by hand.
    for (const name of forged) victims.add(await deleteOnePod(name));
    await env.waitConverged([...forged, 'fneighbour']);
    await env.waitFor('every forged entry refused and counted', async () => {
      const c = await refusedCount();
      const podsets = c.get('kind="podset",reason="tag"') ?? 0;
      const podEntries = c.get('kind="pod",reason="tag"') ?? 0;
      return podsets >= 5 && podEntries >= 1 ? [] : [`podset tag ${podsets}, pod tag ${podEntries}`];
    });
  } finally {
    watch.stop();
  }

  assert.ok(!watch.events.some((e) => e.type.startsWith('WATCH FAILED')), 'the watch held');
  const created = watch.events.filter((e) => e.type === 'ADDED').map((e) => e.object);
  assert.ok(created.length >= forged.length, `replacements created: ${created.length}`);
  for (const pod of created) {
    const c = pod.spec?.containers?.[0];
    assert.equal(c?.image, REAL_IMAGE, `${pod.metadata.name} has the real image`);
    assert.notEqual(c?.securityContext?.privileged, true, `${pod.metadata.name} is not privileged`);
  }
  const deleted = new Set(
    watch.events
      .filter((e) => e.type === 'DELETED' || e.object.metadata.deletionTimestamp !== undefined)
      .map((e) => e.object.metadata.name),
  );
  assert.deepEqual([...deleted].sort(), [...victims].sort(), 'only the pods deleted by hand went');
  for (const name of [...forged, 'fneighbour']) {
    assert.equal(env.podSet(name)?.metadata.deletionTimestamp, undefined, `${name} not being deleted`);
    assert.equal(podsOf(name).length, 2, `${name} has its 2 pods`);
  }
  // The log names each refused entry by its key, never its payload.
  const logged = readFileSync(path.join(env.logDir, 'worker-0.log'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('projected entry refused'));
  for (const name of forged) {
    assert.ok(
      logged.some((l) => l.includes(`default/${name}`)),
      `${name} logged`,
    );
  }
  assert.ok(!logged.some((l) => l.includes(FORGED_IMAGE) || l.includes('privileged')), 'no payload logged');
  env.assertAllRunning();
});

test('an older valid entry written back is refused: the PodSet is not rolled back', async () => {
  await apply([podSetManifest('freplay', 2)]);
  await env.waitConverged(['freplay']);
  const key = projection.keys('default/freplay').podset;
  const old = (await redis.get(key))!;
  const newImage = 'busybox:1.37';
  const template = { spec: { containers: [{ name: 'app', image: newImage, command: ['sleep', '3600'] }] } };
  await env.kubectl(['patch', 'ps', 'freplay', '--type=merge', '-p', JSON.stringify({ spec: { template } })]);
  await env.waitFor('freplay rolled out', () =>
    podsOf('freplay').length === 2 &&
    podsOf('freplay').every((p) => imageOf(p) === newImage) &&
    env.problems(['freplay']).length === 0
      ? []
      : ['rolling out'],
  );
  // The worker planned from the new version: the old one (its tag valid) is now a replay.
  await env.waitFor('the projection shows the new version', async () =>
    (await redis.get(key)) !== old ? [] : ['not yet'],
  );
  await projectionCaughtUp(env, redis, projection, ['freplay']);
  const before = (await refusedCount()).get('kind="podset",reason="replay"') ?? 0;
  const watch = watchPods<PodEvent>(env, env.sim.resourceVersion());
  try {
    await redis.set(key, old);
    const victim = await deleteOnePod('freplay');
    // A status write still on its way when the old entry went back (the worker writes status after every
    // pass that changed it) is folded over the replay, maybe before any worker read it: plant it again
    // until a worker has read and refused it.
    await env.waitFor('the replay refused', async () => {
      if (((await refusedCount()).get('kind="podset",reason="replay"') ?? 0) > before) return [];
      if ((await redis.get(key)) !== old) {
        // Planted again once the status write that overwrote it is folded, and read by a reconcile asked of
        // the queue itself: one the watcher requests goes after a held status write, which would overwrite
        // the plant again before the worker reads it.
        await projectionCaughtUp(env, redis, projection, ['freplay']);
        await redis.set(key, old);
        await requestReconcile('default/freplay');
      }
      return ['not yet'];
    });
    await env.waitFor('freplay converged on the new image', () =>
      podsOf('freplay').length === 2 &&
      !podsOf('freplay').some((p) => p.metadata.name === victim) &&
      env.problems(['freplay']).length === 0
        ? []
        : ['converging'],
    );
  } finally {
    watch.stop();
  }
  const created = watch.events.filter((e) => e.type === 'ADDED');
  assert.ok(created.length >= 1, 'the deleted pod was replaced');
  for (const e of created) assert.equal(e.object.spec?.containers?.[0]?.image, newImage, 'not rolled back');
  env.assertAllRunning();
});
