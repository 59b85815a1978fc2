// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — CustomObjectsApi on a CRD.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PatchStrategy,
  setHeaderOptions,
  type CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { apiError, connect, disconnect, installWidgetCrd, NS, statusOf, W } from './support.ts';

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let custom: CustomObjectsApi;

  before(async () => {
    ({ sim, kc, custom } = await connect());
  });
  after(async () => {
    await disconnect(sim, []);
  });

  test('CustomObjectsApi on a CRD: create (defaults), get, list, patch, status, scale, 422, delete', async () => {
    await installWidgetCrd(kc);

    const body = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', labels: { app: 'widgets' } },
      spec: { color: 'blue' },
    };
    type Widget = typeof body & {
      metadata: { resourceVersion?: string; generation?: number };
      spec: { replicas?: number; size?: string };
      status?: { replicas?: number; phase?: string; selector?: string };
    };
    const created = (await custom.createNamespacedCustomObject({ ...W, namespace: NS, body })) as Widget;
    assert.deepEqual(created.spec, { color: 'blue', replicas: 1, size: 'small' }, 'schema defaults');
    assert.equal(created.metadata.generation, 1);

    const got = (await custom.getNamespacedCustomObject({ ...W, namespace: NS, name: 'w1' })) as Widget;
    assert.equal(got.metadata.resourceVersion, created.metadata.resourceVersion);
    const list = (await custom.listNamespacedCustomObject({
      ...W,
      namespace: NS,
      labelSelector: 'app=widgets',
    })) as {
      kind: string;
      items: Widget[];
    };
    assert.equal(list.kind, 'WidgetList');
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['w1'],
    );

    const patched = (await custom.patchNamespacedCustomObject(
      { ...W, namespace: NS, name: 'w1', body: { spec: { size: 'large' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
    assert.equal(patched.spec.size, 'large');
    assert.equal(patched.metadata.generation, 2);

    const st = (await custom.patchNamespacedCustomObjectStatus(
      {
        ...W,
        namespace: NS,
        name: 'w1',
        body: { status: { replicas: 1, phase: 'Ready', selector: 'app=widgets' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as Widget;
    assert.equal(st.status?.phase, 'Ready');
    assert.equal(st.metadata.generation, 2, 'status writes do not bump generation');

    const scale = (await custom.getNamespacedCustomObjectScale({ ...W, namespace: NS, name: 'w1' })) as {
      kind: string;
      spec: { replicas: number };
      status: { replicas: number; selector?: string };
    };
    assert.equal(scale.kind, 'Scale');
    assert.deepEqual(
      [scale.spec.replicas, scale.status.replicas, scale.status.selector],
      [1, 1, 'app=widgets'],
    );
    await custom.patchNamespacedCustomObjectScale(
      { ...W, namespace: NS, name: 'w1', body: { spec: { replicas: 4 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(
      ((await custom.getNamespacedCustomObject({ ...W, namespace: NS, name: 'w1' })) as Widget).spec.replicas,
      4,
    );

    const invalid = await apiError(
      custom.createNamespacedCustomObject({
        ...W,
        namespace: NS,
        body: { ...body, metadata: { name: 'w2' }, spec: { color: 'Not Lower', replicas: -1, size: 'huge' } },
      }),
    );
    assert.equal(invalid.code, 422);
    const s = statusOf(invalid);
    assert.equal(s.reason, 'Invalid');
    assert.equal(s.details?.kind, 'Widget');
    assert.equal(s.details?.name, 'w2');
    const fields = (s.details?.causes ?? []).map((c) => `${c.field}:${c.reason}`).sort();
    // The schema's causes, and the scale subresource's own for the replicas (named by its specReplicasPath).
    assert.deepEqual(fields, [
      '.spec.replicas:FieldValueInvalid',
      'spec.color:FieldValueInvalid',
      'spec.replicas:FieldValueInvalid',
      'spec.size:FieldValueNotSupported',
    ]);

    await custom.deleteNamespacedCustomObject({ ...W, namespace: NS, name: 'w1' });
    assert.equal(
      (await apiError(custom.getNamespacedCustomObject({ ...W, namespace: NS, name: 'w1' }))).code,
      404,
    );
  });
});
