// kube-sim's REST semantics over HTTP: list: selectors, paging, resourceVersion semantics, big lists.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { KubeSim } from '../../src/index.ts';
import { type Call, startServer } from './support.ts';

describe('kube-sim server', () => {
  let sim: KubeSim;
  let call: Call;

  before(async () => {
    ({ sim, call } = await startServer());
    // a config map outside the test's own namespaces, for the list across namespaces
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'elsewhere' } });
  });
  after(async () => {
    await sim.close();
  });

  test('list: selectors, paging over a consistent snapshot, resourceVersion semantics', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'paging' } });
    for (let i = 0; i < 7; i++) {
      await call('POST', '/api/v1/namespaces/paging/configmaps', {
        metadata: { name: `cm-${i}`, labels: { i: String(i), even: String(i % 2 === 0) } },
      });
    }
    const sel = await call(
      'GET',
      '/api/v1/namespaces/paging/configmaps?labelSelector=' + encodeURIComponent('even=true,i!=4'),
    );
    assert.deepEqual(
      sel.body.items.map((x: { metadata: { name: string } }) => x.metadata.name),
      ['cm-0', 'cm-2', 'cm-6'],
    );
    assert.equal(sel.body.kind, 'ConfigMapList');
    const fs = await call('GET', '/api/v1/namespaces/paging/configmaps?fieldSelector=metadata.name%3Dcm-3');
    assert.equal(fs.body.items.length, 1);
    const badFs = await call('GET', '/api/v1/namespaces/paging/configmaps?fieldSelector=spec.x%3D1');
    assert.equal(badFs.status, 400);
    const p1 = await call('GET', '/api/v1/namespaces/paging/configmaps?limit=3');
    assert.equal(p1.body.items.length, 3);
    assert.ok(p1.body.metadata.continue);
    assert.equal(p1.body.metadata.remainingItemCount, 4);
    const listRv = p1.body.metadata.resourceVersion;
    // changes after the first page are not seen by the following pages
    await call('DELETE', '/api/v1/namespaces/paging/configmaps/cm-5');
    await call('POST', '/api/v1/namespaces/paging/configmaps', { metadata: { name: 'cm-9' } });
    const seen = p1.body.items.map((x: { metadata: { name: string } }) => x.metadata.name);
    let cont = p1.body.metadata.continue as string | undefined;
    while (cont) {
      const p = await call(
        'GET',
        `/api/v1/namespaces/paging/configmaps?limit=3&continue=${encodeURIComponent(cont)}`,
      );
      assert.equal(p.status, 200);
      assert.equal(p.body.metadata.resourceVersion, listRv);
      seen.push(...p.body.items.map((x: { metadata: { name: string } }) => x.metadata.name));
      cont = p.body.metadata.continue;
    }
    assert.deepEqual(seen, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    // Exact: the state at that resourceVersion; NotOlderThan: at least as new
    const exact = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${listRv}&resourceVersionMatch=Exact`,
    );
    assert.equal(exact.body.items.length, 7);
    assert.equal(exact.body.metadata.resourceVersion, listRv);
    const newer = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${listRv}&resourceVersionMatch=NotOlderThan`,
    );
    assert.deepEqual(
      newer.body.items.map((x: { metadata: { name: string } }) => x.metadata.name).includes('cm-9'),
      true,
    );
    assert.ok(Number(newer.body.metadata.resourceVersion) > Number(listRv));
    const any = await call('GET', '/api/v1/namespaces/paging/configmaps?resourceVersion=0');
    assert.equal(any.status, 200);
    const future = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${sim.resourceVersion() + 1000}`,
    );
    assert.equal(future.status, 504);
    assert.equal(future.body.details.causes[0].reason, 'ResourceVersionTooLarge');
    const futureWatch = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?watch=1&resourceVersion=${sim.resourceVersion() + 1000}`,
    );
    assert.equal(futureWatch.status, 504);
    const badMatch = await call('GET', '/api/v1/namespaces/paging/configmaps?resourceVersionMatch=Exact');
    assert.equal(badMatch.status, 422);
    const all = await call('GET', '/api/v1/configmaps');
    assert.ok(all.body.items.length >= 8, 'list across namespaces');
  });

  test('list: big lists are streamed and complete; paging through them sees every item once', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'big' } });
    for (let i = 0; i < 4500; i++) {
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `c${i}`, namespace: 'big' },
      });
    }
    const all = await call('GET', '/api/v1/namespaces/big/configmaps');
    assert.equal(all.status, 200);
    assert.equal(all.body.items.length, 4500);
    assert.equal(
      new Set(all.body.items.map((x: { metadata: { name: string } }) => x.metadata.name)).size,
      4500,
    );
    let n = 0;
    let cont = '';
    do {
      const p = await call(
        'GET',
        `/api/v1/namespaces/big/configmaps?limit=1000${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      n += p.body.items.length;
      cont = p.body.metadata.continue ?? '';
    } while (cont);
    assert.equal(n, 4500);
  });
});
