// Metrics and probes of the three processes, as they run: watcher (two replicas: one leader, one
// standby), worker and dashboard against kube-sim and a real Redis. A PodSet converges (through one
// injected API error, so retries and error codes show), then every /metrics is scraped and checked,
// then the API is paused and Redis stopped to see /readyz turn 503 while /healthz stays 200.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { freePort, waitFor } from '@podset/testkit';
import { applyCrd, podSetManifest, startEnv, type OperatorEnv } from '../e2e/support/harness.ts';
import {
  dashboardUrl,
  newToken,
  samples,
  scrape,
  startDashboardProc,
  statusOf,
  sum,
  type Sample,
} from './support.ts';

/** A prom-client histogram: cumulative buckets, +Inf = count, a sum, at least `min` observations. */
function assertHistogram(all: Sample[], name: string, min = 1): void {
  const buckets = samples(all, `${name}_bucket`).sort((a, b) => Number(a.labels.le) - Number(b.labels.le));
  assert.ok(buckets.length >= 3, `${name}: buckets exported`);
  for (let i = 1; i < buckets.length; i++) {
    assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, `${name}: buckets are cumulative`);
  }
  const count = sum(all, `${name}_count`);
  assert.equal(buckets.at(-1)!.labels.le, '+Inf');
  assert.equal(buckets.at(-1)!.value, count, `${name}: +Inf bucket = count`);
  assert.ok(count >= min, `${name}: at least ${min} observations, saw ${count}`);
  const total = sum(all, `${name}_sum`);
  assert.ok(Number.isFinite(total) && total >= 0, `${name}: a finite, non-negative sum (${total})`);
}

async function waitStatus(
  what: string,
  url: string,
  want: number,
  headers: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<void> {
  await waitFor(`${what}: ${want} from ${url}`, async () => (await statusOf(url, headers)) === want, {
    timeoutMs,
    intervalMs: 250,
  });
}

test('metrics and probes of watcher, worker and dashboard', { timeout: 300_000 }, async (t: TestContext) => {
  const env: OperatorEnv = await startEnv({ name: 'ops-metrics' });
  t.after(() => env.close());
  await applyCrd(env);
  const token = newToken();
  const auth = { authorization: `Bearer ${token}` };
  const [workerPort, watcherPort0, watcherPort1, dashProbePort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const watchers = [
    env.startWatcher('watcher-0', { HTTP_PORT: String(watcherPort0) }),
    env.startWatcher('watcher-1', { HTTP_PORT: String(watcherPort1) }),
  ];
  // A tight client-side rate limit so that requests wait in the limiter (and the metric shows it).
  env.startWorker('worker-0', { HTTP_PORT: String(workerPort), KUBE_QPS: '5', KUBE_BURST: '2' });
  const dash = startDashboardProc(env, 'dashboard', {
    DASHBOARD_TOKEN: token,
    HTTP_PORT: String(dashProbePort),
  });
  const dashUrl = await dashboardUrl(dash);
  const workerUrl = `http://127.0.0.1:${workerPort}`;
  const watcherUrls = [watcherPort0, watcherPort1].map((p) => `http://127.0.0.1:${p}`);
  const dashProbeUrl = `http://127.0.0.1:${dashProbePort}`;
  await waitStatus('worker /healthz', `${workerUrl}/healthz`, 200);

  // One failed pod create: the reconcile is retried (outcome retry) and the 500 is counted by code.
  env.sim.faults.set({ errors: [{ verb: 'create', resource: 'pods', code: 500, times: 1 }] });
  await env.kubectl(['apply', '-f', env.writeManifest('ps.yaml', [podSetManifest('metrics', 8)])]);
  await env.waitConverged(['metrics'], { timeoutMs: 120_000 });
  // Cut every watch once so the watcher restarts them (watch restarts by reason).
  await env.sim.restart();
  await waitFor('the leader to count the restarted watches', async () => {
    const counts = await Promise.all(
      watcherUrls.map(async (u) => sum(await scrape(`${u}/metrics`), 'podset_watch_restarts_total')),
    );
    return counts.some((n) => n >= 1);
  });

  await t.test(
    'worker: reconciles by result, durations, latency, API requests by verb and code, limiter wait',
    async () => {
      const m = await scrape(`${workerUrl}/metrics`);
      assert.ok(sum(m, 'podset_reconcile_total', { outcome: 'completed' }) >= 1, 'completed reconciles');
      assert.ok(
        sum(m, 'podset_reconcile_total', { outcome: 'retry' }) >= 1,
        'a reconcile retried after the 500',
      );
      assertHistogram(m, 'podset_reconcile_duration_seconds');
      assert.equal(
        sum(m, 'podset_reconcile_duration_seconds_count'),
        sum(m, 'podset_reconcile_total'),
        'one duration per reconcile',
      );
      assertHistogram(m, 'podset_reconcile_start_latency_seconds');
      assert.ok(
        sum(m, 'podset_kube_requests_total', { verb: 'create', resource: 'pods', code: '201' }) >= 8,
        'pods created',
      );
      assert.ok(
        sum(m, 'podset_kube_requests_total', { verb: 'create', resource: 'pods', code: '500' }) >= 1,
        'the 500',
      );
      // Planning from the projection, a reconcile reads nothing from the API: its writes are what shows.
      assert.ok(sum(m, 'podset_kube_requests_total', { verb: 'update', code: '200' }) >= 1, 'status writes');
      assert.ok(
        sum(m, 'podset_kube_rate_limiter_wait_seconds_total') > 0,
        'requests waited in the rate limiter',
      );
    },
  );

  await t.test(
    'dashboard: queue depth by state, collected on scrape; /metrics needs auth on the UI port',
    async () => {
      assert.equal(await statusOf(`${dashUrl}/metrics`), 401);
      // The overview reads the PodSet through the API (read-only identity): counted in its metrics.
      const overview = (await (await fetch(`${dashUrl}/api/overview`, { headers: auth })).json()) as {
        podSets: { key: string; desired: number; ready: number; lastReconcile?: { result: string } }[];
      };
      const row = overview.podSets.find((p) => p.key === 'default/metrics');
      assert.equal(row?.desired, 8);
      assert.equal(row?.ready, 8);
      assert.equal(row?.lastReconcile?.result, 'completed');
      const m = await scrape(`${dashUrl}/metrics`, auth);
      for (const state of ['active', 'waiting', 'prioritized', 'delayed', 'failed', 'completed']) {
        const s = samples(m, 'podset_queue_jobs', { state, queue: 'podset-reconcile' });
        assert.equal(s.length, 1, `podset_queue_jobs{state="${state}"}`);
        assert.ok(s[0]!.value >= 0);
      }
      assert.ok(sum(m, 'podset_queue_jobs', { state: 'completed' }) >= 1, 'completed jobs are counted');
      assert.equal(sum(m, 'podset_queue_jobs', { state: 'failed' }), 0, 'nothing failed for good');
      // The PodSet, read from the API at scrape time, is converged (8 of 8 Ready, as the overview says).
      assert.deepEqual(
        samples(m, 'podset_converged').map((s) => [s.labels.podset, s.value]),
        [['default/metrics', 1]],
      );
      // The same registry on the unauthenticated probe port (HTTP_PORT).
      const probe = await scrape(`${dashProbeUrl}/metrics`);
      assert.ok(samples(probe, 'podset_queue_jobs').length >= 6);
      assert.ok(sum(probe, 'podset_kube_requests_total', { verb: 'list', code: '200' }) >= 1);
    },
  );

  await t.test('watcher: leader and standby, watch events, restarts by reason, API requests', async () => {
    const [m0, m1] = await Promise.all(watcherUrls.map((u) => scrape(`${u}/metrics`)));
    const leaders = [m0!, m1!].map((m) => sum(m, 'podset_watcher_leader'));
    assert.deepEqual([...leaders].sort(), [0, 1], `exactly one leader, saw ${leaders}`);
    const leader = leaders[0] === 1 ? m0! : m1!;
    assert.ok(sum(leader, 'podset_watch_events_total', { resource: 'pods' }) >= 8, 'pod events');
    assert.ok(sum(leader, 'podset_watch_events_total', { resource: 'podsets' }) >= 1, 'PodSet events');
    // Every event counted by what it came to, once: the outcomes add up to the events (an event is counted
    // as received before it is admitted, so the two agree once the watcher has handled what it received).
    const leaderUrl = leaders[0] === 1 ? watcherUrls[0]! : watcherUrls[1]!;
    let outcomes = '';
    await waitFor('event outcomes add up to the events', async () => {
      const m = await scrape(`${leaderUrl}/metrics`);
      const events = ['ADDED', 'MODIFIED', 'DELETED'].reduce(
        (n, type) => n + sum(m, 'podset_watch_events_total', { type }),
        0,
      );
      outcomes = `${sum(m, 'podset_watch_event_outcomes_total')} outcomes, ${events} events`;
      return sum(m, 'podset_watch_event_outcomes_total') === events;
    }).catch((err: unknown) => assert.fail(`${String(err)}: ${outcomes}`));
    assert.ok(
      sum(leader, 'podset_watch_event_outcomes_total', { outcome: 'requested' }) >= 1,
      'live requests',
    );
    const restarts = samples(leader, 'podset_watch_restarts_total');
    assert.ok(
      restarts.every((s) => s.labels.reason !== undefined && s.labels.reason !== ''),
      'restarts carry a reason',
    );
    assert.ok(sum(leader, 'podset_watch_restarts_total') >= 1, 'the API restart restarted the watches');
    assert.ok(sum(leader, 'podset_kube_requests_total', { verb: 'watch' }) >= 2, 'watch requests');
    assert.ok(sum(leader, 'podset_kube_requests_total', { verb: 'list', code: '200' }) >= 1, 'initial lists');
    assert.ok(
      samples(leader, 'podset_kube_rate_limiter_wait_seconds_total').length === 1,
      'limiter wait exported',
    );
    // Both replicas are ready: leadership is not readiness.
    for (const u of watcherUrls) assert.equal(await statusOf(`${u}/readyz`), 200, `${u}/readyz`);
  });

  await t.test('everything is ready with Redis and the API up', async () => {
    assert.equal(await statusOf(`${dashUrl}/readyz`), 401, 'probes on the UI port need auth too');
    assert.equal(await statusOf(`${dashUrl}/readyz`, auth), 200);
    assert.equal(await statusOf(`${dashProbeUrl}/readyz`), 200);
    assert.equal(await statusOf(`${workerUrl}/readyz`), 200);
  });

  // The API away: not ready, still alive.
  await env.sim.pause();
  try {
    await t.test('API paused: dashboard not ready, alive', async () => {
      await waitStatus('dashboard /readyz', `${dashProbeUrl}/readyz`, 503);
      const body = await (await fetch(`${dashProbeUrl}/readyz`)).text();
      assert.match(body, /kubernetes: (?!ok)/);
      assert.match(body, /redis: ok/);
      assert.equal(await statusOf(`${dashProbeUrl}/healthz`), 200);
    });
    await t.test('API paused: worker not ready', async () => {
      await waitStatus('worker /readyz', `${workerUrl}/readyz`, 503, {}, 10_000);
      assert.equal(await statusOf(`${workerUrl}/healthz`), 200);
    });
    await t.test('API paused: watchers not ready', async () => {
      for (const u of watcherUrls) {
        await waitStatus('watcher /readyz', `${u}/readyz`, 503, {}, 10_000);
        assert.equal(await statusOf(`${u}/healthz`), 200);
      }
    });
  } finally {
    await env.sim.resume();
  }
  await waitStatus('dashboard /readyz after resume', `${dashProbeUrl}/readyz`, 200);

  // Redis away.
  await env.redis.stop();
  await t.test('Redis stopped: dashboard not ready, alive, metrics still answer', async () => {
    await waitStatus('dashboard /readyz', `${dashUrl}/readyz`, 503, auth);
    const body = await (await fetch(`${dashUrl}/readyz`, { headers: auth })).text();
    assert.match(body, /redis: (?!ok)/);
    assert.equal(await statusOf(`${dashUrl}/healthz`, auth), 200);
    const m = await scrape(`${dashProbeUrl}/metrics`);
    assert.equal(samples(m, 'podset_queue_jobs').length, 0, 'no stale queue depth without Redis');
    assert.equal(sum(m, 'podset_dashboard_dependency_up', { dependency: 'redis' }), 0);
  });
  await t.test('Redis stopped: worker not ready', async () => {
    await waitStatus('worker /readyz', `${workerUrl}/readyz`, 503, {}, 10_000);
  });
  await t.test('Redis stopped: watchers not ready', async () => {
    for (const u of watcherUrls) await waitStatus('watcher /readyz', `${u}/readyz`, 503, {}, 10_000);
  });
  await env.redis.restart();
  await waitStatus('dashboard /readyz after Redis restart', `${dashProbeUrl}/readyz`, 200, {}, 30_000);
  for (const w of watchers) assert.ok(w.running, `${w.name} still running`);
});
