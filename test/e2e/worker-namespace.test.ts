// A worker given WATCH_NAMESPACES (the namespaced install) never acts outside them, whatever Redis holds:
// a job forged in Redis for a PodSet of another namespace is logged with its key, counted, and ends
// unreconciled (not a single API request in that namespace), while a job of a watched namespace
// converges. Real worker process, real Redis, kube-sim; the jobs are put in the queue directly, as
// whoever holds a Redis password could.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { ReconcileQueue } from '@podset/queue';
import { freePort } from '@podset/testkit';
import { applyCrd, podSetManifest, startEnv } from './support/harness.ts';
import { scrape, sum } from '../ops/support.ts';

const WORKER_SA = 'worker';

test('a forged job for a namespace outside WATCH_NAMESPACES is refused; the watched one converges', async (t: TestContext) => {
  const env = await startEnv({ name: 'worker-namespace' });
  t.after(() => env.close());
  await applyCrd(env);
  for (const ns of ['team-a', 'team-b']) await env.kubectl(['create', 'namespace', ns]);
  await env.kubectl([
    'apply',
    '-f',
    env.writeManifest('podsets.yaml', [
      podSetManifest('real', 2, { namespace: 'team-a' }),
      podSetManifest('victim', 2, { namespace: 'team-b' }),
    ]),
  ]);
  const since = new Date().toISOString();
  const port = await freePort();
  const worker = env.startWorker('worker-ns', {
    WATCH_NAMESPACES: 'team-a',
    POD_NAMESPACE: 'podset-system',
    STATE_SOURCE: 'api',
    HTTP_PORT: String(port),
  });
  const queue = new ReconcileQueue({ connection: env.redis.url });
  t.after(() => queue.close());
  // The forged job first: the worker meets it before the real one.
  await queue.request('team-b/victim', { source: 'live', reason: 'forged' });
  await queue.request('team-a/real', { source: 'live' });

  await env.waitConverged(['real'], { namespace: 'team-a', timeoutMs: 60_000 });
  const metrics = `http://127.0.0.1:${port}/metrics`;
  await env.waitFor('the refused job to be counted', async () => {
    const n = sum(await scrape(metrics), 'podset_reconcile_foreign_namespace_total');
    return n === 1 ? [] : [`podset_reconcile_foreign_namespace_total = ${n}`];
  });
  await worker.waitForLine(/job refused: its key names a namespace outside WATCH_NAMESPACES/);
  const refused = worker.lines().find((l) => l.includes('job refused'));
  assert.match(refused ?? '', /"podset":"team-b\/victim"/, 'logged with its key');

  assert.deepEqual(env.pods('team-b'), [], 'no pod made in the other namespace');
  const elsewhere = env.sim.audit
    .query({ user: WORKER_SA, since })
    .filter((e) => e.namespace === 'team-b')
    .map((e) => `${e.verb} ${e.resource}`);
  assert.deepEqual(elsewhere, [], 'not one API request in team-b');
  assert.equal(worker.running, true, 'nothing crashed');
  assert.equal(await env.pendingJobs(), 0, 'the refused job ended, not retried');
});
