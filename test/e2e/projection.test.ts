// The projection end to end, as the apps start without any setting: the watcher and two workers as
// processes, the real kubectl. PodSets converge, scale both ways, replace a deleted pod and clean up on
// deletion, reading the projection instead of the API; a Redis restarted empty is rebuilt from a relist
// before workers trust it again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { ProjectionReader } from '@podset/state';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
const names = ['pa', 'pb', 'pc'];
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
  env.startWorker('worker-0');
  env.startWorker('worker-1');
});
after(async () => {
  await env?.close();
});

const apply = (objects: unknown[]) => env.kubectl(['apply', '-f', env.writeManifest('ps.yaml', objects)]);
const scale = (name: string, n: number) => env.kubectl(['scale', 'ps', name, `--replicas=${n}`]);

test('PodSets converge, scale, heal and go, with no reads of the API once the projection is ready', async () => {
  await apply(names.map((n, i) => podSetManifest(n, 2 + i)));
  await env.waitConverged(names);
  const since = new Date().toISOString();
  await scale('pa', 5);
  await scale('pc', 1);
  const victim = activePodsOf(env.podSet('pb')!, env.pods())[0]!.metadata.name as string;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitConverged(names);
  assert.ok(!activePodsOf(env.podSet('pb')!, env.pods()).some((p) => p.metadata.name === victim));
  // A pod released from its PodSet (its controller reference removed, as one does to debug it) is replaced:
  // its event reaches the PodSet through its label, and the projection stops counting it.
  const released = activePodsOf(env.podSet('pa')!, env.pods())[0]!.metadata.name as string;
  await env.kubectl([
    'patch',
    'pod',
    released,
    '--type=json',
    '-p',
    '[{"op":"remove","path":"/metadata/ownerReferences"}]',
  ]);
  await env.waitConverged(names);
  assert.ok(!activePodsOf(env.podSet('pa')!, env.pods()).some((p) => p.metadata.name === released));
  assert.equal(activePodsOf(env.podSet('pa')!, env.pods()).length, 5);
  assert.ok(
    env.pods().some((p) => p.metadata.name === released),
    'the released pod itself is left alone',
  );
  assert.deepEqual(
    reads(since).map((e) => `${e.verb} ${e.resource}`),
    [],
    'the workers read the projection, not the API',
  );
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
