// The fallback end to end: STATE_SOURCE=api on the watcher and the workers (processes, the real kubectl).
// Each reconcile reads the PodSet and its pods from the API; PodSets converge, scale, replace a deleted pod
// and go, and the projection is not kept at all.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { activePodsOf } from './support/check.ts';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from './support/harness.ts';

let env: OperatorEnv;
const names = ['fa', 'fb'];

before(async () => {
  env = await startEnv({
    name: 'api-fallback',
    watcherEnv: { STATE_SOURCE: 'api' },
    workerEnv: { STATE_SOURCE: 'api' },
  });
  await applyCrd(env);
  env.startWatcher('watcher-0');
  env.startWorker('worker-0');
});
after(async () => {
  await env?.close();
});

test('STATE_SOURCE=api: PodSets converge, scale, heal and go, each reconcile reading the API', async () => {
  const since = new Date().toISOString();
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest(
      'ps.yaml',
      names.map((n) => podSetManifest(n, 2)),
    ),
  ]);
  await env.waitConverged(names);
  await env.kubectl(['scale', 'ps', 'fa', '--replicas=4']);
  const victim = activePodsOf(env.podSet('fb')!, env.pods())[0]!.metadata.name as string;
  await env.kubectl(['delete', 'pod', victim, '--wait=false']);
  await env.waitConverged(names);
  assert.equal(activePodsOf(env.podSet('fa')!, env.pods()).length, 4);
  const reads = env.sim.audit
    .query({ since, user: 'worker', namespace: 'default' })
    .filter(
      (e) => (e.verb === 'get' && e.resource === 'podsets') || (e.verb === 'list' && e.resource === 'pods'),
    );
  assert.ok(reads.length >= 2 * names.length, `the workers read the API: ${reads.length} GETs and LISTs`);
  await env.kubectl(['delete', 'ps', 'fb', '--timeout=60s']);
  await env.waitFor('fb and its pods gone', () =>
    env.podSet('fb') === undefined && env.pods().every((p) => !String(p.metadata.name).startsWith('fb-'))
      ? []
      : ['still there'],
  );
  const redis = new Redis(env.redis.url);
  try {
    const kept = await redis.keys(`${DEFAULT_PREFIX}:${DEFAULT_QUEUE_NAME}:proj:*`);
    assert.deepEqual(kept, [], 'no projection is kept in api mode');
  } finally {
    redis.disconnect();
  }
  env.assertAllRunning();
});
