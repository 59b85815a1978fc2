// kube-sim's REST semantics over HTTP: errors are Status objects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeSim } from '../../src/index.ts';
import { type Call, startServer } from './support.ts';

describe('kube-sim server', () => {
  let sim: KubeSim;
  let call: Call;

  before(async () => {
    ({ sim, call } = await startServer());
  });
  after(async () => {
    await sim.close();
  });

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
