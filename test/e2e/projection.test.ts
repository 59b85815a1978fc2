// The projection end to end, as the apps start without any setting: the watcher and two workers as
// processes, the real kubectl. PodSets converge, scale both ways, replace a deleted pod and clean up on
// deletion, deciding from the projection: the API is read only by a reconcile that creates or deletes
// (one GET and one LIST each, counted by the workers); a Redis restarted empty is rebuilt from a relist
// before workers trust it again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { ProjectionReader } from '@podset/state';
import { freePort } from '@podset/testkit';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
const names = ['pa', 'pb', 'pc'];
const metricsPorts: number[] = [];
const reads = (since: string) =>
  env.sim.audit
    .query({ since, user: 'worker', namespace: 'default' })
    .filter(
      (e) => (e.verb === 'get' && e.resource === 'podsets') || (e.verb === 'list' && e.resource === 'pods'),
    );

before(async () => {
  // No STATE_SOURCE: the default must be the projection (the test fails on any API read below).
  env = await startEnv({ name: 'projection' });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  for (const name of ['worker-0', 'worker-1']) {
    const port = await freePort();
    metricsPorts.push(port);
    env.startWorker(name, { HTTP_PORT: String(port) });
  }
});

/** The workers' API reads of the projection's source, summed over both, by reason. */
async function apiReadCounts(): Promise<{ acting: number; fallback: number }> {
  const out = { acting: 0, fallback: 0 };
  for (const port of metricsPorts) {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const m of text.matchAll(/^podset_projection_api_reads_total\{reason="(\w+)"\} (\S+)$/gm)) {
      if (m[1] === 'acting' || m[1] === 'fallback') out[m[1]] += Number(m[2]);
    }
  }
  return out;
}
after(async () => {
  await env?.close();
});

const apply = (objects: unknown[]) => env.kubectl(['apply', '-f', env.writeManifest('ps.yaml', objects)]);
const scale = (name: string, n: number) => env.kubectl(['scale', 'ps', name, `--replicas=${n}`]);

test('PodSets converge, scale, heal and go; once the projection is ready the API is read only before acting', async () => {
  await apply(names.map((n, i) => podSetManifest(n, 2 + i)));
  await env.waitConverged(names);
  const since = new Date().toISOString();
  const countedBefore = await apiReadCounts();
  await scale('pa', 5);
  await scale('pc', 1);
  const victim = activePodsOf(env.podSet('pb')!, env.pods())[0]!.metadata.name as string;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitConverged(names);
  assert.ok(!activePodsOf(env.podSet('pb')!, env.pods()).some((p) => p.metadata.name === victim));
  // A pod taken out of its PodSet by its label (as one does to debug it) is released and replaced: its
  // event reaches the PodSet, and the projection stops counting it. (A pod that only loses its controller
  // reference but still matches would be adopted again, as a ReplicaSet does: test/e2e/ownership.test.ts.)
  const released = activePodsOf(env.podSet('pa')!, env.pods())[0]!.metadata.name as string;
  await env.kubectl(['label', 'pod', released, 'podset.io/name-']);
  await env.waitFor(`${released} released`, () =>
    env.pods().find((p) => p.metadata.name === released)?.metadata.ownerReferences?.length
      ? ['still owned']
      : [],
  );
  await env.waitConverged(names);
  assert.ok(!activePodsOf(env.podSet('pa')!, env.pods()).some((p) => p.metadata.name === released));
  assert.equal(activePodsOf(env.podSet('pa')!, env.pods()).length, 5);
  assert.ok(
    env.pods().some((p) => p.metadata.name === released),
    'the released pod itself is left alone',
  );
  // Every read is one of a reconcile that would create or delete (a GET and a LIST each), or the re-read
  // after a 409 (a PodSet changed by kubectl while a worker held its read: a race the test cannot rule out),
  // never another fallback; and there are no more acting reads than pod creates and deletes (each acting
  // reconcile made one).
  const counted = await apiReadCounts();
  const acting = counted.acting - countedBefore.acting;
  const fallback = counted.fallback - countedBefore.fallback;
  const conflicts = env.sim.audit.query({
    since,
    user: 'worker',
    namespace: 'default',
    resource: 'podsets',
    code: 409,
  }).length;
  const seen = reads(since);
  assert.ok(
    fallback <= conflicts,
    `${fallback} fallback reads, ${conflicts} answered 409: none but after a 409`,
  );
  assert.equal(seen.filter((e) => e.verb === 'get').length, acting + fallback, 'one GET per API read');
  assert.equal(seen.filter((e) => e.verb === 'list').length, acting + fallback, 'one LIST per API read');
  const podWrites = env.sim.audit
    .query({ since, user: 'worker', namespace: 'default', resource: 'pods' })
    .filter((e) => e.verb === 'create' || e.verb === 'delete').length;
  assert.ok(acting >= 1 && acting <= podWrites, `${acting} acting reconciles, ${podWrites} pod writes`);
  await env.kubectl(['delete', 'ps', 'pc', '--timeout=60s']);
  await env.waitFor('pc and its pods gone', () =>
    env.podSet('pc') === undefined && env.pods().every((p) => !String(p.metadata.name).startsWith('pc-'))
      ? []
      : ['still there'],
  );
  // The worker's cleanup before its finalizer went took pc's projected state with it.
  const redis = new Redis(env.redis.url);
  try {
    const projection = new ProjectionReader({
      client: redis,
      prefix: DEFAULT_PREFIX,
      queueName: DEFAULT_QUEUE_NAME,
    });
    // All that stays are tombstones (they hold back late events), in keys that expire on their own.
    const keys = projection.keys('default/pc');
    await env.waitFor("pc's projected state removed", async () => {
      const wrong = [];
      const expiring = async (key: string) => {
        const ttl = await redis.pttl(key);
        return ttl === -2 || (ttl > 0 && ttl <= 5 * 60_000);
      };
      for (const key of [keys.expect, keys.requested])
        if ((await redis.exists(key)) === 1) wrong.push(`${key} left`);
      // Pods whose DELETED came after the cleanup leave tombstones, which go with the hash.
      const pods = Object.values(await redis.hgetall(keys.pods));
      if (pods.some((v) => !v.includes('\n')) || !(await expiring(keys.pods)))
        wrong.push(`pods left: ${JSON.stringify(pods)}, pttl ${await redis.pttl(keys.pods)}`);
      if ((await redis.smembers(projection.indexKey)).includes('default/pc')) wrong.push('in the index');
      if (!(await expiring(keys.podset)))
        wrong.push(`the PodSet's entry has pttl ${await redis.pttl(keys.podset)}`);
      return wrong;
    });
    assert.equal((await projection.read('default/pc'))?.podset, undefined);
  } finally {
    redis.disconnect();
  }
  env.assertAllRunning();
});

test('Redis restarted empty: the projection is rebuilt from a relist, changes made meanwhile converge', async () => {
  await env.redis.restart({ hard: true });
  await scale('pa', 3);
  await apply([podSetManifest('pd', 2)]);
  await env.waitConverged(['pa', 'pb', 'pd'], { timeoutMs: 120_000 });
  const pa = activePodsOf(env.podSet('pa')!, env.pods());
  assert.equal(pa.length, 3, 'never more than asked');
  env.assertAllRunning();
});
