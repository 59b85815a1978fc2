// The dashboard against a real Redis (queue and event log) and a stand-in for the API: read-only
// enforcement, retry when writes are allowed, the login cookie (with a cross-site check on writes),
// and the overview's last reconcile and last error read from BullMQ's failed job.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Kube, PodSetWire } from '@podset/kube';
import { ReconcileQueue, startReconcileWorker } from '@podset/queue';
import { startRedis, type RedisServer } from '@podset/testkit';
import { pino } from 'pino';
import { startDashboard, type RunningDashboard } from '../src/server.ts';

const TOKEN = 'test-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };
const podSet: PodSetWire = {
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  metadata: { name: 'web', namespace: 'default', generation: 2 },
  spec: { replicas: 3 },
  status: { replicas: 2, readyReplicas: 1, observedGeneration: 2 },
};
const fakeKube = {
  client: { server: 'fake' },
  podSets: {
    list: () => Promise.resolve({ items: [podSet], metadata: {} }),
    listAll: () => Promise.resolve({ items: [podSet], metadata: {} }),
  },
} as unknown as Kube;

let redis: RedisServer;
let failedJobId: string;
const dashboards: RunningDashboard[] = [];

async function dashboard(readOnly: boolean): Promise<RunningDashboard> {
  const d = await startDashboard(
    {
      kubeConfig: {} as KubeConfig,
      redisUrl: redis.url,
      queueName: 'podset-reconcile',
      queuePrefix: 'podset',
      eventLogKeys: ['podset:podset-reconcile:watcher:events'],
      port: 0,
      host: '127.0.0.1',
      credentials: { token: TOKEN },
      readOnly,
      secureCookie: false,
      eventsPerPodSet: 5,
      eventLogScan: 100,
      jobScan: 100,
      httpPort: 0,
      kubeQps: 5,
      kubeBurst: 10,
    },
    { log: pino({ level: 'silent' }), kube: fakeKube },
  );
  dashboards.push(d);
  return d;
}

before(async () => {
  redis = await startRedis();
  // One reconcile of default/web that fails for good (a single attempt).
  const queue = new ReconcileQueue({ connection: redis.url, attempts: 1 });
  const worker = startReconcileWorker({
    connection: redis.url,
    concurrency: 1,
    attempts: 1,
    handler: () => Promise.reject(new Error('pods "web-x" is forbidden: exceeded quota')),
  });
  try {
    const r = await queue.request('default/web', { source: 'live', reason: 'test' });
    failedJobId = r.jobId;
    for (let i = 0; (await queue.queue.getJobCounts('failed')).failed !== 1; i++) {
      assert.ok(i < 400, 'the job failed');
      await new Promise((res) => setTimeout(res, 25));
    }
  } finally {
    await worker.close();
    await queue.close();
  }
});

after(async () => {
  for (const d of dashboards) await d.close();
  await redis?.close();
});

async function jobState(): Promise<string> {
  const queue = new ReconcileQueue({ connection: redis.url });
  try {
    return await queue.queue.getJobState(failedJobId);
  } finally {
    await queue.close();
  }
}

test('overview: desired/current/ready from the API, last reconcile and last error from the failed job', async () => {
  const d = await dashboard(true);
  const res = await fetch(`${d.url}/api/overview`, { headers: bearer });
  assert.equal(res.status, 200);
  const o = (await res.json()) as {
    podSets: {
      key: string;
      desired: number;
      current: number;
      ready: number;
      lastReconcile?: { result: string; jobId: string; durationMs?: number };
      lastError?: { message: string };
      job?: { id: string; state: string };
    }[];
    counts: Record<string, number>;
    errors: string[];
  };
  assert.deepEqual(o.errors, []);
  const row = o.podSets[0]!;
  assert.equal(row.key, 'default/web');
  assert.deepEqual([row.desired, row.current, row.ready], [3, 2, 1]);
  assert.equal(row.lastReconcile?.result, 'failed');
  assert.equal(row.lastReconcile?.jobId, failedJobId);
  assert.ok((row.lastReconcile?.durationMs ?? -1) >= 0);
  assert.match(row.lastError?.message ?? '', /exceeded quota/);
  assert.deepEqual(row.job, { id: failedJobId, state: 'failed' });
  assert.equal(o.counts.failed, 1);
  const html = await (await fetch(`${d.url}/`, { headers: bearer })).text();
  assert.match(html, /exceeded quota/);
  assert.ok(html.includes(`/queues/queue/podset-reconcile/${encodeURIComponent(failedJobId)}`), 'job link');
});

test('read-only: retry is refused, the failed job stays failed', async () => {
  const d = await dashboard(true);
  const url = `${d.url}/queues/api/queues/podset-reconcile/${encodeURIComponent(failedJobId)}/retry`;
  const res = await fetch(url, { method: 'PUT', headers: bearer });
  assert.equal(res.status, 403);
  assert.equal(await jobState(), 'failed');
  // bull-board's own API reports the queue read-only to its UI.
  const queues = (await (await fetch(`${d.url}/queues/api/queues`, { headers: bearer })).json()) as {
    queues: { name: string; readOnlyMode: boolean; allowRetries: boolean }[];
  };
  assert.deepEqual(
    queues.queues.map((q) => [q.name, q.readOnlyMode, q.allowRetries]),
    [['podset-reconcile', true, false]],
  );
});

test('login cookie: wrong token 401, right token sets it; writes need the same origin; logout ends it', async () => {
  const d = await dashboard(false);
  const form = (token: string) =>
    fetch(`${d.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, next: '/queues' }),
    });
  const wrong = await form('not-the-token');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.headers.get('set-cookie'), null);
  const right = await form(TOKEN);
  assert.equal(right.status, 303);
  assert.equal(right.headers.get('location'), '/queues');
  const setCookie = right.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.ok(!setCookie.includes(TOKEN), 'the cookie does not carry the token');
  const cookie = setCookie.split(';')[0]!;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie } })).status, 200);

  const retryUrl = `${d.url}/queues/api/queues/podset-reconcile/${encodeURIComponent(failedJobId)}/retry`;
  const crossSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { cookie, origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  assert.equal(await jobState(), 'failed');
  // Writes allowed (DASHBOARD_READ_ONLY=false), from our own origin: the retry goes through.
  const own = await fetch(retryUrl, { method: 'PUT', headers: { cookie, origin: d.url } });
  assert.ok(own.status >= 200 && own.status < 300, `retry: ${own.status} ${await own.text()}`);
  assert.ok(['waiting', 'prioritized'].includes(await jobState()), 'the job is queued again');

  const logout = await fetch(`${d.url}/logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, origin: d.url },
  });
  assert.equal(logout.status, 303);
  assert.match(logout.headers.get('set-cookie') ?? '', /Max-Age=0/);
});
