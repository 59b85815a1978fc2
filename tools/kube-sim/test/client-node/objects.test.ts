// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — KubernetesObjectApi: any kind by apiVersion and kind.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
  type KubernetesObjectApi,
} from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { apiError, cm, connect, disconnect, installWidgetCrd, NS } from './support.ts';

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let objects: KubernetesObjectApi;

  before(async () => {
    ({ sim, kc, objects } = await connect());
    await installWidgetCrd(kc);
  });
  after(async () => {
    await disconnect(sim, []);
  });

  test('KubernetesObjectApi: create, read, list, patch, replace, delete by apiVersion/kind', async () => {
    const spec = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'generic', namespace: NS },
      spec: { color: 'red', replicas: 2 },
    };
    const created: KubernetesObject = await objects.create(spec);
    assert.ok(created.metadata?.uid);
    const read = (await objects.read({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'generic', namespace: NS },
    })) as typeof spec & { spec: { size?: string } };
    assert.equal(read.spec.size, 'small');
    const list = await objects.list('example.com/v1', 'Widget', NS);
    assert.ok(list.items.some((i) => i.metadata?.name === 'generic'));

    const patched = (await objects.patch(
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'generic', namespace: NS },
        spec: { replicas: 3 },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    )) as typeof spec;
    assert.equal(patched.spec.replicas, 3);

    // `read` is stale now (patched since): replace gives 409.
    const stale = await apiError(objects.replace({ ...read, spec: { color: 'green', replicas: 5 } }));
    assert.equal(stale.code, 409);
    const latest = (await objects.read(spec)) as typeof spec;
    const replaced = (await objects.replace({
      ...latest,
      spec: { color: 'green', replicas: 5 },
    })) as typeof spec & {
      spec: { size?: string };
    };
    assert.deepEqual(replaced.spec, { color: 'green', replicas: 5, size: 'small' });

    // A built-in kind through the same generic client.
    const cmCreated = await objects.create({
      ...cm('generic-cm', { a: '1' }),
      metadata: { name: 'generic-cm', namespace: NS },
    });
    assert.equal(cmCreated.kind, 'ConfigMap');
    await objects.delete(cmCreated);
    await objects.delete(spec);
    assert.equal((await apiError(objects.read(spec))).code, 404);
    assert.equal(sim.cluster.get('configmaps', NS, 'generic-cm'), undefined);
  });
});
