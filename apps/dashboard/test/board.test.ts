// The dashboard's server over real HTTP, against a real Redis and a stand-in for the API: bull-board under
// the dashboard, read-only, and its pages' link back to the overview.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { bearer, html, useDashboardServer } from './support.ts';

const server = useDashboardServer();
const { dashboard, jobState } = server;
let failedJobId: string;
before(async () => {
  failedJobId = await server.failedJobId;
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
