// kube-sim's REST semantics over HTTP: delete: graceful pods, preconditions, finalizers, propagation, deletecollection, dryRun.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pod, useServer } from './support.ts';

describe('kube-sim server', () => {
  const server = useServer();
  const { call } = server;

  test('delete: graceful pods, preconditions, finalizers, propagation policies, deletecollection, dryRun', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'del' } });
    // a scheduled pod is deleted gracefully: deletionTimestamp + grace, still there
    await call(
      'POST',
      '/api/v1/namespaces/del/pods',
      pod('graceful', {}, { nodeName: 'n1', terminationGracePeriodSeconds: 20 }),
    );
    const g = await call('DELETE', '/api/v1/namespaces/del/pods/graceful');
    assert.equal(g.status, 200);
    assert.ok(g.body.metadata.deletionTimestamp);
    assert.equal(g.body.metadata.deletionGracePeriodSeconds, 20);
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/graceful')).status, 200);
    const now = await call('DELETE', '/api/v1/namespaces/del/pods/graceful?gracePeriodSeconds=0');
    assert.equal(now.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/graceful')).status, 404);
    // an unscheduled pod goes at once
    await call('POST', '/api/v1/namespaces/del/pods', pod('unscheduled'));
    await call('DELETE', '/api/v1/namespaces/del/pods/unscheduled');
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/unscheduled')).status, 404);
    // preconditions
    const cm = await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'pre' } });
    const wrongUid = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { uid: 'nope' },
    });
    assert.equal(wrongUid.status, 409);
    const wrongRv = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { resourceVersion: '1' },
    });
    assert.equal(wrongRv.status, 409);
    const ok = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { uid: cm.body.metadata.uid },
    });
    assert.equal(ok.status, 200);
    // finalizers: deletionTimestamp set, no new finalizers, removed when the last goes
    await call('POST', '/api/v1/namespaces/del/configmaps', {
      metadata: { name: 'fin', finalizers: ['test/a'] },
    });
    const d = await call('DELETE', '/api/v1/namespaces/del/configmaps/fin');
    assert.ok(d.body.metadata.deletionTimestamp);
    const more = await call(
      'PATCH',
      '/api/v1/namespaces/del/configmaps/fin',
      { metadata: { finalizers: ['test/a', 'test/b'] } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(more.status, 422);
    const last = await call(
      'PATCH',
      '/api/v1/namespaces/del/configmaps/fin',
      { metadata: { finalizers: null } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(last.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/fin')).status, 404);
    // propagation policies add the GC's finalizers (no GC runs in this server)
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'fg' } });
    const fg = await call('DELETE', '/api/v1/namespaces/del/configmaps/fg', {
      propagationPolicy: 'Foreground',
    });
    assert.deepEqual(fg.body.metadata.finalizers, ['foregroundDeletion']);
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'or' } });
    const or = await call('DELETE', '/api/v1/namespaces/del/configmaps/or?propagationPolicy=Orphan');
    assert.deepEqual(or.body.metadata.finalizers, ['orphan']);
    // dryRun
    const dry = await call('POST', '/api/v1/namespaces/del/configmaps?dryRun=All', {
      metadata: { name: 'dry' },
    });
    assert.equal(dry.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/dry')).status, 404);
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'keep' } });
    const dryDel = await call('DELETE', '/api/v1/namespaces/del/configmaps/keep?dryRun=All');
    assert.equal(dryDel.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/keep')).status, 200);
    // deletecollection with a selector
    for (const n of ['dc1', 'dc2', 'dc3']) {
      await call('POST', '/api/v1/namespaces/del/configmaps', {
        metadata: { name: n, labels: { dc: n === 'dc3' ? 'no' : 'yes' } },
      });
    }
    const dc = await call('DELETE', '/api/v1/namespaces/del/configmaps?labelSelector=dc%3Dyes');
    assert.equal(dc.status, 200);
    const left = await call('GET', '/api/v1/namespaces/del/configmaps?labelSelector=dc');
    assert.deepEqual(
      left.body.items.map((x: { metadata: { name: string } }) => x.metadata.name),
      ['dc3'],
    );
    // protected namespaces
    assert.equal((await call('DELETE', '/api/v1/namespaces/default')).status, 403);
  });
});
