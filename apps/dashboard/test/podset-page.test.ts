// The dashboard's server over real HTTP, against a real Redis and a stand-in for the API: the PodSet page,
// and its answers to bad names, unknown PodSets and missing credentials.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { bearer, eventQueries, html, useDashboardServer } from './support.ts';

const server = useDashboardServer();
const { dashboard } = server;
let failedJobId: string;
before(async () => {
  failedJobId = await server.failedJobId;
});

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
