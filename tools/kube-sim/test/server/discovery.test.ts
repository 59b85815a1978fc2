// kube-sim's REST semantics over HTTP: health, version and API discovery, and the OpenAPI documents.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('health, version and discovery', async () => {
    for (const p of ['/healthz', '/readyz', '/livez']) {
      const r = await fetch(server.sim.url + p);
      assert.equal(r.status, 200);
      assert.equal(await r.text(), 'ok');
    }
    const v = await call('GET', '/version');
    assert.equal(v.body.major, '1');
    const api = await call('GET', '/api');
    assert.deepEqual(api.body.versions, ['v1']);
    const v1 = await call('GET', '/api/v1');
    const names = v1.body.resources.map((r: { name: string }) => r.name);
    for (const n of [
      'pods',
      'pods/status',
      'namespaces',
      'nodes',
      'events',
      'configmaps',
      'secrets',
      'serviceaccounts',
    ]) {
      assert.ok(names.includes(n), n);
    }
    const pods = v1.body.resources.find((r: { name: string }) => r.name === 'pods');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.equal(pods.namespaced, true);
    assert.ok(pods.categories.includes('all'));
    const groups = await call('GET', '/apis');
    const gnames = groups.body.groups.map((g: { name: string }) => g.name);
    for (const g of [
      'apps',
      'coordination.k8s.io',
      'events.k8s.io',
      'apiextensions.k8s.io',
      'rbac.authorization.k8s.io',
      'policy',
      'autoscaling',
    ]) {
      assert.ok(gnames.includes(g), g);
    }
    const apps = await call('GET', '/apis/apps');
    assert.equal(apps.body.preferredVersion.groupVersion, 'apps/v1');
    const appsv1 = await call('GET', '/apis/apps/v1');
    const scale = appsv1.body.resources.find((r: { name: string }) => r.name === 'deployments/scale');
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.group, 'autoscaling');
    const agg = await call('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.match(agg.headers.get('content-type') ?? '', /as=APIGroupDiscoveryList/);
    assert.equal(agg.body.kind, 'APIGroupDiscoveryList');
    assert.equal((await call('GET', '/apis/nope.io')).status, 404);
  });

  test('OpenAPI routes: v3 index and documents with ETag, v2 as JSON (and the protobuf fallback kubectl asks for)', async () => {
    const index = await call('GET', '/openapi/v3');
    const url = index.body.paths['api/v1'].serverRelativeURL as string;
    assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = await call('GET', url);
    assert.equal(doc.status, 200);
    assert.ok(doc.body.components);
    assert.equal(doc.headers.get('etag'), `"${url.split('hash=')[1]}"`);
    assert.equal(doc.headers.get('cache-control'), 'public, immutable');
    assert.equal((await call('GET', '/openapi/v3/apis/nope.io/v1')).status, 404);
    assert.equal((await call('GET', '/openapi/v2')).status, 200);
    // kubectl's protobuf request (for a kind v3 lacks): a document with no definitions, in protobuf.
    const proto = await fetch(`${server.sim.url}/openapi/v2`, {
      headers: {
        authorization: `Bearer ${server.sim.tokens.admin}`,
        accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      },
    });
    assert.equal(proto.status, 200);
    assert.equal(
      proto.headers.get('content-type'),
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    const bytes = Buffer.from(await proto.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 3, 0x32, 0x2e, 0x30], 'field 1 (swagger): "2.0"');
    const yaml = await call('GET', '/openapi/v2', undefined, { accept: 'application/yaml' });
    assert.equal(yaml.status, 406);
  });
});
