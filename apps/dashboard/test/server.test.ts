// The dashboard against a real Redis (queue and event log) and a stand-in for the API: read-only
// enforcement, retry when writes are allowed, the login cookie (with a cross-site check on writes),
// the overview's last reconcile and last error read from BullMQ's failed job, its filter and the
// leading watcher, and the PodSet page (and its answers to bad names and unknown PodSets).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  KubeApiError,
  type CoreEvent,
  type Kube,
  type Lease,
  type ListOptions,
  type Pod,
  type PodSet,
} from '@podset/kube';
import { EventLog } from '@podset/event-log';
import { ReconcileQueue, startReconcileWorker } from '@podset/queue';
import { urlConnector } from '@podset/redis';
import { useRedis } from '@podset/testkit';
import { pino } from 'pino';
import type { Credentials } from '../src/config.ts';
import { BOARD_CSP, PAGE_CSP } from '../src/security-headers.ts';
import { COOKIE_NAME, nowSeconds, sessionValue } from '../src/auth.ts';
import { startDashboard, type RunningDashboard } from '../src/server.ts';

const TOKEN = 'test-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}` };
const podSet: PodSet = {
  apiVersion: 'podset.io/v1',
  kind: 'PodSet',
  metadata: { name: 'web', namespace: 'default', generation: 2, uid: 'uid-web' },
  spec: { replicas: 3 },
  status: {
    replicas: 2,
    readyReplicas: 1,
    observedGeneration: 2,
    conditions: [
      {
        type: 'ReplicaFailure',
        status: 'True',
        reason: 'FailedCreate',
        message: 'exceeded quota',
        lastTransitionTime: new Date().toISOString(),
      },
    ],
  },
};
const other: PodSet = {
  ...podSet,
  metadata: { name: 'api', namespace: 'shop', generation: 1 },
  status: { replicas: 2, readyReplicas: 1, observedGeneration: 1 },
};
const warning: CoreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'default' },
  involvedObject: { kind: 'PodSet', name: 'web', namespace: 'default', uid: 'uid-web' },
  type: 'Warning',
  reason: 'FailedCreate',
  message: 'pods "web-x" is forbidden: exceeded quota <b>',
  count: 2,
  lastTimestamp: new Date().toISOString(),
};
/** web's own pod, and one that carries its label without being its own (released to debug it). */
const webPods: Pod[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-abc12',
      namespace: 'default',
      labels: { 'podset.io/name': 'web', 'podset.io/template-hash': 'h1' },
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'uid-web', controller: true },
      ],
    },
    spec: { nodeName: 'node-7' },
    status: { phase: 'Pending' },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-debug', namespace: 'default', labels: { 'podset.io/name': 'web' } },
    status: { phase: 'Running' },
  },
];
const eventQueries: { namespace: string | undefined; fieldSelector: string | undefined }[] = [];
const notFound = (path: string) =>
  new KubeApiError({ code: 404, reason: 'NotFound', message: 'not found', verb: 'get', path });
const fakeKube = {
  client: { server: 'fake' },
  podSets: {
    list: () => Promise.resolve({ items: [podSet, other], metadata: {} }),
    listAll: () => Promise.resolve({ items: [podSet, other], metadata: {} }),
    get: (ns: string, name: string) =>
      ns === 'default' && name === 'web'
        ? Promise.resolve(podSet)
        : Promise.reject(notFound(`${ns}/${name}`)),
  },
  pods: {
    listAll: (namespace: string | undefined, opts: ListOptions) =>
      Promise.resolve({
        items: namespace === 'default' && opts.labelSelector === 'podset.io/name=web' ? webPods : [],
        metadata: {},
      }),
  },
  events: {
    list: (namespace: string | undefined, opts: ListOptions) => {
      eventQueries.push({ namespace, fieldSelector: opts.fieldSelector });
      return Promise.resolve({ items: namespace === 'default' ? [warning] : [], metadata: {} });
    },
  },
  leases: {
    get: (ns: string, name: string): Promise<Lease> =>
      ns === 'podset-system' && name === 'podset-watcher'
        ? Promise.resolve({
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace: ns },
            spec: {
              holderIdentity: 'watcher-7',
              leaseDurationSeconds: 3600,
              renewTime: new Date().toISOString(),
              leaseTransitions: 2,
            },
          })
        : Promise.reject(notFound(`${ns}/${name}`)),
  },
} as unknown as Kube;

const redis = useRedis();
let failedJobId: string;
const dashboards: RunningDashboard[] = [];

async function dashboard(
  readOnly: boolean,
  credentials: Credentials = { token: TOKEN },
  session: { secureCookie: boolean; sessionMaxAgeSeconds: number } = {
    secureCookie: false,
    sessionMaxAgeSeconds: 3600,
  },
): Promise<RunningDashboard> {
  const d = await startDashboard(
    {
      kubeConfig: {} as KubeConfig,
      redisUrl: redis.url,
      queueName: 'podset-reconcile',
      queuePrefix: 'podset',
      eventLogKeys: ['podset:podset-reconcile:watcher:events'],
      port: 0,
      host: '127.0.0.1',
      credentials,
      readOnly,
      ...session,
      eventsPerPodSet: 5,
      eventLogScan: 100,
      jobScan: 100,
      lease: { namespace: 'podset-system', name: 'podset-watcher' },
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
  await redis.ready;
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
  // The watcher's record of the PodSet's pod, in the event log the dashboard reads.
  const client = urlConnector(redis.url).client();
  try {
    const log = new EventLog({ redis: client, key: 'podset:podset-reconcile:watcher:events' });
    await log.append({
      t: new Date().toISOString(),
      type: 'ADDED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-abc12',
      rv: '17',
      phase: 'Pending',
    });
    // Filed under web's key by their label, but not web's own pods: one its generateName could not
    // have named, one the pod list shows it does not control.
    await log.append({
      t: new Date().toISOString(),
      type: 'ADDED',
      kind: 'Pod',
      key: 'default/web',
      name: 'hand-made',
      rv: '16',
    });
    await log.append({
      t: new Date().toISOString(),
      type: 'MODIFIED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-debug',
      rv: '19',
      phase: 'Running',
    });
    // Entries that name the pod's controlling PodSet (owner): that decides, whatever the name. A stray
    // pod named like web's own, deleted (so no pod list shows it), and a pod of an earlier PodSet web.
    await log.append({
      t: new Date().toISOString(),
      type: 'DELETED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-xyz',
      rv: '20',
      owner: '',
    });
    await log.append({
      t: new Date().toISOString(),
      type: 'MODIFIED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-old11',
      rv: '21',
      owner: 'uid-web-earlier',
    });
    await log.append({
      t: new Date().toISOString(),
      type: 'MODIFIED',
      kind: 'Pod',
      key: 'default/web',
      name: 'web-abc12',
      rv: '22',
      phase: 'Running',
      owner: 'uid-web',
    });
    await log.append({
      t: new Date().toISOString(),
      type: 'ADDED',
      kind: 'Pod',
      key: 'shop/api',
      name: 'api-zz',
      rv: '18',
    });
  } finally {
    client.disconnect();
  }
});

after(async () => {
  for (const d of dashboards) await d.close();
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
      events: { name: string }[];
    }[];
    counts: Record<string, number>;
    errors: string[];
  };
  assert.deepEqual(o.errors, []);
  const row = o.podSets[0]!;
  assert.equal(row.key, 'default/web');
  assert.ok(
    !row.events.some((e) => e.name === 'hand-made'),
    `a pod its generateName could not have named is not its own: ${JSON.stringify(row.events)}`,
  );
  assert.ok(
    row.events.some((e) => e.name === 'web-abc12'),
    'its own pod is',
  );
  assert.ok(
    !row.events.some((e) => e.name === 'web-xyz' || e.name === 'web-old11'),
    `nor a deleted stray pod nor an earlier namesake's pod: ${JSON.stringify(row.events)}`,
  );
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

const html = { ...bearer, accept: 'text/html' };

test('the PodSet page: conditions, its Warning Event, its failed reconcile and its watch event', async () => {
  const d = await dashboard(true);
  const res = await fetch(`${d.url}/podsets/default/web`, { headers: html });
  assert.equal(res.status, 200);
  const page = await res.text();
  assert.match(page, /data-condition="ReplicaFailure"/);
  assert.match(page, /<section id="warnings">.*FailedCreate.*exceeded quota &lt;b&gt;/s);
  assert.ok(page.includes(`data-job="${failedJobId}"`), 'the failed job is listed');
  assert.match(page, /<section id="events">.*ADDED · Pod web-abc12 · Pending/s);
  assert.doesNotMatch(page, /api-zz/, "another PodSet's watch events are not shown");
  assert.doesNotMatch(page, /web-debug|hand-made/, 'nor those of pods that only carry its label');
  assert.doesNotMatch(page, /web-xyz/, 'nor that of a deleted stray pod named like its own');
  assert.doesNotMatch(page, /web-old11/, 'nor that of a pod an earlier PodSet of its name controlled');
  assert.match(page, /MODIFIED · Pod web-abc12 · Running/, 'its own pod, by the recorded owner');
  assert.match(page, /<section id="pods"><h2>Pods \(1\)<\/h2>.*data-pod="web-abc12".*Pending.*node-7.*h1/s);
  // Only this PodSet's Warning Events are asked for.
  assert.deepEqual(eventQueries.at(-1), {
    namespace: 'default',
    fieldSelector: 'involvedObject.kind=PodSet,involvedObject.name=web,type=Warning',
  });

  const api = await fetch(`${d.url}/api/podsets/default/web`, { headers: bearer });
  const detail = (await api.json()) as {
    podSet: { key: string; lastReconcile?: { result: string } };
    jobs: { id: string; state: string; attempts: number; failedReason?: string; source?: string }[];
    warnings: { reason: string; count: number }[];
    events: { name: string; rv: string }[];
    pods: { name: string; phase: string; node?: string }[];
    errors: string[];
  };
  assert.deepEqual(detail.errors, []);
  assert.equal(detail.podSet.lastReconcile?.result, 'failed');
  assert.deepEqual(
    detail.jobs.map((j) => [j.id, j.state, j.attempts, j.source]),
    [[failedJobId, 'failed', 1, 'live']],
  );
  assert.match(detail.jobs[0]!.failedReason ?? '', /exceeded quota/);
  assert.deepEqual(
    detail.warnings.map((w) => [w.reason, w.count]),
    [['FailedCreate', 2]],
  );
  assert.deepEqual(
    detail.events.map((e) => [e.name, e.rv]),
    [
      ['web-abc12', '22'],
      ['web-abc12', '17'],
    ],
  );
  assert.deepEqual(detail.pods, [
    { name: 'web-abc12', phase: 'Pending', ready: false, node: 'node-7', templateHash: 'h1' },
  ]);
});

test('bad input: a bad name is a 400, an unknown PodSet or route a 404 page, no credentials a 401', async () => {
  const d = await dashboard(true);
  for (const path of [
    '/podsets/Default/web',
    '/podsets/default/web_1',
    '/podsets/default/%3Cscript%3E',
    `/podsets/${'a'.repeat(64)}/web`,
  ]) {
    const res = await fetch(d.url + path, { headers: html });
    assert.equal(res.status, 400, path);
    const body = await res.text();
    assert.match(body, /Bad PodSet name/, path);
    assert.ok(!body.includes('<script>'), `${path}: escaped`);
  }
  assert.equal((await fetch(`${d.url}/api/podsets/default/web_1`, { headers: bearer })).status, 400);
  const missing = await fetch(`${d.url}/podsets/default/nope`, { headers: html });
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /data-role="not-found">No PodSet default\/nope in the API\./);
  assert.equal((await fetch(`${d.url}/api/podsets/default/nope`, { headers: bearer })).status, 404);
  const nowhere = await fetch(`${d.url}/podsets/default`, { headers: html });
  assert.equal(nowhere.status, 404);
  assert.match(await nowhere.text(), /Back to the PodSet overview/);
  assert.equal(
    (await fetch(`${d.url}/podsets/default/web`, { headers: { accept: 'text/html' } })).status,
    401,
  );
  assert.equal((await fetch(`${d.url}/api/podsets/default/web`)).status, 401);
});

test('the overview: the leading watcher, and the filter over namespace, name and status', async () => {
  const d = await dashboard(true);
  const overview = async (query: string) => {
    const res = await fetch(`${d.url}/${query}`, { headers: html });
    const body = await res.text();
    return { status: res.status, body, keys: [...body.matchAll(/<tr data-key="([^"]+)"/g)].map((m) => m[1]) };
  };
  const all = await overview('');
  assert.deepEqual(all.keys, ['default/web', 'shop/api']);
  assert.match(all.body, /data-state="leading">Watcher leader: <b data-role="leader-holder">watcher-7<\/b>/);
  assert.match(all.body, /href="\/podsets\/default\/web"/, 'each PodSet links to its page');
  assert.deepEqual((await overview('?q=web')).keys, ['default/web']);
  assert.deepEqual((await overview('?namespace=shop')).keys, ['shop/api']);
  assert.deepEqual((await overview('?status=failing')).keys, ['default/web']);
  assert.deepEqual((await overview('?q=nothing')).keys, []);
  const bad = await overview('?status=%3Cb%3E');
  assert.equal(bad.status, 400);
  assert.match(bad.body, /Bad filter: status: one of/);
  const json = (await (await fetch(`${d.url}/api/overview?q=api`, { headers: bearer })).json()) as {
    podSets: { key: string }[];
    leader: { holder: string; state: string };
  };
  assert.deepEqual(
    json.podSets.map((p) => p.key),
    ['shop/api'],
  );
  assert.deepEqual([json.leader.holder, json.leader.state], ['watcher-7', 'leading']);
});

test("bull-board's pages link back to the overview; its API is left as it is", async () => {
  const d = await dashboard(true);
  for (const path of ['/queues', '/queues/queue/podset-reconcile']) {
    const res = await fetch(d.url + path, { headers: html });
    assert.equal(res.status, 200, path);
    const body = await res.text();
    assert.match(body, /<a href="\/" id="podset-overview-link"[^>]*>← PodSet overview<\/a><\/body>/, path);
    assert.equal(body.split('id="podset-overview-link"').length, 2, `${path}: one link`);
  }
  const api = await fetch(`${d.url}/queues/api/queues`, { headers: bearer });
  assert.match(api.headers.get('content-type') ?? '', /json/);
  assert.ok(Array.isArray(((await api.json()) as { queues: unknown[] }).queues));
});

test('every response, the login page and errors included: CSP, no framing, no cross-site referrer', async () => {
  const d = await dashboard(true);
  const checks: [string, Record<string, string>, number, string][] = [
    ['/', { accept: 'text/html' }, 401, PAGE_CSP],
    ['/', html, 200, PAGE_CSP],
    ['/podsets/default/web', html, 200, PAGE_CSP],
    ['/nope', html, 404, PAGE_CSP],
    ['/api/overview', bearer, 200, PAGE_CSP],
    ['/metrics', bearer, 200, PAGE_CSP],
    ['/queues', html, 200, BOARD_CSP],
    ['/queues', {}, 401, BOARD_CSP],
    ['/queues/api/queues', bearer, 200, BOARD_CSP],
  ];
  for (const [path, headers, status, csp] of checks) {
    const res = await fetch(d.url + path, { headers, redirect: 'manual' });
    await res.arrayBuffer();
    assert.equal(res.status, status, path);
    assert.equal(res.headers.get('content-security-policy'), csp, `${path}: CSP`);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', `${path}: X-Frame-Options`);
    assert.equal(res.headers.get('referrer-policy'), 'same-origin', `${path}: Referrer-Policy`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${path}: nosniff`);
  }
  const failedLogin = await fetch(`${d.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: 'wrong' }),
  });
  assert.equal(failedLogin.status, 401);
  assert.match(failedLogin.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  assert.match(PAGE_CSP, /default-src 'none'/, 'our pages run no script');
  // bull-board's page keeps its own scripts and drops the web fonts from another site.
  const board = await (await fetch(`${d.url}/queues`, { headers: html })).text();
  assert.match(board, /<script defer src="static\/js\//);
  assert.doesNotMatch(board, /fonts\.googleapis\.com/);
});

test('writes with Basic auth need the same origin too (a browser sends cached Basic credentials cross-site)', async () => {
  const d = await dashboard(false, { basic: { user: 'ops', password: 'a long enough password' } });
  const authorization = `Basic ${Buffer.from('ops:a long enough password').toString('base64')}`;
  const retryUrl = `${d.url}/queues/api/queues/podset-reconcile/${encodeURIComponent(failedJobId)}/retry`;
  const crossSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { authorization, origin: 'https://evil.example' },
  });
  assert.equal(crossSite.status, 403);
  assert.match(await crossSite.text(), /cross-site/);
  const fetchSite = await fetch(retryUrl, {
    method: 'PUT',
    headers: { authorization, 'sec-fetch-site': 'cross-site' },
  });
  assert.equal(fetchSite.status, 403);
  // A sandboxed frame sends the opaque origin "null": refused as cross-site, not an error.
  const opaque = await fetch(retryUrl, { method: 'PUT', headers: { authorization, origin: 'null' } });
  assert.equal(opaque.status, 403);
  assert.match(await opaque.text(), /cross-site/);
  assert.equal(await jobState(), 'failed');
  // A bearer token is never attached by a browser on its own: no Origin needed.
  const t = await dashboard(false);
  const noOrigin = await fetch(`${t.url}/queues/api/queues/podset-reconcile/pause`, {
    method: 'PUT',
    headers: { ...bearer, origin: 'https://evil.example' },
  });
  assert.ok(noOrigin.ok, `a bearer request is not a cross-site one: ${noOrigin.status}`);
  await fetch(`${t.url}/queues/api/queues/podset-reconcile/resume`, { method: 'PUT', headers: bearer });
});

test('the login redirect stays on our origin; the cookie is Secure when asked and expires server-side', async () => {
  const d = await dashboard(true, { token: TOKEN }, { secureCookie: true, sessionMaxAgeSeconds: 600 });
  const loginWith = (next: string) =>
    fetch(`${d.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next }),
    });
  // The form body is decoded once: "%09" arrives as a tab, which a browser drops from a Location.
  for (const next of ['/\t/evil.example', '/\\evil.example', '//evil.example', '/\n/evil.example']) {
    const res = await loginWith(next);
    assert.equal(res.status, 303, JSON.stringify(next));
    assert.equal(res.headers.get('location'), '/', JSON.stringify(next));
  }
  const ok = await loginWith('/podsets/default/web?x=1');
  assert.equal(ok.headers.get('location'), '/podsets/default/web?x=1');
  const setCookie = ok.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /; Secure/);
  assert.match(setCookie, /Max-Age=600/);
  const cookie = setCookie.split(';')[0]!;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie } })).status, 200);

  // A cookie the browser kept past its Max-Age (or a copied one) is refused by the server.
  const issued = nowSeconds() - 601;
  const expired = `${COOKIE_NAME}=${sessionValue(`token:${TOKEN}`, issued)}`;
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie: expired } })).status, 401);
  // Its issue time cannot be moved forward: the HMAC covers it.
  const moved = expired.replace(`=${issued}.`, `=${nowSeconds()}.`);
  assert.notEqual(moved, expired);
  assert.equal((await fetch(`${d.url}/`, { headers: { cookie: moved } })).status, 401);
});

// Last: it retries the failed job the other tests read.
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
