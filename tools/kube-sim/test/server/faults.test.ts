// kube-sim's REST semantics over HTTP: fault injection, and the control API that sets it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeSim } from '../../src/index.ts';
import { type Call, client, openWatch, startServer } from './support.ts';

describe('kube-sim server', () => {
  let sim: KubeSim;
  let call: Call;

  before(async () => {
    ({ sim, call } = await startServer());
    // a deployment for the faults on a subresource
    await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'dep' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    });
  });
  after(async () => {
    await sim.close();
  });

  test('control API: faults, audit and history over HTTP (admin only)', async () => {
    const set = await call('PUT', '/kube-sim/faults', {
      errors: [{ verb: 'list', resource: 'secrets', code: 500 }],
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.errors.length, 1);
    assert.equal((await call('GET', '/api/v1/namespaces/default/secrets')).status, 500);
    assert.equal((await call('PUT', '/kube-sim/faults', { reset: true })).body.errors.length, 0);
    assert.equal((await call('GET', '/api/v1/namespaces/default/secrets')).status, 200);
    const audit = await call('GET', '/kube-sim/audit?resource=secrets&code=500');
    assert.ok(audit.body.length >= 1);
    assert.equal(audit.body[0].verb, 'list');
    assert.equal((await client(sim, 'worker')('GET', '/kube-sim/faults')).status, 403);
    const old = sim.resourceVersion();
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'h-' } });
    assert.equal((await call('POST', '/kube-sim/history', { compact: true })).status, 200);
    const w = await openWatch(sim, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`);
    assert.equal((await w.next())?.object.code, 410);
  });

  test('faults: injected errors with Retry-After, expired watches, cut watches', async () => {
    sim.faults.set({
      errors: [{ verb: 'create', resource: 'configmaps', code: 429, retryAfterSeconds: 2, times: 1 }],
    });
    const r = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'f1' } });
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '2');
    assert.equal(r.body.reason, 'TooManyRequests');
    assert.equal(
      (await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'f1' } })).status,
      201,
      'spent after one',
    );
    sim.faults.set({ errors: [{ verb: 'get', resource: 'configmaps', code: 503 }] });
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/f1')).status, 503);
    assert.equal(
      (await call('GET', '/api/v1/namespaces/default/secrets')).status,
      200,
      'other resources unaffected',
    );
    // a rule for one subresource: status writes fail, the rest works
    sim.faults.set({ errors: [{ verb: 'update', resource: 'deployments/status', code: 500 }] });
    const dep = (await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep')).body;
    assert.equal(
      (await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', dep)).status,
      500,
    );
    assert.equal((await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', dep)).status, 200);
    sim.faults.set({ errors: [{ verb: 'update', resource: 'deployments', code: 503 }] });
    assert.equal(
      (await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', dep)).status,
      503,
      'a resource rule covers its subresources',
    );
    sim.faults.reset();
    sim.faults.expireNextWatch();
    const w = await openWatch(
      sim,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${sim.resourceVersion()}`,
    );
    assert.equal((await w.next())?.object.code, 410);
    // a silent stall: the stream stays open but nothing more arrives; new watches work
    const stalled = await openWatch(
      sim,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${sim.resourceVersion()}`,
    );
    assert.ok(sim.faults.stallWatches() >= 1);
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'during-stall' } });
    await assert.rejects(stalled.next(300), /no watch event/);
    stalled.close();
    const fresh = await openWatch(
      sim,
      '/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dduring-stall',
    );
    assert.equal((await fresh.next())?.object.metadata.name, 'during-stall');
    fresh.close();
    sim.faults.set({ watchCutAfterEvents: 2 });
    const c = await openWatch(sim, '/api/v1/namespaces/default/configmaps?watch=1');
    assert.ok(await c.next());
    assert.ok(await c.next());
    assert.equal(await c.next(), undefined, 'cut after two events');
    sim.faults.reset();
  });
});
