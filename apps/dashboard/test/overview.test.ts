// The dashboard's server over real HTTP, against a real Redis and a stand-in for the API: the overview, its
// rows from the API and the failed job, the leading watcher and its filter.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { bearer, html, useDashboardServer } from './support.ts';

const server = useDashboardServer();
const { dashboard } = server;
let failedJobId: string;
before(async () => {
  failedJobId = await server.failedJobId;
});

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
