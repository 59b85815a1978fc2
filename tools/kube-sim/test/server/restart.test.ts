// kube-sim's REST semantics over HTTP: a restart and a pause of the server, on a server of its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startKubeSim } from '../../src/index.ts';
import { client, openWatch } from './support.ts';

describe('kube-sim restart and pause', () => {
  test('restart keeps the store, ends watches and restarts the watch cache; pause refuses connections until resume', async () => {
    const sim = await startKubeSim({ controllers: false });
    try {
      const call = client(sim);
      const cm = await call('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'survivor' },
      });
      const w = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      // another object changes, so the store moves past the watch's RV (as a cluster's does)
      await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'other' } });
      assert.equal((await w.next())?.object.metadata.name, 'other');
      await sim.restart();
      assert.equal(await w.next(), undefined, 'the watch ended');
      const got = await call('GET', '/api/v1/namespaces/default/configmaps/survivor');
      assert.equal(got.body.metadata.uid, cm.body.metadata.uid);
      // the watch cache restarted with the server: resuming from an RV before the restart is 410
      const w2 = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      assert.equal((await w2.next())?.object.code, 410);
      // a restart that loses the history too (as an etcd compaction): resuming from an old RV is 410
      await sim.restart({ compactHistory: true });
      const w3 = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      assert.equal((await w3.next())?.object.code, 410);
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/survivor')).status, 200);
      await sim.pause();
      await assert.rejects(fetch(sim.url + '/healthz'));
      await sim.resume();
      assert.equal((await fetch(sim.url + '/healthz')).status, 200);
    } finally {
      await sim.close();
    }
  });
});
