// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — makeInformer: add, update, delete, relist after a 410.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Api,
  type KubeConfig,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { type Cleanup, cm, connect, disconnect, NS } from './support.ts';

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let core: CoreV1Api;
  const cleanups: Cleanup[] = [];

  before(async () => {
    ({ sim, kc, core } = await connect());
  });
  after(async () => {
    await disconnect(sim, cleanups);
  });

  test('makeInformer sees add, update and delete, and relists after a 410', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('pre-existing', {}, { inf: 'yes' }) });
    const informer = makeInformer<V1ConfigMap>(
      kc,
      path,
      () => core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'inf=yes' }),
      'inf=yes',
    );
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => seen.push(`add:${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update:${o.metadata?.name}:${o.data?.v ?? ''}`));
    informer.on('delete', (o) => seen.push(`delete:${o.metadata?.name}`));
    informer.on('error', (e) => errors.push(e));
    await informer.start();
    cleanups.push(() => informer.stop());
    await waitFor('the initial list', () => seen.includes('add:pre-existing'));
    await waitFor(
      'watching',
      () => sim.audit.query({ resource: 'configmaps', verb: 'watch', code: 200 }).length > 0,
    );

    await core.createNamespacedConfigMap({ namespace: NS, body: cm('inf-1', { v: '1' }, { inf: 'yes' }) });
    await waitFor(`add (seen ${seen})`, () => seen.includes('add:inf-1'));
    await core.patchNamespacedConfigMap(
      { name: 'inf-1', namespace: NS, body: { data: { v: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(`update (seen ${seen})`, () => seen.includes('update:inf-1:2'));
    assert.equal(informer.get('inf-1', NS)?.data?.v, '2', 'the cache holds the latest');
    await core.deleteNamespacedConfigMap({ name: 'inf-1', namespace: NS });
    await waitFor(`delete (seen ${seen})`, () => seen.includes('delete:inf-1'));
    assert.equal(informer.get('inf-1', NS), undefined);
    // Objects outside the selector are never seen.
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('not-mine') });

    // Cut the watch after its next event and answer the reconnect with 410 (after a delay, during which
    // an object is deleted): the informer must relist and notice the deletion it never saw as an event.
    const listsBefore = sim.audit.query({ resource: 'configmaps', verb: 'list' }).length;
    sim.faults.set({ watchCutAfterEvents: 1, latencyMs: 500 });
    sim.faults.expireNextWatch();
    sim.cluster.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'inf-2', namespace: NS, labels: { inf: 'yes' } },
    });
    await waitFor(`add before the cut (seen ${seen})`, () => seen.includes('add:inf-2'));
    sim.cluster.delete('configmaps', NS, 'pre-existing');
    await waitFor(
      'the relist after the 410',
      () => sim.audit.query({ resource: 'configmaps', verb: 'list' }).length > listsBefore,
    );
    sim.faults.reset();
    await waitFor(`the delete found by the relist (seen ${seen})`, () =>
      seen.includes('delete:pre-existing'),
    );
    assert.deepEqual(
      informer
        .list(NS)
        .map((o) => o.metadata?.name)
        .sort(),
      ['inf-2'],
    );
    // And it keeps watching.
    await core.patchNamespacedConfigMap(
      { name: 'inf-2', namespace: NS, body: { data: { v: '9' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(`update after the relist (seen ${seen})`, () => seen.includes('update:inf-2:9'));
    assert.ok(!seen.some((s) => s.includes('not-mine')));
    assert.deepEqual(errors, []);
    await informer.stop();
  });
});
