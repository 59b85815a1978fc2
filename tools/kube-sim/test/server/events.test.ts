// kube-sim's REST semantics over HTTP: events: the core/v1 and events.k8s.io/v1 views of one store.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openWatch, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('events: core/v1 and events.k8s.io/v1 are two views of one store', async () => {
    const core = await call('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'ev-core' },
      involvedObject: { kind: 'Pod', name: 'p1', namespace: 'default' },
      reason: 'Started',
      message: 'started it',
      type: 'Normal',
      source: { component: 'kubelet' },
      count: 2,
    });
    assert.equal(core.status, 201);
    const asV1 = await call('GET', '/apis/events.k8s.io/v1/namespaces/default/events/ev-core');
    assert.equal(asV1.body.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(asV1.body.regarding, { kind: 'Pod', name: 'p1', namespace: 'default' });
    assert.equal(asV1.body.note, 'started it');
    assert.equal(asV1.body.deprecatedCount, 2);
    assert.equal(asV1.body.metadata.resourceVersion, core.body.metadata.resourceVersion);
    const w = await openWatch(
      server.sim,
      `/apis/events.k8s.io/v1/namespaces/default/events?watch=1&resourceVersion=${core.body.metadata.resourceVersion}&fieldSelector=regarding.name%3Dp2`,
    );
    const v1 = await call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev-v1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      regarding: { kind: 'Pod', name: 'p2', namespace: 'default' },
      reason: 'Created',
      note: 'made it',
      type: 'Normal',
      action: 'Create',
      reportingController: 'podset-operator',
      reportingInstance: 'worker-1',
    });
    assert.equal(v1.status, 201, JSON.stringify(v1.body));
    assert.equal(v1.body.note, 'made it');
    const seen = await w.next();
    assert.equal(seen?.type, 'ADDED');
    assert.equal(seen?.object.apiVersion, 'events.k8s.io/v1');
    assert.equal(seen?.object.regarding.name, 'p2');
    w.close();
    const asCore = await call(
      'GET',
      '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp2',
    );
    assert.equal(asCore.body.items.length, 1);
    assert.equal(asCore.body.items[0].message, 'made it');
    assert.equal(asCore.body.items[0].reportingComponent, 'podset-operator');
    const both = await call('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
    const names = both.body.items.map((e: { metadata: { name: string } }) => e.metadata.name);
    assert.ok(names.includes('ev-core') && names.includes('ev-v1'));
    assert.equal(
      (await call('DELETE', '/apis/events.k8s.io/v1/namespaces/default/events/ev-core')).status,
      200,
    );
    assert.equal((await call('GET', '/api/v1/namespaces/default/events/ev-core')).status, 404);
  });
});
