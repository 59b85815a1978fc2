// ControllerRevisions as the API server answers them: created, listed by label, renumbered by a patch; data
// required and immutable, revision at least 0.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startKubeSim, type KubeSim } from '../index.ts';

let sim: KubeSim;
before(async () => {
  sim = await startKubeSim({ controllers: false });
});
after(() => sim?.close());

const URL = '/apis/apps/v1/namespaces/default/controllerrevisions';

async function call(method: string, path: string, body?: unknown, type = 'application/json') {
  const r = await fetch(sim.url + path, {
    method,
    headers: { authorization: `Bearer ${sim.tokens.admin}`, 'content-type': type },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

const revision = (name: string, n: number, data: unknown = { spec: { template: {} } }) => ({
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: { name, labels: { 'podset.io/name': 'web' } },
  data,
  revision: n,
});

test('created, listed by label and renumbered by a merge patch', async () => {
  assert.equal((await call('POST', URL, revision('web-a', 1))).status, 201);
  const listed = await call('GET', `${URL}?labelSelector=podset.io%2Fname%3Dweb`);
  assert.deepEqual(
    (listed.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name),
    ['web-a'],
  );
  const patched = await call('PATCH', `${URL}/web-a`, { revision: 3 }, 'application/merge-patch+json');
  assert.equal(patched.status, 200);
  assert.equal(patched.body.revision, 3);
});

test('data is required and immutable; revision is at least 0', async () => {
  const noData = await call('POST', URL, { ...revision('web-b', 1), data: undefined });
  assert.equal(noData.status, 422);
  assert.match(String(noData.body.message), /data: Required value/);
  const negative = await call('POST', URL, revision('web-c', -1));
  assert.equal(negative.status, 422);
  assert.match(String(negative.body.message), /revision: Invalid value: -1/);
  assert.equal((await call('POST', URL, revision('web-d', 1))).status, 201);
  const changed = await call('PATCH', `${URL}/web-d`, { data: { x: 1 } }, 'application/merge-patch+json');
  assert.equal(changed.status, 422);
  assert.match(String(changed.body.message), /data: Invalid value: .*field is immutable/);
});
