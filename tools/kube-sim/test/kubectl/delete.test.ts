// Acceptance: the real kubectl against kube-sim — delete and its cascades over the dependents of a Widget.
// Each step asserts on kubectl's output AND on the server's state.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { applyWidgets, useKubectlSim, WIDGETS } from './support.ts';

describe('kubectl against kube-sim', () => {
  const k = useKubectlSim();
  const { kubectl, ok, widget } = k;
  let sim: KubeSim;

  before(async () => {
    sim = k.sim;
    await applyWidgets(k);
  });

  test('delete --cascade=orphan keeps the dependents without the ownerReference', async () => {
    const owner = widget('alpha')!;
    const ownerRef = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      name: 'alpha',
      uid: owner.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    for (const name of ['alpha-config-1', 'alpha-config-2']) {
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', ownerReferences: [ownerRef] },
        data: { owner: 'alpha' },
      });
    }
    const out = await ok(['delete', 'widget', 'alpha', '--cascade=orphan']);
    assert.match(out, /widget\.example\.com "alpha" deleted/);
    await waitFor('alpha gone', () => !widget('alpha'));
    for (const name of ['alpha-config-1', 'alpha-config-2']) {
      const cm = sim.cluster.get('configmaps', 'default', name);
      assert.ok(cm, `${name} still lives`);
      assert.equal(cm.metadata.ownerReferences, undefined, `${name} has no ownerReference left`);
    }
    const cms = await ok(['get', 'configmaps', '-o', 'name']);
    assert.match(cms, /configmap\/alpha-config-1/);
    const audit = sim.audit.query({ resource: 'widgets', verb: 'delete', name: 'alpha' });
    assert.equal(audit.at(-1)?.code, 200);
  });

  test('delete without --cascade garbage-collects the dependents (background and foreground)', async () => {
    for (const [owner, cascade] of [
      ['beta', undefined],
      ['gamma', 'foreground'],
    ] as const) {
      if (!widget(owner)) {
        sim.cluster.create(WIDGETS, {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: owner, namespace: 'default' },
          spec: { color: 'red' },
        });
      }
      const uid = widget(owner)!.metadata.uid ?? '';
      const ref = {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: owner,
        uid,
        blockOwnerDeletion: true,
      };
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${owner}-config`, namespace: 'default', ownerReferences: [ref] },
      });
      sim.cluster.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${owner}-pod`, namespace: 'default', ownerReferences: [ref] },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      const args = ['delete', 'widget', owner, ...(cascade ? [`--cascade=${cascade}`] : [])];
      assert.match(await ok(args), new RegExp(`widget\\.example\\.com "${owner}" deleted`));
      await waitFor(
        `${owner} and its dependents gone`,
        () =>
          !widget(owner) &&
          !sim.cluster.get('configmaps', 'default', `${owner}-config`) &&
          !sim.cluster.get('pods', 'default', `${owner}-pod`),
      );
    }
    // The orphans of the previous test were not touched by this GC.
    assert.ok(sim.cluster.get('configmaps', 'default', 'alpha-config-1'));
    const left = await kubectl(['get', 'widgets']);
    assert.match(left.stderr, /No resources found/);
  });
});
