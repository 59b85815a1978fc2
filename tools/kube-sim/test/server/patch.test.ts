// kube-sim's REST semantics over HTTP: patch: merge, JSON, strategic merge and apply content types.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('patch: merge, JSON and strategic merge, server-side apply; 415 for unknown types', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('patchme', { a: '1' }));
    const merge = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { metadata: { labels: { b: '2' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(merge.status, 200);
    assert.deepEqual(merge.body.metadata.labels, { a: '1', b: '2' });
    const json = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      [{ op: 'remove', path: '/metadata/labels/a' }],
      {
        'content-type': 'application/json-patch+json',
      },
    );
    assert.deepEqual(json.body.metadata.labels, { b: '2' });
    const smp = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 200);
    assert.equal(smp.body.spec.containers.length, 1);
    assert.equal(smp.body.spec.containers[0].image, 'nginx:1.28');
    const unknownType = await call('PATCH', '/api/v1/namespaces/default/pods/patchme', '{}', {
      'content-type': 'text/plain',
    });
    assert.equal(unknownType.status, 415);
    // server-side apply (approximated: create, else a strategic merge of the configuration)
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n';
    const noManager = await call('PATCH', '/api/v1/namespaces/default/configmaps/applied', yaml, {
      'content-type': 'application/apply-patch+yaml',
    });
    assert.equal(noManager.status, 422);
    const created = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
      yaml,
      {
        'content-type': 'application/apply-patch+yaml',
      },
    );
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.data, { a: '1' });
    const applied = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
      yaml.replace('a: "1"', 'a: "2"\n  b: "3"'),
      { 'content-type': 'application/apply-patch+yaml' },
    );
    assert.equal(applied.status, 200);
    assert.deepEqual(applied.body.data, { a: '2', b: '3' });
    const staleRv = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { metadata: { resourceVersion: '1' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(staleRv.status, 409);
    const missing = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/nope',
      {},
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(missing.status, 404);
  });
});
