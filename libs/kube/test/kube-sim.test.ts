// @podset/kube against kube-sim over HTTP: the calls the operator makes, as the API server answers them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import {
  createKube,
  isConflict,
  isNotFound,
  KubeApiError,
  loadKubeConfig,
  type Lease,
  type Pod,
  type WatchEvent,
} from '../src/index.ts';

const { sim, kube } = useSimCluster({ sim: { controllers: false }, crd: false });

const pod = (name: string, labels: Record<string, string> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
});

test('create, get, list (consistent and NotOlderThan), delete with a UID precondition', async () => {
  const created = await kube.pods.create('default', pod('a', { app: 'x' }));
  assert.ok(created.metadata.uid);
  const got = await kube.pods.get('default', 'a');
  assert.equal(got.metadata.uid, created.metadata.uid);
  const consistent = await kube.pods.list('default', { labelSelector: 'app=x' });
  assert.deepEqual(
    consistent.items.map((p) => p.metadata.name),
    ['a'],
  );
  const cached = await kube.pods.list('default', {
    labelSelector: 'app=x',
    resourceVersion: created.metadata.resourceVersion!,
    resourceVersionMatch: 'NotOlderThan',
  });
  assert.deepEqual(
    cached.items.map((p) => p.metadata.name),
    ['a'],
  );
  const wrongUid = await kube.pods
    .delete('default', 'a', { preconditions: { uid: 'nope' } })
    .catch((e: unknown) => e);
  assert.ok(isConflict(wrongUid), String(wrongUid));
  await kube.pods.delete('default', 'a', {
    preconditions: { uid: created.metadata.uid! },
    gracePeriodSeconds: 0,
  });
  const gone = await kube.pods.get('default', 'a').catch((e: unknown) => e);
  assert.ok(isNotFound(gone));
  assert.ok(gone instanceof KubeApiError);
  assert.equal(gone.reason, 'NotFound');
});

test('leases: create, update with resourceVersion, stale update → 409', async () => {
  const lease = await kube.leases.create('default', {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'podset-watcher' },
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
  });
  const renewed = await kube.leases.replace('default', 'podset-watcher', {
    ...lease,
    spec: { ...lease.spec, holderIdentity: 'a', renewTime: new Date().toISOString().replace(/Z$/, '000Z') },
  } as Lease);
  assert.notEqual(renewed.metadata.resourceVersion, lease.metadata.resourceVersion);
  const stale = await kube.leases
    .replace('default', 'podset-watcher', { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } })
    .catch((e: unknown) => e);
  assert.ok(stale instanceof KubeApiError);
  assert.equal(stale.code, 409);
});

test('watch from a resourceVersion sees later changes; abort ends it', async () => {
  const start = await kube.pods.list('default');
  const ac = new AbortController();
  const seen: WatchEvent<Pod>[] = [];
  const done = (async () => {
    for await (const ev of kube.pods.watch('default', {
      resourceVersion: start.metadata.resourceVersion!,
      labelSelector: 'w=1',
      signal: ac.signal,
    })) {
      seen.push(ev);
      if (seen.length === 2) ac.abort();
    }
  })();
  await kube.pods.create('default', pod('w1', { w: '1' }));
  await kube.pods.patch('default', 'w1', { metadata: { labels: { w: '1', touched: 'yes' } } });
  await done;
  assert.deepEqual(
    seen.map((e) => e.type),
    ['ADDED', 'MODIFIED'],
  );
  assert.equal(seen[1]?.object.metadata.labels?.touched, 'yes');
  assert.ok(kube.client.requestCounts().some((c) => c.verb === 'watch' && c.code === 200));
});

test('a watch with dropManagedFields gets the same objects without metadata.managedFields', async () => {
  const start = await kube.pods.list('default');
  const watch = async (dropManagedFields: boolean): Promise<WatchEvent<Pod>[]> => {
    const ac = new AbortController();
    const seen: WatchEvent<Pod>[] = [];
    for await (const ev of kube.pods.watch('default', {
      resourceVersion: start.metadata.resourceVersion!,
      labelSelector: 'mf=1',
      dropManagedFields,
      signal: ac.signal,
    })) {
      seen.push(ev);
      if (seen.length === 2) ac.abort();
    }
    return seen;
  };
  await kube.pods.create('default', pod('mf1', { mf: '1' }));
  await kube.pods.patch('default', 'mf1', { metadata: { labels: { mf: '1', touched: 'yes' } } });
  const [whole, cut] = await Promise.all([watch(false), watch(true)]);
  assert.equal(whole.length, 2);
  for (const [i, ev] of whole.entries()) {
    const metadata: Record<string, unknown> = { ...ev.object.metadata };
    assert.ok(
      Array.isArray(metadata.managedFields) && metadata.managedFields.length > 0,
      'they were written',
    );
    delete metadata.managedFields;
    assert.deepEqual(cut[i], { ...ev, object: { ...ev.object, metadata } });
  }
});

test('an injected 429 is retried after Retry-After and counted', async () => {
  sim.faults.addError({ verb: 'list', resource: 'pods', code: 429, retryAfterSeconds: 0, times: 1 });
  const k = createKube(loadKubeConfig({ kubeconfig: sim.kubeconfigPath }), { qps: 0 });
  await k.pods.list('default');
  const counts = k.client.requestCounts().sort((a, b) => a.code - b.code);
  assert.deepEqual(counts, [
    { verb: 'list', code: 200, count: 1 },
    { verb: 'list', code: 429, count: 1 },
  ]);
});

test('events: create and aggregate with a merge patch', async () => {
  const now = new Date().toISOString();
  const ev = await kube.events.create('default', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'x.1' },
    involvedObject: { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'x', namespace: 'default', uid: 'u' },
    reason: 'SuccessfulCreate',
    message: 'Created pod: x-1',
    type: 'Normal',
    count: 1,
    firstTimestamp: now,
    lastTimestamp: now,
    source: { component: 'podset-operator' },
  });
  const patched = await kube.events.patch('default', ev.metadata.name!, { count: 2 });
  assert.equal(patched.count, 2);
});
