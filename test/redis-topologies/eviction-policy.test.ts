// The apps' start-up check of maxmemory-policy on Sentinel and Cluster: every Cluster node (a replica
// may become the one written to) and the Sentinel's primary are asked; one node set to evict is named.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEnv } from '@podset/config';
import { redisConnector } from '@podset/redis';
import { checkEvictionPolicy } from '@podset/redis';
import { workerEnv } from '../../apps/worker/src/config.ts';
import {
  command,
  startCluster,
  startSentinelSetup,
  type ClusterSetup,
  type SentinelSetup,
} from './support.ts';

let cluster: ClusterSetup;
let sentinel: SentinelSetup;
before(async () => {
  [cluster, sentinel] = await Promise.all([startCluster(), startSentinelSetup()]);
});
after(async () => {
  await cluster?.close();
  await sentinel?.close();
});

test('Cluster: every node is checked; one node set to allkeys-lru is named', async () => {
  const connector = redisConnector(
    parseEnv(workerEnv, { REDIS_CLUSTER_NODES: cluster.nodes.join(','), QUEUE_PREFIX: '{podset}' }),
  );
  const ok = await checkEvictionPolicy(connector);
  assert.ok(ok?.ok, JSON.stringify(ok));
  assert.deepEqual([...ok.nodes].sort(), [...cluster.nodes].sort());

  const last = cluster.ports.at(-1) as number;
  await command(last, 'CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
  try {
    const refused = await checkEvictionPolicy(connector);
    assert.ok(refused !== undefined && !refused.ok);
    assert.match(refused.message, new RegExp(`127\\.0\\.0\\.1:${last} has maxmemory-policy allkeys-lru`));
  } finally {
    await command(last, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
  }
});

test('Sentinel: the primary the sentinels name is checked', async () => {
  const connector = redisConnector(
    parseEnv(workerEnv, {
      REDIS_SENTINELS: `127.0.0.1:${sentinel.sentinelPort}`,
      REDIS_SENTINEL_NAME: sentinel.masterName,
    }),
  );
  assert.equal((await checkEvictionPolicy(connector))?.ok, true);
  const primary = await sentinel.currentPrimaryPort();
  await command(primary, 'CONFIG', 'SET', 'maxmemory-policy', 'volatile-lru');
  try {
    const refused = await checkEvictionPolicy(connector);
    assert.ok(refused !== undefined && !refused.ok);
    assert.match(
      refused.message,
      new RegExp(
        `sentinel podset-primary@.* \\(primary 127\\.0\\.0\\.1:${primary}\\) has maxmemory-policy volatile-lru`,
      ),
    );
  } finally {
    await command(primary, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
  }
});
