// kube-sim's REST semantics over HTTP: update: conflicts, generation, the status and scale subresources of a built-in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('update: 409 on a stale resourceVersion, generation on spec changes only, status subresource isolation', async () => {
    const created = await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'dep' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
      status: { replicas: 9 },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.status, {}, 'a status given on create is dropped: the zero status');
    assert.equal(created.body.metadata.generation, 1);
    const d = created.body;
    const labelled = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...d,
      metadata: { ...d.metadata, labels: { a: 'b' } },
    });
    assert.equal(labelled.status, 200);
    assert.equal(labelled.body.metadata.generation, 1, 'metadata change: no generation bump');
    const stale = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...d,
      spec: { ...d.spec, replicas: 2 },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    const cur = labelled.body;
    const scaled = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...cur,
      spec: { ...cur.spec, replicas: 3 },
      status: { replicas: 5 },
    });
    assert.equal(scaled.body.metadata.generation, 2);
    assert.deepEqual(scaled.body.status, {}, 'main resource write ignores status');
    const st = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', {
      ...scaled.body,
      spec: { ...scaled.body.spec, replicas: 7 },
      status: { replicas: 3 },
    });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 3);
    assert.equal(st.body.spec.replicas, 3, 'status write ignores spec');
    assert.equal(st.body.metadata.generation, 2, 'status write: no generation bump');
    const noop = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', st.body);
    assert.equal(
      noop.body.metadata.resourceVersion,
      st.body.metadata.resourceVersion,
      'no-op update keeps the RV',
    );
    const wrongName = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...st.body,
      metadata: { ...st.body.metadata, name: 'other' },
    });
    assert.equal(wrongName.status, 400);
    // scale subresource of a built-in
    const sc = await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep/scale');
    assert.equal(sc.body.kind, 'Scale');
    assert.equal(sc.body.spec.replicas, 3);
    assert.equal(sc.body.status.selector, 'app=d');
    const sp = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/dep/scale',
      { spec: { replicas: 6 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(sp.body.spec.replicas, 6);
    assert.equal(
      (await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep')).body.spec.replicas,
      6,
    );
  });
});
