// The assembled worker on a real Redis: queue → controller wiring, malformed jobs, final failure,
// graceful close. The API is the in-memory fake (kube-sim tests are in controller.kube-sim.test.ts).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { DEFAULT_PREFIX, ReconcileQueue } from '@podset/queue';
import * as planner from '@podset/reconcile';
import { startRedis, useRedis, waitFor } from '@podset/testkit';
import { kubeConfigFor } from '@podset/kube';
import { silentLogger } from '@podset/log';
import { startWorker, type RunningWorker, type WorkerSettings } from '../src/worker.ts';
import { apiError, fakeKube, type FakeKube } from './fake-kube.ts';

const redis = useRedis();
const redisClient = redis.client;

let queueSeq = 0;
function settings(overrides: Partial<WorkerSettings> = {}): WorkerSettings {
  return {
    kubeConfig: kubeConfigFor(1, { name: 'u' }),
    redisUrl: redis.url,
    queueName: `worker-test-${++queueSeq}`,
    queuePrefix: DEFAULT_PREFIX,
    concurrency: 4,
    kubeQps: 0,
    kubeBurst: 10,
    createBurst: 8,
    requeuePendingMs: 60_000,
    maxAttempts: 3,
    finishedPodsToKeep: 3,
    shutdownTimeoutMs: 5_000,
    httpPort: -1,
    instance: 'test',
    backoff: { baseMs: 10, maxMs: 50 },
    ...overrides,
  };
}

async function withWorker(
  f: FakeKube,
  s: WorkerSettings,
  body: (w: RunningWorker, q: ReconcileQueue) => Promise<void>,
  checkApi: (signal: AbortSignal) => Promise<void> = async () => {},
): Promise<void> {
  const w = await startWorker(s, { planner, log: silentLogger, kube: f.kube, checkApi });
  const q = new ReconcileQueue({ connection: redis.url, queueName: s.queueName, attempts: s.maxAttempts });
  try {
    await body(w, q);
  } finally {
    await w.close();
    await q.close();
  }
}

test('a request reconciles the PodSet; /metrics and /readyz answer', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 3);
  const s = settings();
  await withWorker(f, s, async (w, q) => {
    await q.request('default/web', { source: 'live', reason: 'test' });
    await waitFor('3 pods', () => f.pods.size === 3);
    // The pods' watch events (the watcher's requests) bring the pass that counts them and writes status.
    await q.request('default/web', { source: 'live', reason: 'pods added' });
    await waitFor('status written', () => f.podsets.get('default/web')?.status?.replicas === 3);
    const ready = await fetch(`http://127.0.0.1:${w.httpPort}/readyz`);
    assert.equal(ready.status, 200);
    assert.match(await ready.text(), /redis: ok\nkubernetes: ok/);
    await waitFor('reconcile counted', async () =>
      /podset_reconcile_total\{outcome="completed"\} [1-9]/.test(await w.metrics.metrics()),
    );
    const text = await (await fetch(`http://127.0.0.1:${w.httpPort}/metrics`)).text();
    assert.match(text, /podset_reconcile_duration_seconds_count/);
  });
});

test('/readyz: 503 naming the dependency when the API or Redis does not answer; /healthz stays 200', async () => {
  const own = await startRedis();
  let apiUp = true;
  const checkApi = async () => {
    if (!apiUp) throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
  };
  try {
    await withWorker(
      fakeKube(),
      settings({ redisUrl: own.url }),
      async (w) => {
        const base = `http://127.0.0.1:${w.httpPort}`;
        const readyz = async () => {
          const r = await fetch(`${base}/readyz`);
          return { status: r.status, body: await r.text() };
        };
        assert.equal((await readyz()).status, 200);
        apiUp = false;
        let r = await readyz();
        await waitFor(
          'API failure seen (after the cached answer)',
          async () => (r = await readyz()).status === 503,
        );
        assert.match(r.body, /kubernetes: connect ECONNREFUSED/);
        assert.match(r.body, /redis: ok/);
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
        apiUp = true;
        await waitFor('ready again', async () => (await readyz()).status === 200);
        await own.stop();
        await waitFor('Redis failure seen', async () => (r = await readyz()).status === 503);
        assert.match(r.body, /redis: (?!ok)/);
        assert.match(r.body, /kubernetes: ok/);
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
        await own.restart();
        await waitFor('ready after Redis is back', async () => (await readyz()).status === 200, 30_000);
      },
      checkApi,
    );
  } finally {
    await own.close();
  }
});

test('/readyz: the default API check is a GET /version on the API server', async () => {
  const hits: string[] = [];
  const api = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0' }));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  const port = (api.address() as AddressInfo).port;
  const s = settings({ kubeConfig: kubeConfigFor(port, { name: 'u' }) });
  const w = await startWorker(s, { planner, log: silentLogger, kube: fakeKube().kube });
  try {
    const r = await fetch(`http://127.0.0.1:${w.httpPort}/readyz`);
    assert.equal(r.status, 200, await r.text());
    assert.ok(hits.includes('/version'), `requests: ${hits.join(', ')}`);
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
    await waitFor(
      'API gone seen',
      async () => (await fetch(`http://127.0.0.1:${w.httpPort}/readyz`)).status === 503,
    );
  } finally {
    await w.close();
    if (api.listening) await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});

test('a malformed job is failed with a clear reason and the worker goes on', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'ok', 1);
  const s = settings();
  await withWorker(f, s, async (w, q) => {
    const bad = await q.queue.add('junk', { v: 99, key: 'not a key' }, { attempts: 3 });
    await waitFor(
      'malformed job failed',
      async () => (await q.queue.getJob(bad.id!))?.failedReason !== undefined,
    );
    const job = await q.queue.getJob(bad.id!);
    assert.match(job?.failedReason ?? '', /malformed reconcile request/);
    assert.equal(job?.attemptsMade, 1, 'not retried');
    await q.request('default/ok', { source: 'live' });
    await waitFor('the next job still runs', () => f.pods.size === 1);
    assert.match(await w.metrics.metrics(), /podset_reconcile_malformed_jobs_total 1/);
  });
});

test('errors are retried with backoff; after the last attempt: ReplicaFailure + Warning event', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 5);
  f.fault = (c) =>
    c.verb === 'create' && c.resource === 'pods'
      ? apiError(403, 'Forbidden', 'exceeded quota: pods=0')
      : undefined;
  const s = settings({ maxAttempts: 3 });
  await withWorker(f, s, async (_w, q) => {
    await q.request('default/web', { source: 'live' });
    await waitFor('ReconcileFailed event', () => f.events.some((e) => e.reason === 'ReconcileFailed'));
    const creates = f.calls.filter((c) => c.verb === 'create' && c.resource === 'pods').length;
    assert.equal(creates, 3, 'one create per attempt (slow start), 3 attempts');
    const cond = f.podsets.get('default/web')!.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    assert.equal(cond?.status, 'True');
    assert.equal(cond?.reason, 'FailedCreate');
    assert.equal(cond?.message, '1 of 5 pod creates rejected: 403 Forbidden');
    const warn = f.events.find((e) => e.reason === 'ReconcileFailed');
    assert.equal(warn?.type, 'Warning');
    assert.match(warn?.message ?? '', /exceeded quota: pods=0/, "the API's message is in the Event");
  });
});

test("a deleted PodSet: the worker forgets its finished jobs and event-log entries, nobody else's", async () => {
  const f = fakeKube();
  f.addPodSet('default', 'web', 1);
  f.addPodSet('default', 'web-2', 1);
  const s = settings();
  const stream = `${s.queuePrefix}:${s.queueName}:watcher:events`; // the watcher's default
  await withWorker(f, s, async (_w, q) => {
    for (const key of ['default/web', 'default/web-2']) {
      await redisClient.xadd(stream, '*', 'type', 'ADDED', 'kind', 'PodSet', 'key', key);
    }
    for (const round of [1, 2]) {
      await q.request('default/web', { source: 'live' });
      await q.request('default/web-2', { source: 'live' });
      await waitFor(`round ${round} done`, async () => (await q.queue.getCompletedCount()) === 2 * round);
    }
    const ps = f.podsets.get('default/web')!;
    ps.metadata.deletionTimestamp = new Date().toISOString();
    f.bump(ps);
    const finalize = await q.request('default/web', { source: 'live' });
    await waitFor('the PodSet gone', () => !f.podsets.has('default/web'));
    await waitFor(
      'the finalizing job completed',
      async () => (await q.queue.getJobState(finalize.jobId)) === 'completed',
    );
    const names = (await q.queue.getCompleted()).map((j) =>
      j.id === finalize.jobId ? `${j.name} (finalize)` : j.name,
    );
    assert.deepEqual(
      names.sort(),
      ['default/web (finalize)', 'default/web-2', 'default/web-2'],
      'only the job that did the cleanup is left of default/web',
    );
    const left = (await redisClient.xrange(stream, '-', '+')).map(
      ([, flat]) => flat[flat.indexOf('key') + 1],
    );
    assert.deepEqual(left, ['default/web-2']);
  });
});

test('close() lets an active reconcile finish', async () => {
  const f = fakeKube();
  f.addPodSet('default', 'slow', 1);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  let entered = false;
  const origGet = f.kube.podSets.get.bind(f.kube.podSets);
  f.kube.podSets.get = async (ns, name) => {
    entered = true;
    await gate;
    return origGet(ns, name);
  };
  const s = settings();
  const w = await startWorker(s, { planner, log: silentLogger, kube: f.kube });
  const q = new ReconcileQueue({ connection: redis.url, queueName: s.queueName });
  try {
    await q.request('default/slow', { source: 'live' });
    await waitFor('reconcile started', () => entered);
    let closeResolved = false;
    const closed = w.close().then(() => void (closeResolved = true));
    await waitFor('close() to stop taking work', () => w.queueWorker.worker.isPaused());
    assert.equal(f.pods.size, 0, 'still inside the reconcile');
    assert.equal(closeResolved, false, 'close() waits for it');
    release();
    await closed;
    assert.equal(f.pods.size, 1, 'the active reconcile finished before close resolved');
  } finally {
    release();
    await w.close();
    await q.close();
  }
});
