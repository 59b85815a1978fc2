// kube-sim's REST semantics over HTTP: pods' subresources, and subresources or verbs a resource lacks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('pods/binding, pods/eviction and pods/log', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('bindme'));
    const b = await call('POST', '/api/v1/namespaces/default/pods/bindme/binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bindme' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    });
    assert.equal(b.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/bindme')).body.spec.nodeName, 'node-a');
    const again = await call('POST', '/api/v1/namespaces/default/pods/bindme/binding', {
      target: { name: 'node-b' },
    });
    assert.equal(again.status, 409);
    const log = await fetch(server.sim.url + '/api/v1/namespaces/default/pods/bindme/log', {
      headers: { authorization: `Bearer ${server.sim.tokens.admin}` },
    });
    assert.equal(log.status, 200);
    assert.match(await log.text(), /bindme/);
    const ev = await call('POST', '/api/v1/namespaces/default/pods/bindme/eviction', {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'bindme' },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    assert.equal(ev.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/bindme')).status, 404);
  });

  test('subresources: one the resource lacks is a 404, a verb the subresource lacks a 405', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('subs'));
    const pods = '/api/v1/namespaces/default/pods/subs';
    // `constructor` and `toString` are properties of every object: still no subresource of a pod.
    for (const sub of ['constructor', 'toString', 'widgets', 'token']) {
      assert.equal((await call('POST', `${pods}/${sub}`, {})).status, 404, sub);
    }
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/x/scale')).status, 404);
    assert.equal((await call('GET', `${pods}/binding`)).status, 405);
    assert.equal((await call('PUT', `${pods}/log`, {})).status, 405);
    assert.equal((await call('GET', '/api/v1/namespaces/default/serviceaccounts/default/token')).status, 405);
    assert.equal((await call('GET', '/kube-server.sim/history')).status, 404);
  });
});
