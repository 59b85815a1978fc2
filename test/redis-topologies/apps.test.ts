// The real apps (watcher and worker main.ts, as deployed) configured for Redis Cluster and then for
// Sentinel by environment only, against kube-sim: a PodSet applied with kubectl converges, and the
// queue's jobs are in the configured Redis (not in the single node the harness also runs).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEnv } from '@podset/config';
import { ReconcileQueue } from '@podset/queue';
import { redisConnector } from '@podset/redis';
import { Redis } from 'ioredis';
import { workerEnv } from '../../apps/worker/src/config.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from '../e2e/support/harness.ts';
import { startCluster, startSentinelSetup, type ClusterSetup, type SentinelSetup } from './support.ts';

let env: OperatorEnv;
let cluster: ClusterSetup;
let sentinel: SentinelSetup;
before(async () => {
  env = await startEnv({ name: 'redis-topologies' });
  [cluster, sentinel] = await Promise.all([startCluster(), startSentinelSetup()]);
  await applyCrd(env);
});
after(async () => {
  await env?.close();
  await cluster?.close();
  await sentinel?.close();
});

async function convergeWith(name: string, redisEnv: Record<string, string>): Promise<void> {
  const watcher = env.startWatcher(`watcher-${name}`, { ...redisEnv, LEASE_NAME: `podset-watcher-${name}` });
  const worker = env.startWorker(`worker-${name}`, redisEnv);
  try {
    await env.kubectl(['apply', '-f', env.writeManifest(`${name}.yaml`, [podSetManifest(name, 3)])]);
    await env.waitConverged([name], { timeoutMs: 60_000 });
    for (const p of [watcher, worker]) assert.ok(p.running, `${p.name} running\n${p.tail()}`);
    const connector = redisConnector(parseEnv(workerEnv, redisEnv));
    const queue = new ReconcileQueue({ connection: connector, prefix: redisEnv.QUEUE_PREFIX ?? 'podset' });
    try {
      assert.ok((await queue.queue.getCompletedCount()) >= 1, `reconciles recorded in ${connector.target}`);
    } finally {
      await queue.close();
    }
  } finally {
    await Promise.all([watcher.stop(5_000), worker.stop(5_000)]);
  }
  for (const p of [watcher, worker]) assert.equal((await p.exited).code, 0, `${p.name}\n${p.tail()}`);
}

test('watcher and worker on Redis Cluster (QUEUE_PREFIX={podset}), then on Sentinel', async () => {
  await convergeWith('on-cluster', {
    REDIS_CLUSTER_NODES: cluster.nodes.join(','),
    QUEUE_PREFIX: '{podset}',
  });
  await convergeWith('on-sentinel', {
    REDIS_SENTINELS: `127.0.0.1:${sentinel.sentinelPort}`,
    REDIS_SENTINEL_NAME: sentinel.masterName,
  });
  // The harness's own single node (REDIS_URL, still set) was not used.
  const single = new Redis(env.redis.url);
  try {
    assert.deepEqual(await single.keys('*podset*'), []);
  } finally {
    single.disconnect();
  }
});
