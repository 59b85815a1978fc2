// kube-sim's REST semantics over HTTP: create: metadata, names, the resourceVersion counter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('create: metadata, generateName, global resourceVersion, name validation, namespace must exist', async () => {
    const ns = await call('GET', '/api/v1/namespaces');
    const nsNames = ns.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.ok(nsNames.includes('default') && nsNames.includes('kube-system'));
    const a = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'meta-a' },
      data: { x: '1' },
    });
    assert.equal(a.status, 201);
    const m = a.body.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.resourceVersion, /^\d+$/);
    assert.equal(m.generation, undefined, 'config maps have no generation (as kube-apiserver)');
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const b = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      metadata: { generateName: 'lease-' },
    });
    assert.equal(b.status, 201);
    assert.match(b.body.metadata.name, /^lease-[a-z0-9]{5}$/);
    assert.ok(
      Number(b.body.metadata.resourceVersion) > Number(m.resourceVersion),
      'one counter across resources',
    );
    const dup = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'meta-a' } });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    const bad = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'Bad_Name' },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(bad.body.details.causes[0].field, 'metadata.name');
    const noName = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    assert.equal(noName.status, 422);
    const noNs = await call('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
    assert.equal(noNs.status, 404);
    assert.match(noNs.body.message, /namespaces "nowhere" not found/);
    const get = await call('GET', '/api/v1/namespaces/default/configmaps/meta-a');
    assert.equal(get.body.data.x, '1');
    const missing = await call('GET', '/api/v1/namespaces/default/configmaps/none');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.details.kind, 'configmaps');
  });
});
