// kube-sim's REST semantics over HTTP: authentication and the identity the audit records.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeSim } from '../../src/index.ts';
import { client, startServer } from './support.ts';

describe('kube-sim server', () => {
  let sim: KubeSim;

  before(async () => {
    ({ sim } = await startServer());
  });
  after(async () => {
    await sim.close();
  });

  test('authentication: 401 without a token, 403 for a read-only identity, identity in the audit', async () => {
    const r = await fetch(sim.url + '/api/v1/namespaces');
    assert.equal(r.status, 401);
    const body = (await r.json()) as { kind: string; reason: string; code: number };
    assert.equal(body.kind, 'Status');
    assert.equal(body.reason, 'Unauthorized');
    const bad = await fetch(sim.url + '/api/v1/namespaces', { headers: { authorization: 'Bearer nope' } });
    assert.equal(bad.status, 401);
    const viewer = client(sim, 'viewer');
    assert.equal((await viewer('GET', '/api/v1/namespaces')).status, 200);
    const w = await viewer('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'v' } });
    assert.equal(w.status, 403);
    assert.equal(w.body.reason, 'Forbidden');
    await client(sim, 'watcher')('GET', '/api/v1/namespaces/default/pods?limit=1');
    const entries = sim.audit.query({ user: 'watcher', verb: 'list', resource: 'pods' });
    assert.ok(entries.length >= 1);
    assert.equal(entries.at(-1)?.namespace, 'default');
    assert.equal(entries.at(-1)?.code, 200);
    assert.ok(sim.audit.query({ user: 'viewer', verb: 'create', code: 403 }).length >= 1);
  });
});
