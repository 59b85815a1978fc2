// converge's --redis-stats profile (bench/lib/redis-profile.ts) on a real Redis: the merge script's calls are
// told apart by mode, and the fold's line says how many events its calls carried.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReconcileQueue } from '@podset/queue';
import type { ProjectedPod } from '@podset/state';
import { useRedis } from '@podset/testkit';
import { watcherProjection } from '@podset/watcher/queue-cover';
import { describeProfile, profileRedis } from '../../bench/lib/redis-profile.ts';

const redis = useRedis();

function pod(name: string, rv: string): ProjectedPod {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv, labels: {} },
    status: { phase: 'Pending' },
  } as ProjectedPod;
}

test('merge calls are split by mode; fold-each reports its events per call', async () => {
  const prefix = '{p}';
  const queueName = 'q';
  const queue = new ReconcileQueue({ connection: redis.url, prefix, queueName });
  const writer = watcherProjection({
    client: redis.client,
    prefix,
    queueName,
    cover: true,
    statusCollapseMs: 0,
    eventLogKey: `${prefix}:events-log`,
  });
  // ioredis sends a script its connection has not run yet as EVAL: each connection runs the merge once first.
  await queue.request('ns/warm-up', { source: 'live' });
  const stop = await profileRedis(redis.url);
  try {
    // No job yet: the request mode answers absent, then the transaction's before-add and after-add.
    await queue.request('ns/web', { source: 'live' });
    // A pending job now: the request mode merges into it, alone.
    await queue.request('ns/web', { source: 'live' });
    // Two calls of the fold: 3 events, then 1.
    await writer.foldEach(
      [1, 2, 3].map((i) => ({
        key: 'ns/api',
        kind: 'pod',
        type: 'ADDED',
        object: pod(`a${i}`, `${i}`),
        epoch: 1,
      })),
    );
    await writer.foldEach([
      { key: 'ns/api', kind: 'pod', type: 'MODIFIED', object: pod('a1', '9'), epoch: 1 },
    ]);
  } finally {
    await queue.close();
  }
  const profile = await stop();
  const calls = new Map(profile.topLevel.map((c) => [c.name, c]));
  assert.equal(calls.get('evalsha merge request')?.calls, 2);
  assert.equal(calls.get('evalsha merge before-add')?.calls, 1);
  assert.equal(calls.get('evalsha merge after-add')?.calls, 1);
  const fold = calls.get('evalsha fold-each');
  assert.equal(fold?.calls, 2);
  assert.equal(fold.items, 4, 'the events of both calls');
  assert.match(
    describeProfile(profile, 1, 'pod', 20).join('\n'),
    /evalsha fold-each[^\n]*\n\s+2\.0 events\/call, /,
  );
});
