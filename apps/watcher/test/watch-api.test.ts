// The watcher's watch over @podset/kube against kube-sim: what its events carry.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kube } from '@podset/kube';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { watchApiOf, type WatchLine } from '../src/kube-api.ts';

const { kube } = useSimCluster({ sim: { controllers: false }, crd: false });

test("the watcher's watch leaves metadata.managedFields out of its objects (it never reads them)", async () => {
  const start = await kube.pods.list('default');
  await kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'wa1', labels: { 'podset.io/name': 'wa' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  const written = (await kube.pods.get('default', 'wa1')).metadata as { managedFields?: unknown[] };
  assert.ok((written.managedFields?.length ?? 0) > 0, 'the API server wrote managedFields');

  const ac = new AbortController();
  const seen: WatchLine[] = [];
  for await (const batch of watchApiOf(kube).watch('pods', 'default', {
    labelSelector: 'podset.io/name',
    resourceVersion: start.metadata.resourceVersion!,
    allowWatchBookmarks: false,
    timeoutSeconds: 30,
    signal: ac.signal,
  })) {
    seen.push(...batch);
    ac.abort();
  }
  assert.equal(seen[0]?.type, 'ADDED');
  assert.equal(seen[0]?.object.metadata?.name, 'wa1');
  assert.ok(!('managedFields' in (seen[0]?.object.metadata ?? {})));
});

test('with podReadPauseMs, pods created during a pause come out in one batch', async () => {
  const start = await kube.pods.list('default');
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { 'podset.io/name': 'paced' } },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
  });
  await kube.pods.create('default', pod('paced-a'));
  const ac = new AbortController();
  const batches: string[][] = [];
  // A pause far longer than three creates take: they are all written while the watch is not reading.
  for await (const batch of watchApiOf(kube, { podReadPauseMs: 2000 }).watch('pods', 'default', {
    labelSelector: 'podset.io/name=paced',
    resourceVersion: start.metadata.resourceVersion!,
    allowWatchBookmarks: false,
    timeoutSeconds: 30,
    signal: ac.signal,
  })) {
    batches.push(batch.map((line) => line.object.metadata?.name ?? ''));
    if (batches.length === 1) {
      for (const name of ['paced-b', 'paced-c', 'paced-d']) await kube.pods.create('default', pod(name));
    } else ac.abort();
  }
  assert.deepEqual(batches, [['paced-a'], ['paced-b', 'paced-c', 'paced-d']]);
});

test('podReadPauseMs paces the pod watch only: a PodSet watch is read as its events arrive', () => {
  const asked: { resource: string; readPauseMs: number | undefined }[] = [];
  const recorder = (resource: string) => ({
    watchBatches: (_namespace: string | undefined, opts: { readPauseMs?: number }) => {
      asked.push({ resource, readPauseMs: opts.readPauseMs });
      return (async function* () {})();
    },
  });
  const fake = { pods: recorder('pods'), podSets: recorder('podsets') } as unknown as Kube;
  const opts = { allowWatchBookmarks: false, timeoutSeconds: 1, signal: new AbortController().signal };
  const paced = watchApiOf(fake, { podReadPauseMs: 50 });
  paced.watch('pods', undefined, opts);
  paced.watch('podsets', undefined, opts);
  watchApiOf(fake).watch('pods', undefined, opts);
  assert.deepEqual(asked, [
    { resource: 'pods', readPauseMs: 50 },
    { resource: 'podsets', readPauseMs: undefined },
    { resource: 'pods', readPauseMs: undefined },
  ]);
});

/** What the watcher reads of a pod (its metadata but managedFields, node, phase, conditions), from JSON. */
function readFields(o: Record<string, unknown>): Record<string, unknown> {
  const { managedFields: _, ...metadata } = o.metadata as Record<string, unknown>;
  const spec = o.spec as { nodeName?: string } | undefined;
  const status = o.status as { phase?: string; conditions?: Record<string, unknown>[] } | undefined;
  // JSON writes an unset condition time as null; the protobuf reader leaves it out.
  const conditions = status?.conditions?.map((c) =>
    Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null && v !== undefined)),
  );
  return {
    kind: o.kind,
    apiVersion: o.apiVersion,
    metadata,
    spec: spec?.nodeName === undefined ? {} : { nodeName: spec.nodeName },
    status: {
      ...(status?.phase !== undefined ? { phase: status.phase } : {}),
      ...(conditions !== undefined ? { conditions } : {}),
    },
  };
}

test('the pod watch in protobuf carries what the JSON watch does of what the watcher reads', async () => {
  const start = await kube.pods.list('default');
  const labels = { 'podset.io/name': 'pb', 'pod-template-hash': 'h1' };
  await kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'pb-1',
      labels,
      annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-3', note: 'héllo ✓' },
      finalizers: ['podset.io/test'],
      ownerReferences: [
        { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'pb', uid: 'u-pb', controller: true },
      ],
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }] },
  } as never);
  const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  await kube.pods.replaceStatus('default', 'pb-1', {
    ...(await kube.pods.get('default', 'pb-1')),
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: now, lastProbeTime: null },
        {
          type: 'PodScheduled',
          status: 'True',
          lastTransitionTime: now,
          reason: 'Bound',
          message: 'on node-1',
        },
      ],
      containerStatuses: [
        {
          name: 'app',
          image: 'busybox',
          imageID: '',
          ready: true,
          restartCount: 2,
          state: { running: { startedAt: now } },
        },
      ],
      podIP: '10.1.2.3',
    },
  } as never);
  await kube.pods.delete('default', 'pb-1', { gracePeriodSeconds: 30 });
  await kube.pods.patch('default', 'pb-1', { metadata: { finalizers: null } }, { type: 'merge' });
  // No kubelet here (controllers off) finishes the graceful delete: a second one, at once, does.
  await kube.pods.delete('default', 'pb-1', { gracePeriodSeconds: 0 });

  const watchAll = async (podEncoding: 'protobuf' | 'json') => {
    const ac = new AbortController();
    const seen: WatchLine[] = [];
    for await (const batch of watchApiOf(kube, { podEncoding }).watch('pods', 'default', {
      labelSelector: 'podset.io/name=pb',
      resourceVersion: start.metadata.resourceVersion!,
      allowWatchBookmarks: false,
      timeoutSeconds: 30,
      signal: ac.signal,
    })) {
      seen.push(...batch);
      if (seen.some((e) => e.type === 'DELETED')) ac.abort();
    }
    return seen;
  };
  const json = await watchAll('json');
  const protobuf = await watchAll('protobuf');
  assert.deepEqual(
    json.map((e) => e.type),
    ['ADDED', 'MODIFIED', 'MODIFIED', 'MODIFIED', 'DELETED'],
  );
  assert.deepEqual(
    protobuf.map((e) => e.type),
    json.map((e) => e.type),
  );
  // Read from protobuf: the containers were stepped over, not parsed.
  assert.ok(!('containers' in ((protobuf[0]!.object as { spec?: object }).spec ?? {})));
  assert.ok('containers' in ((json[0]!.object as { spec?: object }).spec ?? {}));
  for (const [i, e] of protobuf.entries()) {
    assert.deepEqual(e.object, readFields(json[i]!.object as never), `event ${i} (${e.type})`);
  }
});
