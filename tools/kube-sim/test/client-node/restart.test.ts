// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — an API server restart and pause under a watch.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException, type CoreV1Api, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { cm, connect, disconnect, endOf, NS, recordWatch } from './support.ts';

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let core: CoreV1Api;

  before(async () => {
    ({ sim, kc, core } = await connect());
  });
  after(async () => {
    await disconnect(sim, []);
  });

  test('an API server restart keeps the store; a watch resumes from its last resourceVersion', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('survivor', { v: '1' }) });
    const rv = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion ?? '';
    const w = await recordWatch(kc, path, { resourceVersion: rv });
    await sim.pause();
    const ended = await endOf(w);
    assert.ok(ended !== undefined, 'the watch ended when the server went away');
    const refused = await core.readNamespacedConfigMap({ name: 'survivor', namespace: NS }).then(
      () => 'answered',
      (e: unknown) => e,
    );
    assert.ok(
      refused instanceof Error && !(refused instanceof ApiException),
      `refused while paused: ${String(refused)}`,
    );
    // Changes committed while the server is down (as etcd keeps working under a restarting API server).
    sim.cluster.update('configmaps', {
      ...sim.cluster.get('configmaps', NS, 'survivor')!,
      data: { v: '2' },
    });
    await sim.resume();
    const read = await core.readNamespacedConfigMap({ name: 'survivor', namespace: NS });
    assert.deepEqual(read.data, { v: '2' });
    const resumed = await recordWatch(kc, path, { resourceVersion: rv });
    await waitFor('the change made during the outage', () => resumed.events.length >= 1);
    assert.deepEqual(
      resumed.events.map((e) => `${e.type}:${e.object.metadata?.name}:${(e.object as V1ConfigMap).data?.v}`),
      ['MODIFIED:survivor:2'],
    );
    resumed.abort();
    await sim.restart();
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'survivor', namespace: NS })).data, {
      v: '2',
    });
    await core.deleteNamespacedConfigMap({ name: 'survivor', namespace: NS });
  });
});
