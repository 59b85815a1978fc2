import assert from 'node:assert/strict';
import { test } from 'node:test';
import { watcherOps } from './ops.ts';
import { createWatcherMetrics, relistLabel, restartLabel } from './metrics.ts';
import { CHECKPOINT_REFUSED } from './watch-loop.ts';

test('readyz is 503 naming the failing dependency; healthz stays 200; metrics are served', async () => {
  const metrics = createWatcherMetrics();
  let redisUp = true;
  let apiUp = true;
  let leader = false;
  const server = await watcherOps({
    registry: metrics.registry,
    pingRedis: () => (redisUp ? Promise.resolve('PONG') : Promise.reject(new Error('ECONNREFUSED'))),
    listPodSets: () =>
      apiUp ? Promise.resolve({ items: [] }) : Promise.reject(new Error('404 podsets.podset.io not found')),
    isLeader: () => leader,
  }).listen({ port: 0, host: '127.0.0.1' });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(await ready.text(), 'ok\nredis: ok\nkubernetes: ok\nleader: false\n');
    // A standby is ready as the leader is; the line tells them apart.
    leader = true;
    assert.match(await (await fetch(`${url}/readyz`)).text(), /^leader: true$/m);
    redisUp = false;
    const notReady = await fetch(`${url}/readyz`);
    assert.equal(notReady.status, 503);
    assert.match(await notReady.text(), /^redis: ECONNREFUSED$/m);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    redisUp = true;
    // The CRD missing: the LIST's 404 makes the watcher not ready, naming it.
    apiUp = false;
    const noCrd = await fetch(`${url}/readyz/kubernetes`);
    assert.deepEqual([noCrd.status, await noCrd.text()], [503, '404 podsets.podset.io not found\n']);
    metrics.setLeader(true);
    metrics.hooks.restart?.('pods', 'closed');
    metrics.hooks.relisted?.('podsets', '410 Gone', 3);
    metrics.onEnqueued('bulk', 3);
    metrics.setQueueDepth('q', () => Promise.resolve({ prioritized: 4, active: 1 }));
    const text = await (await fetch(`${url}/metrics`)).text();
    assert.match(text, /^podset_watcher_leader 1$/m);
    assert.match(text, /^podset_watch_restarts_total\{resource="pods",reason="timeout"\} 1$/m);
    assert.match(text, /^podset_watch_relists_total\{resource="podsets",reason="gone"\} 1$/m);
    assert.match(text, /^podset_enqueued_total\{source="bulk"\} 3$/m);
    assert.match(text, /^podset_queue_jobs\{queue="q",state="prioritized"\} 4$/m);
    assert.equal((await fetch(`${url}/nope`)).status, 404);
  } finally {
    await server.close();
  }
});

test('restart and relist reasons map to the exported labels', () => {
  assert.equal(restartLabel('closed'), 'timeout');
  assert.equal(restartLabel('unreachable'), 'reset');
  assert.equal(restartLabel('server-error'), 'error');
  assert.equal(restartLabel('relist-requested'), 'data-loss');
  assert.equal(relistLabel('no checkpoint'), 'initial');
  assert.equal(relistLabel('410 Gone'), 'gone');
  assert.equal(relistLabel(CHECKPOINT_REFUSED), 'gone');
  assert.equal(relistLabel('redis lost its data'), 'data-loss');
});
