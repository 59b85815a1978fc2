// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim — CoreV1Api and the kubeconfig: verbs, patches, conflicts, a pod's status subresource.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PatchStrategy,
  setHeaderOptions,
  type CoreV1Api,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import type { KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { apiError, cm, connect, disconnect, NS, statusOf } from './support.ts';

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

  test('the kubeconfig points at HTTPS with the CA; requests are authenticated as admin', async () => {
    assert.match(kc.getCurrentCluster()?.server ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    const list = await core.listNamespace();
    const names = list.items.map((n) => n.metadata?.name);
    for (const n of ['default', 'kube-system']) assert.ok(names.includes(n), `${n} listed`);
    const entry = sim.audit.query({ resource: 'namespaces', verb: 'list' }).at(-1);
    assert.equal(entry?.user, 'admin');
    assert.equal(entry?.code, 200);
  });

  test('CoreV1Api: create, get, list with selectors, update, patch (merge, JSON, strategic), delete', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace: NS,
      body: cm('settings', { mode: 'fast' }, { app: 'demo', tier: 'web' }),
    });
    assert.equal(created.metadata?.namespace, NS);
    assert.ok(created.metadata?.uid);
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: cm('other', {}, { app: 'demo', tier: 'db' }),
    });
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('unrelated') });

    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: NS });
    assert.deepEqual(read.data, { mode: 'fast' });

    const names = async (q: { labelSelector?: string; fieldSelector?: string }): Promise<string[]> =>
      (await core.listNamespacedConfigMap({ namespace: NS, ...q })).items
        .map((i) => i.metadata?.name ?? '')
        .sort();
    assert.deepEqual(await names({ labelSelector: 'app=demo' }), ['other', 'settings']);
    assert.deepEqual(await names({ labelSelector: 'app=demo,tier!=db' }), ['settings']);
    assert.deepEqual(await names({ labelSelector: 'tier in (db,cache)' }), ['other']);
    assert.deepEqual(await names({ labelSelector: '!app' }), ['unrelated']);
    assert.deepEqual(await names({ fieldSelector: 'metadata.name=other' }), ['other']);
    const list = await core.listNamespacedConfigMap({ namespace: NS });
    assert.match(list.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.ok(Number(list.metadata?.resourceVersion) >= Number(created.metadata?.resourceVersion));

    // Paging over a consistent snapshot.
    const page1 = await core.listNamespacedConfigMap({ namespace: NS, limit: 2 });
    assert.equal(page1.items.length, 2);
    assert.ok(page1.metadata?._continue, 'a continue token');
    const page2 = await core.listNamespacedConfigMap({
      namespace: NS,
      limit: 2,
      _continue: page1.metadata?._continue,
    });
    const paged = [...page1.items, ...page2.items].map((i) => i.metadata?.name).sort();
    assert.deepEqual(paged, list.items.map((i) => i.metadata?.name).sort());

    // Update (PUT) with the current resourceVersion.
    read.data = { mode: 'slow' };
    const updated = await core.replaceNamespacedConfigMap({ name: 'settings', namespace: NS, body: read });
    assert.deepEqual(updated.data, { mode: 'slow' });
    assert.ok(Number(updated.metadata?.resourceVersion) > Number(read.metadata?.resourceVersion));

    // Patches, each with its content type.
    const merged = await core.patchNamespacedConfigMap(
      {
        name: 'settings',
        namespace: NS,
        body: { data: { extra: 'yes' }, metadata: { labels: { tier: null } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(merged.data, { mode: 'slow', extra: 'yes' });
    assert.deepEqual(merged.metadata?.labels, { app: 'demo' });
    const jsonPatched = await core.patchNamespacedConfigMap(
      { name: 'settings', namespace: NS, body: [{ op: 'remove', path: '/data/extra' }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    assert.deepEqual(jsonPatched.data, { mode: 'slow' });
    // client-node's own patch example: `replace` of a member the object does not have yet adds it, as
    // the API server's JSON Patch library (evanphx/json-patch v4) does.
    const replaced = await core.patchNamespacedConfigMap(
      {
        name: 'settings',
        namespace: NS,
        body: [{ op: 'replace', path: '/metadata/annotations', value: { note: 'added by replace' } }],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    assert.deepEqual(replaced.metadata?.annotations, { note: 'added by replace' });
    const strategic = await core.patchNamespacedConfigMap(
      { name: 'settings', namespace: NS, body: { data: { more: '1' } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(strategic.data, { mode: 'slow', more: '1' });

    const status = await core.deleteNamespacedConfigMap({ name: 'settings', namespace: NS });
    assert.ok(status, 'delete answers');
    const gone = await apiError(core.readNamespacedConfigMap({ name: 'settings', namespace: NS }));
    assert.equal(gone.code, 404);
    assert.equal(statusOf(gone).reason, 'NotFound');
    assert.equal(statusOf(gone).message, 'configmaps "settings" not found');
    for (const name of ['other', 'unrelated']) await core.deleteNamespacedConfigMap({ name, namespace: NS });
  });

  test('409 Conflict on an update with a stale resourceVersion; 409 AlreadyExists on a duplicate create', async () => {
    const first = await core.createNamespacedConfigMap({ namespace: NS, body: cm('contested', { v: '1' }) });
    const stale = structuredClone(first);
    await core.replaceNamespacedConfigMap({
      name: 'contested',
      namespace: NS,
      body: { ...first, data: { v: '2' } },
    });
    stale.data = { v: 'stale' };
    const conflict = await apiError(
      core.replaceNamespacedConfigMap({ name: 'contested', namespace: NS, body: stale }),
    );
    assert.equal(conflict.code, 409);
    const s = statusOf(conflict);
    assert.equal(s.kind, 'Status');
    assert.equal(s.reason, 'Conflict');
    assert.match(
      s.message,
      /the object has been modified; please apply your changes to the latest version and try again/,
    );
    assert.deepEqual(
      sim.cluster.get('configmaps', NS, 'contested')?.data,
      { v: '2' },
      'stale write not applied',
    );

    const dup = await apiError(core.createNamespacedConfigMap({ namespace: NS, body: cm('contested') }));
    assert.equal(dup.code, 409);
    assert.equal(statusOf(dup).reason, 'AlreadyExists');

    // A JSON patch with a resourceVersion test is optimistic concurrency too.
    const precond = await apiError(
      core.patchNamespacedConfigMap(
        {
          name: 'contested',
          namespace: NS,
          body: { metadata: { resourceVersion: first.metadata?.resourceVersion }, data: { v: '3' } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    assert.equal(precond.code, 409);
    await core.deleteNamespacedConfigMap({ name: 'contested', namespace: NS });
  });

  test('pods: create, status subresource is separate from the main resource, field selectors', async () => {
    const pod: V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'worker-', labels: { app: 'w' } },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
    };
    const created = await core.createNamespacedPod({ namespace: NS, body: pod });
    const name = created.metadata?.name ?? '';
    assert.match(name, /^worker-[a-z0-9]{5}$/);
    // A status write is ignored by the main resource...
    const withStatus = { ...created, status: { phase: 'Running' } };
    const mainWrite = await core.replaceNamespacedPod({ name, namespace: NS, body: withStatus });
    assert.notEqual(mainWrite.status?.phase, 'Running');
    // ...and taken by the status subresource, which ignores spec changes.
    const fresh = await core.readNamespacedPod({ name, namespace: NS });
    const statusWrite = await core.replaceNamespacedPodStatus({
      name,
      namespace: NS,
      body: {
        ...fresh,
        metadata: { ...fresh.metadata, labels: { app: 'changed' } },
        status: { phase: 'Running' },
      },
    });
    assert.equal(statusWrite.status?.phase, 'Running');
    assert.deepEqual(statusWrite.metadata?.labels, { app: 'w' });
    const running = await core.listNamespacedPod({ namespace: NS, fieldSelector: 'status.phase=Running' });
    assert.deepEqual(
      running.items.map((p) => p.metadata?.name),
      [name],
    );
    const pending = await core.listNamespacedPod({ namespace: NS, fieldSelector: 'status.phase=Pending' });
    assert.equal(pending.items.length, 0);
    await core.deleteNamespacedPod({ name, namespace: NS, gracePeriodSeconds: 0 });
    await waitFor('pod gone', () => !sim.cluster.get('pods', NS, name));
  });
});
