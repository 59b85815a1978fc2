// Redis Sentinel through configuration: REDIS_SENTINELS + REDIS_SENTINEL_NAME give a connector whose
// clients ask the sentinel for the primary. The queue's basics work through it, and after a failover
// the same queue and worker carry on against the new primary.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseEnv } from '@podset/config';
import { redisConnector, type RedisConnector } from '@podset/redis';
import { workerEnv } from '../../apps/worker/src/config.ts';
import { checkQueueBasics } from './queue-basics.ts';
import { waitFor } from '@podset/testkit';
import { startSentinelSetup, type SentinelSetup } from './support.ts';

let setup: SentinelSetup;
let connector: RedisConnector;
before(async () => {
  setup = await startSentinelSetup();
  // The worker's own env spec, as main.ts reads it.
  connector = redisConnector(
    parseEnv(workerEnv, {
      REDIS_SENTINELS: `127.0.0.1:${setup.sentinelPort}`,
      REDIS_SENTINEL_NAME: setup.masterName,
    }),
  );
});
after(async () => {
  await setup?.close();
});

test('Sentinel: requests collapse, a worker reconciles each key once; a failover is survived', async () => {
  assert.equal(connector.mode, 'sentinel');
  const { queue, worker, seen } = await checkQueueBasics(connector, {
    prefix: 'podset',
    queueName: 'sentinel-basics',
  });
  try {
    // The data went to the primary the sentinel named.
    const probe = connector.client();
    try {
      assert.match(await probe.info('server'), new RegExp(`tcp_port:${setup.primaryPort}\\b`));
    } finally {
      probe.disconnect();
    }

    const newPrimary = await setup.failover();
    assert.equal(newPrimary, setup.replicaPort);
    // Same queue, same worker: their clients reconnect through the sentinel to the new primary.
    await waitFor(
      'a request accepted by the new primary',
      async () => (await queue.request('default/after-failover', { source: 'live' })).jobId,
      30_000,
    );
    await waitFor(
      'the request reconciled after the failover',
      async () => (seen.some((r) => r.key === 'default/after-failover') ? true : undefined),
      30_000,
    );
    const probeAfter = connector.client();
    try {
      assert.match(await probeAfter.info('server'), new RegExp(`tcp_port:${setup.replicaPort}\\b`));
    } finally {
      probeAfter.disconnect();
    }
  } finally {
    await worker.close();
    await queue.close();
  }
});
