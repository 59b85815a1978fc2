// kube-sim's REST semantics over HTTP: errors are Status objects.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('errors are Status objects: 400, 404, 405, 415', async () => {
    const badJson = await call('POST', '/api/v1/namespaces/default/configmaps', '{not json');
    assert.equal(badJson.status, 400);
    assert.equal(badJson.body.kind, 'Status');
    assert.equal(badJson.body.reason, 'BadRequest');
    const unknown = await call('GET', '/api/v1/widgets');
    assert.equal(unknown.status, 404);
    const put = await call('PUT', '/api/v1/namespaces/default/configmaps', {});
    assert.equal(put.status, 405);
    assert.equal(put.body.reason, 'MethodNotAllowed');
    const cbor = await call('POST', '/api/v1/namespaces/default/configmaps', 'x', {
      'content-type': 'application/cbor',
    });
    assert.equal(cbor.status, 415);
    const kind = await call('POST', '/api/v1/namespaces/default/configmaps', {
      kind: 'Secret',
      metadata: { name: 'k' },
    });
    assert.equal(kind.status, 400);
  });
});
