// Acceptance: @kubernetes/client-node 2.0.1 against kube-sim, over HTTPS with the kubeconfig the sim writes
// (its CA in certificate-authority-data, a bearer token). Typed APIs (CoreV1Api, CustomObjectsApi,
// ApiextensionsV1Api), the generic KubernetesObjectApi, Watch and makeInformer, including the error paths a
// controller must handle: 409 on a stale update, 410 on an expired watch, 422 with field causes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  loadYaml,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
  type V1CustomResourceDefinition,
  type V1Pod,
} from '@kubernetes/client-node';
import { startKubeSim, type KubeSim } from '../src/index.ts';
import { waitFor } from '@podset/testkit';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const NS = 'default';
const W = { group: 'example.com', version: 'v1', plural: 'widgets' } as const;

/** The ApiException a call rejects with (fails if it resolves or throws something else). */
async function apiError(p: Promise<unknown>): Promise<ApiException<string>> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ApiException, `expected an ApiException, got ${String(e)}`);
    return e as ApiException<string>;
  }
  assert.fail('expected the call to fail');
}

interface StatusBody {
  kind: string;
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; kind?: string; causes?: { field: string; reason: string; message: string }[] };
}
const statusOf = (e: ApiException<string>): StatusBody =>
  (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as StatusBody;

/** What a recorded watch ended with; fails (and aborts the watch) if it is still open after `ms`. */
async function endOf(w: { done: Promise<unknown>; abort: () => void }, ms = 10_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      w.abort();
      reject(new Error('the watch is still open'));
    }, ms);
  });
  try {
    return await Promise.race([w.done, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

type WatchEvent = { type: string; object: KubernetesObject & Record<string, unknown> };

/** A Watch that records what it receives; `done` resolves with the error (or null) it ended with. */
async function recordWatch(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
): Promise<{ events: WatchEvent[]; done: Promise<unknown>; abort: () => void }> {
  const events: WatchEvent[] = [];
  let resolveDone!: (err: unknown) => void;
  const done = new Promise<unknown>((r) => (resolveDone = r));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object: object as WatchEvent['object'] }),
    (err) => resolveDone(err),
  );
  return { events, done, abort: () => controller.abort() };
}

describe('@kubernetes/client-node against kube-sim', () => {
  let sim: KubeSim;
  let kc: KubeConfig;
  let core: CoreV1Api;
  let custom: CustomObjectsApi;
  let objects: KubernetesObjectApi;
  const cleanups: (() => void | Promise<void>)[] = [];

  const cm = (
    name: string,
    data: Record<string, string> = {},
    labels?: Record<string, string>,
  ): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  });

  before(async () => {
    sim = await startKubeSim({ controllerOptions: { podLifecycle: false }, bookmarkIntervalMs: 200 });
    kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfigYaml());
    core = kc.makeApiClient(CoreV1Api);
    custom = kc.makeApiClient(CustomObjectsApi);
    objects = KubernetesObjectApi.makeApiClient(kc);
  });

  after(async () => {
    for (const c of cleanups.reverse()) await c();
    await sim?.close();
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

  test('CustomObjectsApi on a CRD: create (defaults), get, list, patch, status, scale, 422, delete', async () => {
    // loadYaml maps the YAML onto client-node's typed model (`default` → `_default`, ...); a plain parse
    // would have its schema defaults and x-kubernetes-* fields dropped by the client's serializer.
    const crd = loadYaml<V1CustomResourceDefinition>(readFileSync(join(FIXTURES, 'widget-crd.yaml'), 'utf8'));
    const ext = kc.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({ body: crd });
    await waitFor('CRD Established', async () => {
      const c = await ext.readCustomResourceDefinition({ name: 'widgets.example.com' });
      return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True');
    });

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

  test('Watch: events strictly after a resourceVersion, selector entry/exit as ADDED/DELETED, bookmarks', async () => {
    const rv0 = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const all = await recordWatch(kc, path, { resourceVersion: rv0, allowWatchBookmarks: true });
    const sel = await recordWatch(kc, path, { resourceVersion: rv0, labelSelector: 'watched=yes' });
    cleanups.push(all.abort, sel.abort);

    await core.createNamespacedConfigMap({ namespace: NS, body: cm('w-a', { n: '1' }) });
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { metadata: { labels: { watched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { data: { n: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.patchNamespacedConfigMap(
      { name: 'w-a', namespace: NS, body: { metadata: { labels: { watched: 'no' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ name: 'w-a', namespace: NS });

    const changes = (w: { events: WatchEvent[] }) => w.events.filter((e) => e.type !== 'BOOKMARK');
    await waitFor(
      `5 events on the plain watch (got ${JSON.stringify(all.events)})`,
      () => changes(all).length >= 5,
    );
    assert.deepEqual(
      changes(all).map((e) => e.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED'],
    );
    const rvs = changes(all).map((e) => Number(e.object.metadata?.resourceVersion));
    assert.ok(
      rvs.every((rv, i) => rv > Number(rv0) && (i === 0 || rv > (rvs[i - 1] ?? 0))),
      `increasing ${rvs}`,
    );
    await waitFor(
      `3 events on the selector watch (got ${JSON.stringify(sel.events)})`,
      () => sel.events.length >= 3,
    );
    assert.deepEqual(
      sel.events.map((e) => `${e.type}:${(e.object as V1ConfigMap).data?.n}`),
      ['ADDED:1', 'MODIFIED:2', 'DELETED:2'],
      'enters the selector as ADDED, leaves as DELETED',
    );
    await waitFor('a BOOKMARK (interval 200 ms)', () => all.events.some((e) => e.type === 'BOOKMARK'), 5_000);
    const bm = all.events.find((e) => e.type === 'BOOKMARK');
    assert.equal(bm?.object.kind, 'ConfigMap');
    assert.match(bm?.object.metadata?.resourceVersion ?? '', /^\d+$/);
    assert.equal(sel.events.filter((e) => e.type === 'BOOKMARK').length, 0, 'no bookmarks unless asked');
    all.abort();
    sel.abort();
  });

  test('Watch: 410 Gone when the resourceVersion is older than the retained window', async () => {
    const path = `/api/v1/namespaces/${NS}/configmaps`;
    const old = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('expiry-1') });
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('expiry-2') });
    // Within the window: the events after `old` are replayed.
    const ok = await recordWatch(kc, path, { resourceVersion: old });
    await waitFor('the replay', () => ok.events.length >= 2);
    assert.deepEqual(
      ok.events.map((e) => `${e.type}:${e.object.metadata?.name}`),
      ['ADDED:expiry-1', 'ADDED:expiry-2'],
    );
    ok.abort();

    // The server forgets its history (etcd compaction): the same resourceVersion is now too old.
    sim.faults.compactHistory();
    const gone = await recordWatch(kc, path, { resourceVersion: old });
    const err = await endOf(gone);
    assert.equal(err, null, 'the stream ends cleanly after the ERROR event');
    assert.equal(gone.events.length, 1);
    const [ev] = gone.events;
    assert.equal(ev?.type, 'ERROR');
    const status = ev?.object as unknown as StatusBody;
    assert.equal(status.kind, 'Status');
    assert.equal(status.code, 410);
    assert.equal(status.reason, 'Expired');
    assert.match(status.message, /too old resource version/);

    // A list at that resourceVersion (Exact) is 410 too.
    const list = await apiError(
      core.listNamespacedConfigMap({ namespace: NS, resourceVersion: old, resourceVersionMatch: 'Exact' }),
    );
    assert.equal(list.code, 410);
    assert.equal(statusOf(list).reason, 'Expired');

    // A shrunk retained window: only the last 3 events are kept, so a resourceVersion 5 changes back is too old.
    sim.faults.setHistoryLimit(3);
    try {
      const from = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
      for (let i = 0; i < 5; i++) {
        await core.patchNamespacedConfigMap(
          { name: 'expiry-1', namespace: NS, body: { data: { i: String(i) } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      }
      const shrunk = await recordWatch(kc, path, { resourceVersion: from });
      await endOf(shrunk);
      assert.deepEqual(
        shrunk.events.map((e) => [e.type, (e.object as unknown as StatusBody).code]),
        [['ERROR', 410]],
      );
    } finally {
      sim.faults.setHistoryLimit(20_000);
    }

    // The fault that answers the next watch with 410, whatever its resourceVersion.
    const now = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion;
    sim.faults.expireNextWatch();
    const forced = await recordWatch(kc, path, { resourceVersion: now });
    await endOf(forced);
    assert.deepEqual(
      forced.events.map((e) => [e.type, (e.object as unknown as StatusBody).code]),
      [['ERROR', 410]],
    );
    // Only the next one: a watch after it works.
    const after = await recordWatch(kc, path, { resourceVersion: now });
    await core.deleteNamespacedConfigMap({ name: 'expiry-1', namespace: NS });
    await core.deleteNamespacedConfigMap({ name: 'expiry-2', namespace: NS });
    await waitFor('events after a forced 410', () => after.events.length >= 2);
    assert.deepEqual(
      after.events.map((e) => e.type),
      ['DELETED', 'DELETED'],
    );
    after.abort();
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
