// The fixtures as test files use them: the handle taken at module level works in the tests, the file's
// own after() hooks still find the servers up, and after the block everything is stopped.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { useRedis } from '../src/index.ts';
import { useSimCluster } from '../src/sim-cluster.ts';

const exited = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;

let redisProcess: ChildProcess | undefined;
let simUrl = '';
let simRedisProcess: ChildProcess | undefined;

describe('useRedis', () => {
  const redis = useRedis({ args: ['--maxmemory', '32mb'] });
  const client = redis.client;
  after(async () => {
    assert.equal(await client.ping(), 'PONG', "the file's own after() runs while the server is up");
  });

  test('the handle taken before the hooks ran is the started server and a client to it', async () => {
    assert.match(redis.url, new RegExp(`^redis://127\\.0\\.0\\.1:${redis.port}$`));
    await client.set('k', 'v');
    assert.equal(await redis.client.get('k'), 'v');
    assert.deepEqual(await client.config('GET', 'maxmemory'), ['maxmemory', String(32 * 1024 * 1024)]);
    redisProcess = redis.process;
    assert.equal(exited(redisProcess), false);
  });
});

test('useRedis stopped its server after its block', () => {
  assert.ok(redisProcess !== undefined);
  assert.equal(exited(redisProcess), true);
});

describe('useSimCluster', () => {
  const { sim, kube, redis, client } = useSimCluster({ sim: { controllers: false }, redis: true });

  test('serves PodSets through an unthrottled client, with a Redis beside it', async () => {
    const created = await kube.podSets.create('default', {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'app', image: 'busybox' }] } } },
    });
    assert.ok(created.metadata.uid);
    assert.equal((await kube.podSets.list('default')).items.length, 1);
    assert.equal(await client.ping(), 'PONG');
    simUrl = sim.url;
    simRedisProcess = redis.process;
  });
});

test('useSimCluster stopped kube-sim and its Redis after its block', async () => {
  assert.ok(simRedisProcess !== undefined);
  assert.equal(exited(simRedisProcess), true);
  await assert.rejects(fetch(`${simUrl}/version`), 'kube-sim no longer answers');
});

describe('a fixture used before its before() hook ran', () => {
  const redis = useRedis();
  assert.throws(() => redis.url, /the Redis fixture is used before its before\(\) hook ran/);
  test('names itself (checked while the block was declared)', () => {
    assert.ok(redis.port > 0);
  });
});
